# Heddle developer commands. `make check` is what CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
GO ?= go
PKGS := ./...

.PHONY: help generate fmt lint test test-unit test-e2e drills bench bench-scale bench-console run check services e2e-deps build

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

generate: ## regenerate templ components
	$(GO) tool templ generate

fmt: ## format the code
	gofmt -w $$(git ls-files '*.go')

lint: ## vet, formatting, unused code, generated files up to date
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@# deadcode: functions no main or test reaches (an unwired store, a helper nothing calls). It exits 0, so fail on output.
	@out=$$($(GO) tool deadcode -test $(PKGS)) || exit 1; if [ -n "$$out" ]; then echo "unused code (go tool deadcode -test):"; echo "$$out"; exit 1; fi
	@if grep -q 'a-h/templ/cmd/templ' go.mod; then $(GO) tool templ generate >/dev/null && git diff --exit-code -- '*_templ.go' || { echo "templ generate changed files: commit them"; exit 1; }; fi

services: ## start PostgreSQL, Redis and ClickHouse (installing ClickHouse if needed)
	.ci/services.sh

e2e-deps: ## install the real clients (Claude Code, Codex) the e2e suite drives
	cd e2e && npm ci --no-audit --no-fund

build: ## build the heddle binary into ./bin
	$(GO) build -buildvcs=auto -o bin/heddle .

test-unit: services ## unit and integration tests against real SQLite, Postgres, ClickHouse, Redis
	$(GO) test -race -short -count=1 -timeout 20m $$($(GO) list ./... | grep -v /e2e)
	@# The RouterBench evaluation trains 3 seeds x 2 splits: minutes under -race, so it runs once without it.
	$(GO) test -count=1 -timeout 20m -run 'TestRouterBenchEval' -v ./routing/offline/ | grep -E '^ *\||target|ceiling|_test.go:|^(ok|FAIL|---)'


test-e2e: services e2e-deps build ## black-box tests of the built binary with real clients and a real browser
	HEDDLE_E2E_BIN=$(CURDIR)/bin/heddle $(GO) test -count=1 -timeout 20m ./e2e/...

drills: services build ## operations drills (crash, shutdown, ClickHouse down, compose topology) with their numbers
	HEDDLE_E2E_BIN=$(CURDIR)/bin/heddle $(GO) test -count=1 -v -run 'TestDrill|TestComposeTopologyNative' ./e2e/ | grep -E 'drill:|^(---|ok|FAIL)'

test: test-unit test-e2e ## the whole test suite (starts what it needs)

bench: ## overhead, routing and translation benchmarks, each printed as a ratio to a baseline measured in the same run
	$(GO) test -run '^$$' -bench 'GatewayAddedLatency' -benchtime 3000x ./app/
	$(GO) test -run '^$$' -bench 'AddedLatency' -benchtime 3000x ./dispatch/
	$(GO) test -run '^$$' -bench 'Decide|HugotEmbed' ./routing/...
	$(GO) test -run '^$$' -bench 'ClaudeCode|Translat|SetModel' -benchtime 200x ./llm/...
	$(GO) build -o bin/heddle . && HEDDLE_E2E_BIN=$(CURDIR)/bin/heddle $(GO) test -run '^$$' -bench 'GatewayLoad' -benchtime 1x -timeout 20m ./e2e/

bench-scale: ## analytics reads at 10M rows in ClickHouse (synthesized once into HEDDLE_SCALE_DB), median and rows read
	$(GO) test -run '^$$' -bench Scale -benchtime 1x -v -timeout 60m ./analytics/clickhouse/ | grep -E 'scale_test|^(ok|FAIL)'

bench-console: ## console pages and reports through the built binary at 10M rows (HEDDLE_SCALE_DB), median, rows read, export RSS
	$(GO) build -o bin/heddle . && HEDDLE_E2E_BIN=$$PWD/bin/heddle $(GO) test -run '^$$' -bench ScaleConsole -benchtime 1x -v -timeout 60m ./e2e/ | grep -E 'scale_test|^(ok|FAIL)'

run: ## run Heddle on the embedded default
	$(GO) run .

check: lint test ## what CI runs
