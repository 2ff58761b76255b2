#!/usr/bin/env bash
# Installs (Debian package) and starts a local ClickHouse server for the test
# suite, then waits until it answers `SELECT 1` on the native port. Fails loudly
# when it cannot. Idempotent: does nothing when ClickHouse already answers.
set -euo pipefail

host="${CLICKHOUSE_HOST:-127.0.0.1}"
port="${CLICKHOUSE_PORT:-9000}"
config="${CLICKHOUSE_CONFIG:-/etc/clickhouse-server/config.xml}"
log="${CLICKHOUSE_LOG:-/tmp/clickhouse-server.out}"
wait_seconds="${CLICKHOUSE_WAIT_SECONDS:-60}"

say() { echo "clickhouse.sh: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

answers() {
	clickhouse-client --host "$host" --port "$port" --query 'SELECT 1' >/dev/null 2>&1
}

port_open() {
	(exec 3<>"/dev/tcp/$host/$port") >/dev/null 2>&1
}

if ! command -v clickhouse-server >/dev/null 2>&1 || ! command -v clickhouse-client >/dev/null 2>&1; then
	say "installing clickhouse-server and clickhouse-client with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update -qq || die "apt-get update failed"
	as_root apt-get install -y -qq clickhouse-server clickhouse-client || die "apt-get install failed"
fi

if answers; then
	say "already running on $host:$port"
	exit 0
fi

if ! port_open; then
	[ -f "$config" ] || die "config file $config not found"
	say "starting clickhouse-server --config-file=$config (output in $log)"
	# The Debian package runs the server as the clickhouse user; the data and
	# log directories in its config belong to that user.
	if [ "$(id -u)" -eq 0 ] && id clickhouse >/dev/null 2>&1; then
		for d in /var/lib/clickhouse /var/log/clickhouse-server; do
			mkdir -p "$d" && chown -R clickhouse:clickhouse "$d"
		done
		nohup setsid su -s /bin/sh clickhouse -c "clickhouse-server --config-file=$config" >"$log" 2>&1 </dev/null &
	else
		nohup setsid clickhouse-server --config-file="$config" >"$log" 2>&1 </dev/null &
	fi
fi

for _ in $(seq 1 "$wait_seconds"); do
	if answers; then
		say "ready on $host:$port ($(clickhouse-client --host "$host" --port "$port" --query 'SELECT version()'))"
		exit 0
	fi
	sleep 1
done

say "last lines of $log:"
tail -n 30 "$log" >&2 || true
die "ClickHouse did not answer SELECT 1 on $host:$port within ${wait_seconds}s"
