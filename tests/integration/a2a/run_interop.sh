#!/usr/bin/env bash
# A2A interop with the official JavaScript SDK (tests/peers/a2a), on 127.0.0.1 only.
#   run_interop.sh our-client NODE A2A_INTEROP_CLIENT   reagent's client -> the SDK's echo agent
#   run_interop.sh js-client  NODE REAGENT_CLI          the SDK's client -> `reagent serve --a2a`
# Both peers are stopped on exit, whatever happens.
set -euo pipefail
mode=$1 node=$2 program=$3
peers="$(cd "$(dirname "$0")/../../peers/a2a" && pwd)"
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# Waits (up to 10 s) until FILE matches REGEX; prints the first match.
wait_for() {
    for _ in $(seq 100); do
        if grep -qoE "$2" "$1" 2> /dev/null; then grep -oE "$2" "$1" | head -1; return 0; fi
        sleep 0.1
    done
    echo "run_interop: timed out waiting for $2 in $1:" >&2
    cat "$1" >&2
    return 1
}

if [ "$mode" = our-client ]; then
    # The echo agent exits when its stdin closes: this script holds a FIFO open for it.
    mkfifo "$work/stdin"
    (cd "$peers" && exec "$node" echo_agent.mjs < "$work/stdin" > "$work/port" 2> "$work/err") &
    pids+=($!)
    exec 3> "$work/stdin"
    port=$(wait_for "$work/port" '^[0-9]+')
    "$program" "http://127.0.0.1:$port"
else
    "$program" serve --a2a --port 0 --provider demo 2> "$work/serve.log" &
    pids+=($!)
    base=$(wait_for "$work/serve.log" 'http://127\.0\.0\.1:[0-9]+')
    # The server generated a bearer token and printed it; the SDK client sends it (A2A_TOKEN).
    token=$(wait_for "$work/serve.log" 'Bearer [A-Za-z0-9_-]+' | cut -d' ' -f2)
    cd "$peers"
    echo "== JS SDK client without the token: refused"
    if "$node" sdk_client.mjs "$base" send > "$work/anonymous.log" 2>&1; then
        echo "the server answered a client without its token:"; cat "$work/anonymous.log"; exit 1
    fi
    grep -q 401 "$work/anonymous.log" || { echo "no 401:"; cat "$work/anonymous.log"; exit 1; }
    for args in "send" "stream" "send --legacy" "stream --legacy"; do
        echo "== JS SDK client, $args"
        # shellcheck disable=SC2086
        A2A_TOKEN=$token "$node" sdk_client.mjs "$base" $args | grep -E '^(answer|ok)'
    done
    # SIGTERM stops the server gracefully, with status 0.
    kill -TERM "${pids[0]}"
    status=0
    wait "${pids[0]}" || status=$?
    grep -q 'server stopped' "$work/serve.log" || { echo "no graceful stop:"; cat "$work/serve.log"; exit 1; }
    [ "$status" = 0 ] || { echo "reagent serve exited with status $status"; exit 1; }
    echo "== SIGTERM: stopped gracefully, status 0"
fi
