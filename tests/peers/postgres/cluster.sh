#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests: Debian's postgresql-15 server (scripts/setup.sh --tests
# installs it) in a data directory of its own, on a free port of 127.0.0.1, run by the `postgres` user when
# called as root (initdb refuses root), with fsync off (the tests never outlive it).
#
#   cluster.sh start STATE   starts it, and writes its URL (line 1) and directory (line 2) to STATE
#   cluster.sh stop STATE    stops it and removes its directory and STATE
#
# `start` first stops a cluster an interrupted run left behind under the same STATE.
set -euo pipefail
action=${1:?start or stop}
state=${2:?the state file}
bin=/usr/lib/postgresql/15/bin

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop_cluster() {
    if [ -f "$state" ]; then
        local dir
        dir=$(sed -n 2p "$state")
        if [ -n "$dir" ] && [ -f "$dir/data/postmaster.pid" ]; then
            as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null 2>&1 || true
        fi
        case "$dir" in /tmp/reagent-pg.*) rm -rf "$dir" ;; esac
        rm -f "$state"
    fi
}

case "$action" in
start)
    if [ ! -x "$bin/initdb" ]; then
        echo "cluster.sh: PostgreSQL 15's server is not installed; run scripts/setup.sh --tests" >&2
        exit 1
    fi
    stop_cluster
    dir=$(mktemp -d /tmp/reagent-pg.XXXXXX)
    chmod 755 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir"; fi
    as_owner "$bin/initdb" -D "$dir/data" -A trust -U reagent -E UTF8 --no-sync > "$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    # A port another program holds makes the start fail: try others.
    for _ in $(seq 1 20); do
        port=$((20000 + RANDOM % 30000))
        if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
                "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" \
                start > /dev/null 2>&1; then
            printf 'postgresql://reagent@127.0.0.1:%s/postgres\n%s\n' "$port" "$dir" > "$state"
            exit 0
        fi
    done
    echo "cluster.sh: the server did not start; its log:" >&2
    cat "$dir/server.log" >&2 || true
    exit 1
    ;;
stop)
    stop_cluster
    ;;
*)
    echo "cluster.sh: start or stop, not '$action'" >&2
    exit 2
    ;;
esac
