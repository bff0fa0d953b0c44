#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL server on loopback:
#
#   bash Backends/PostgresStore/Scripts/with-postgres.sh swift test --package-path Backends/PostgresStore
#
# initdb into a temporary directory, start the server on a free port (password authentication
# over TCP, so that a wrong password is refused), export POSTGRES_URL, run the command, and stop
# the server and delete its directory on exit, whatever the command's outcome. The exit status is
# the command's. PostgreSQL refuses to run as root, so as root the server runs as the `postgres`
# user (Debian's package creates it) or as POSTGRES_RUN_AS.
set -euo pipefail

if [ $# -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGUMENT…]   (runs COMMAND with POSTGRES_URL set)" >&2
    exit 64
fi

# Debian's PostgreSQL first (newest version), then whatever is on PATH.
bin=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bin="$candidate"; break; fi
done
if [ -z "$bin" ] && command -v initdb >/dev/null 2>&1; then bin="$(dirname "$(command -v initdb)")"; fi
if [ -z "$bin" ]; then
    echo "with-postgres.sh: no PostgreSQL found (no initdb); install it: apt-get install -y postgresql" >&2
    exit 69
fi

run_as=()
owner=""
if [ "$(id -u)" = 0 ]; then
    owner="${POSTGRES_RUN_AS:-postgres}"
    if ! id "$owner" >/dev/null 2>&1; then
        echo "with-postgres.sh: running as root and there is no user '$owner' to run PostgreSQL as; set POSTGRES_RUN_AS" >&2
        exit 67
    fi
    run_as=(runuser -u "$owner" --)
fi

dir="$(mktemp -d /tmp/with-postgres.XXXXXX)"
[ -n "$owner" ] && chown "$owner" "$dir"
password="pw-$RANDOM$RANDOM"
echo "$password" > "$dir/pwfile"
[ -n "$owner" ] && chown "$owner" "$dir/pwfile"

# A free port: ask the kernel for one.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"

stop() {
    "${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT

"${run_as[@]}" "$bin/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
# The settings go into the configuration file, so that a restart (POSTGRES_CTL start) keeps them.
cat >> "$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 300
fsync = on
CONF
"${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
# Through the Unix socket in $dir, where the owner is trusted (no password prompt).
"${run_as[@]}" "$bin/createdb" -h "$dir" -p "$port" -U postgres storetests </dev/null

export POSTGRES_URL="postgres://postgres:$password@127.0.0.1:$port/storetests"
# For tests that restart the server: how to stop and start this one.
export POSTGRES_CTL="${run_as[*]} $bin/pg_ctl -D $dir/data -l $dir/server.log"
echo "with-postgres.sh: PostgreSQL ($bin) on 127.0.0.1:$port, database storetests" >&2
set +e
"$@"
status=$?
set -e
exit $status
