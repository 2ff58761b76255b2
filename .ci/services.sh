#!/usr/bin/env bash
# Makes sure every service the test suite needs answers: PostgreSQL, Redis and
# ClickHouse (installed from Debian if missing). A service that cannot be
# started fails this script; tests never skip a missing service.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "services.sh: $*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update -qq >/dev/null || true
	as_root apt-get install -y -qq "$@" >/dev/null
}

# PostgreSQL
if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
	command -v pg_ctlcluster >/dev/null 2>&1 || { say "installing postgresql"; apt_install postgresql; }
	v=$(ls /etc/postgresql | sort -V | tail -1)
	say "starting PostgreSQL $v"
	pg_ctlcluster --skip-systemctl-redirect "$v" main start || pg_ctlcluster "$v" main start
fi
for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1 && break; sleep 1; done
pg_isready -h 127.0.0.1 -p 5432 >/dev/null || { say "FAIL: PostgreSQL does not answer on 127.0.0.1:5432"; exit 1; }
# Trust auth for the postgres user over TCP is how these machines come; check it.
psql "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable" -Atc 'select 1' >/dev/null ||
	{ say "FAIL: cannot connect as postgres@127.0.0.1 (trust auth expected)"; exit 1; }

# Redis
if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
	command -v redis-server >/dev/null 2>&1 || { say "installing redis-server"; apt_install redis-server; }
	say "starting Redis"
	redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
	sleep 1
fi
(exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null || { say "FAIL: Redis does not answer on 127.0.0.1:6379"; exit 1; }

# ClickHouse
.ci/clickhouse.sh
say "PostgreSQL, Redis and ClickHouse are up"
