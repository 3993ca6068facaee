#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests (ctest starts it before the
# tests that need it and stops it after them: tests/CMakeLists.txt).
#
#   scripts/pg_cluster.sh start STATE_FILE [--durable]
#   scripts/pg_cluster.sh restart STATE_FILE [fast|immediate]
#   scripts/pg_cluster.sh stop STATE_FILE
#
# start: initdb into a new directory under /tmp, then a server that listens
# on a Unix socket in that directory only (no TCP), with trust
# authentication for the superuser `engram`: the directory is 0700, so only
# its owner (and root) can reach the socket. Durability settings are off:
# nothing in it outlives the tests. Writes the connection URL on the first
# line of STATE_FILE and the directory on the second. Run as root, the
# server runs as the `postgres` user that Debian's postgresql package
# creates (PostgreSQL refuses to run as root). With --durable, fsync and
# synchronous commit stay on, so a crash loses nothing acknowledged (the
# cluster load test crashes it; bench/cluster_load.sh).
# restart: stops the server (fast: a clean shutdown, the default;
# immediate: a crash, recovered from the WAL on start) and starts it again
# with the same settings.
# stop: stops that server and removes its directory and STATE_FILE.
set -euo pipefail
usage="usage: pg_cluster.sh start|restart|stop STATE_FILE [--durable|fast|immediate]"
command=${1:?$usage}
state=$(realpath -m "${2:?$usage}")
option=${3:-}
# The server's user may not be able to enter the caller's directory.
cd /

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "pg_cluster: no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case $command in
  start)
    if [ -f "$state" ]; then "$0" stop "$state" || true; fi
    dir=$(mktemp -d /tmp/engram-pg.XXXXXX)
    chmod 700 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    case $option in
      "") durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" ;;
      --durable) durability="" ;;
      *) echo "pg_cluster: unknown option $option ($usage)" >&2; exit 1 ;;
    esac
    as_owner "$bin/initdb" -D "$dir/data" -U engram -A trust -E UTF8 --locale=C.UTF-8 \
      --no-sync > "$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' $durability \
          -c max_connections=300" \
      start > /dev/null ||
      { cat "$dir/server.log" >&2; rm -rf "$dir"; exit 1; }
    printf 'postgresql:///postgres?host=%s&user=engram\n%s\n' "$dir" "$dir" > "$state"
    ;;
  restart)
    mode=${option:-fast}
    case $mode in
      fast | immediate) ;;
      *) echo "pg_cluster: unknown restart mode $mode ($usage)" >&2; exit 1 ;;
    esac
    dir=$(sed -n 2p "$state")
    # The server started again with the options it was started with
    # (postmaster.opts).
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m "$mode" -w -t 60 \
      restart > /dev/null || { tail -n 20 "$dir/server.log" >&2; exit 1; }
    ;;
  stop)
    [ -f "$state" ] || exit 0
    dir=$(sed -n 2p "$state")
    if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null; fi
    rm -rf "$dir" "$state"
    ;;
  *)
    echo "pg_cluster: unknown command $command ($usage)" >&2
    exit 1
    ;;
esac
