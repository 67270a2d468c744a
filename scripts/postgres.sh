#!/usr/bin/env bash
# Runs a command (make test's go test) with SHOWROOM_TEST_POSTGRES_URL naming
# a PostgreSQL server: the one the caller named in SHOWROOM_TEST_POSTGRES_URL,
# or else a private server started for this run alone and stopped after it,
# also when the command fails or is interrupted.
#
# The private server: Debian's `postgresql` package (installed when missing:
# apt-get, needs root or sudo; installing it also makes Debian's own cluster,
# which this script does not use), one cluster made once with initdb under
# ~/.cache/showroom/postgres/<major>/template, and for each run a copy of it
# (so concurrent runs never share one) started on a free loopback port with
# trust authentication as user postgres, without fsync (a test server loses
# nothing it needs on a crash). A second run costs the copy and the start,
# about a second.
#
# PostgreSQL refuses to run as root (a server compromised through SQL would
# own the machine). Run by a user, the server runs as that user and its files
# are theirs. Run by root (a CI container), the server runs as `postgres`,
# the unprivileged account Debian's package creates for its own servers, and
# its files are that account's; as root's home (/root, mode 0700) is closed
# to it, the clusters are then under that account's home
# (/var/lib/postgresql/showroom) unless it can reach ~/.cache/showroom.
#
# Usage: scripts/postgres.sh command [args...]
#        scripts/postgres.sh --install   (only install the package; nothing when a server is named)
set -euo pipefail

if [ -n "${SHOWROOM_TEST_POSTGRES_URL:-}" ]; then
	# The caller's server: nothing to install or start.
	if [ "${1:-}" = --install ]; then exit 0; fi
	echo "postgres: using the server SHOWROOM_TEST_POSTGRES_URL names" >&2
	exec "$@"
fi

cache=${CACHE:-$HOME/.cache/showroom}
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# The newest server installed (Debian keeps each major in its own folder).
bindir() {
	local found
	found=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1) || true
	[ -n "$found" ] && dirname "$found"
}

bin=$(bindir) || {
	echo "installing postgresql for the PostgreSQL tests (needs apt-get)..." >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >/dev/null
	bin=$(bindir) || { echo "postgres: no initdb under /usr/lib/postgresql after installing postgresql" >&2; exit 1; }
}
if [ "${1:-}" = --install ]; then exit 0; fi
if [ $# -eq 0 ]; then echo "usage: $0 command [args...]" >&2; exit 2; fi
major=$(basename "$(dirname "$bin")")

# as runs a command as the server's user, from / (the caller's folder may be
# closed to that user).
server_user=$(id -un)
as() { (cd / && "$@"); }
base=$cache/postgres
if [ "$(id -u)" -eq 0 ]; then
	server_user=postgres
	as() { (cd / && runuser -u postgres -- "$@"); }
	mkdir -p "$cache"
	if ! as test -x "$cache" 2>/dev/null; then
		base=$(getent passwd postgres | cut -d: -f6)/showroom
	fi
	mkdir -p "$base"
	chown postgres: "$base"
fi
dir=$base/$major
mkdir -p "$dir"
[ "$server_user" = "$(id -un)" ] || chown "$server_user": "$dir"

# One run at a time makes the template and clears what a killed run left.
exec 9>"$dir/.lock"
flock 9
for run in "$dir"/run-*; do
	[ -d "$run" ] || continue
	owner=$(cat "$run/owner" 2>/dev/null || echo 0)
	if [ "$owner" -gt 0 ] && kill -0 "$owner" 2>/dev/null; then continue; fi
	if [ -f "$run/data/postmaster.pid" ]; then
		as "$bin/pg_ctl" -D "$run/data" -m immediate stop >/dev/null 2>&1 || true
	fi
	rm -rf "$run"
done
if [ ! -f "$dir/template/PG_VERSION" ]; then
	echo "postgres: creating a test cluster in $dir/template (once)" >&2
	rm -rf "$dir/template.new"
	as "$bin/initdb" --pgdata="$dir/template.new" --username=postgres --auth=trust \
		--encoding=UTF8 --locale=C.UTF-8 --no-sync --no-instructions >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; exit 1; }
	cat >>"$dir/template.new/postgresql.conf" <<-'CONF'
		# scripts/postgres.sh: a test server, reached over loopback TCP only.
		listen_addresses = '127.0.0.1'
		unix_socket_directories = ''
		fsync = off
		synchronous_commit = off
		full_page_writes = off
	CONF
	mv "$dir/template.new" "$dir/template"
fi
run=$(mktemp -d "$dir/run-XXXXXX")
echo $$ >"$run/owner"
cp -a "$dir/template" "$run/data"
[ "$server_user" = "$(id -un)" ] || chown -R "$server_user": "$run"
flock -u 9
exec 9>&- # not inherited by the server and the tests

stop() {
	as "$bin/pg_ctl" -D "$run/data" -m fast stop >/dev/null 2>&1 || true
	rm -rf "$run"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free port: one nothing answers on, and if another program takes it
# between the check and the start, the next one.
started=""
for _ in $(seq 1 20); do
	port=$((20000 + RANDOM % 30000))
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
	if as "$bin/pg_ctl" -D "$run/data" -l "$run/server.log" -o "-p $port" -w -t 60 start >/dev/null 2>&1; then
		started=1
		break
	fi
	grep -q "could not bind\|Address already in use" "$run/server.log" 2>/dev/null || break
done
if [ -z "$started" ]; then
	echo "postgres: the test server did not start:" >&2
	cat "$run/server.log" >&2 2>/dev/null || true
	exit 1
fi
echo "postgres: test server on 127.0.0.1:$port ($dir, PostgreSQL $major), stopped after the run" >&2
export SHOWROOM_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable&connect_timeout=3"
set +e
"$@"
status=$?
set -e
exit "$status"
