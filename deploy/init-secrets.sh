#!/usr/bin/env bash
# Writes the secret files compose.yaml mounts, once: random passwords, a
# console session secret and a master keyset (heddle vault init). Existing
# files are kept, so re-running is safe. The files are readable by the
# containers' users (0644) inside a directory only you can enter (0700).
set -euo pipefail
cd "$(dirname "$0")"
dir=secrets
mkdir -p "$dir" && chmod 700 "$dir"

rand() { head -c 32 /dev/urandom | base64 | tr -d '/+=\n' | head -c 40; }
put() { # put FILE CONTENT: write unless it exists
  [ -e "$dir/$1" ] && return 0
  printf '%s' "$2" >"$dir/$1"
  chmod 644 "$dir/$1"
  echo "wrote $dir/$1"
}

[ -e "$dir/postgres-password" ] || put postgres-password "$(rand)"
pg=$(cat "$dir/postgres-password")
put database-url "postgres://heddle:${pg}@postgres:5432/heddle?sslmode=disable"

[ -e "$dir/clickhouse-password" ] || put clickhouse-password "$(rand)"
ch=$(cat "$dir/clickhouse-password")
put clickhouse-url "clickhouse://heddle:${ch}@clickhouse:9000/heddle"
put clickhouse-users.xml "<clickhouse>
  <users>
    <heddle>
      <password_sha256_hex>$(printf '%s' "$ch" | sha256sum | cut -d' ' -f1)</password_sha256_hex>
      <networks><ip>::/0</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
      <access_management>0</access_management>
    </heddle>
  </users>
</clickhouse>
"
put session-secret "$(rand)$(rand)"
put grafana-admin-password "$(rand)"

if [ ! -e "$dir/master-keyset.json" ]; then
  if command -v go >/dev/null; then
    (cd .. && go run . vault init "deploy/$dir/master-keyset.json")
  else
    docker build -q -t heddle:local .. >/dev/null
    docker run --rm --user "$(id -u):$(id -g)" -v "$PWD/$dir:/out" heddle:local vault init /out/master-keyset.json
  fi
  chmod 644 "$dir/master-keyset.json"
fi
