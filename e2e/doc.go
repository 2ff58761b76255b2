// Package e2e holds black-box tests of the built heddle binary against real
// services (SQLite, Postgres, ClickHouse), fake upstream providers, the
// official SDKs, Claude Code, Codex and a real browser.
//
// The binary comes from HEDDLE_E2E_BIN, or is built once by TestMain.
package e2e
