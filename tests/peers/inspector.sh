#!/usr/bin/env bash
# tests/peers/inspector.sh - wickfs mcp driven by the MCP Inspector's CLI
# mode (@modelcontextprotocol/inspector, from npm), over stdio and over
# Streamable HTTP. Outside `make test`: the Inspector and its web UI are
# 242 packages and 147 MB, a minute of CI for a client the SDK tests
# already cover. Run by hand: bash tests/peers/inspector.sh [WICKFS]
# Prints ok/FAIL lines and a count; exits 1 when a check failed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
W=${1:-$top/build/wickfs}
INSPECTOR_VERSION=0.15.0
npm_dir=$top/build/npm-inspector
pass=0 failed=0
ok() { printf 'ok %s\n' "$1"; pass=$((pass + 1)); }
bad() { printf 'FAIL %s: %s\n' "$1" "$2"; failed=$((failed + 1)); }
expect() { # NAME PATTERN TEXT
	case $3 in $2) ok "$1" ;; *) bad "$1" "got ${3:0:200}" ;; esac
}
command -v npm >/dev/null || { echo "skip: npm is missing"; exit 0; }
if [ ! -x "$npm_dir/node_modules/.bin/mcp-inspector" ]; then
	mkdir -p "$npm_dir"
	npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
		"@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2 || { echo "skip: npm install failed"; exit 0; }
fi
insp() { timeout 120 "$npm_dir/node_modules/.bin/mcp-inspector" --cli "$@" 2>/dev/null; }
tmp=$(mktemp -d)
ws=$tmp/ws
mkdir "$ws"
trap 'rm -rf "$tmp"; [ -n "${hp:-}" ] && kill "$hp" 2>/dev/null' EXIT
printf 'hello\n' >"$ws/a.txt"

names=$(insp "$W" mcp "$ws" --method tools/list |
	python3 -c 'import json,sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["tools"]))')
expect inspector.stdio.tools_list "read_text_file read_file *run_command*restore pack unpack" "$names"
expect inspector.stdio.read '*"text": "hello\\n"*' \
	"$(insp "$W" mcp "$ws" --method tools/call --tool-name read_text_file --tool-arg path=a.txt)"
expect inspector.stdio.escape '*"isError": true*' \
	"$(insp "$W" mcp "$ws" --method tools/call --tool-name read_text_file --tool-arg path=/etc/passwd)"
expect inspector.stdio.templates '*"uriTemplate": "file:///{+path}"*' \
	"$(insp "$W" mcp "$ws" --method resources/templates/list)"

"$W" mcp --listen 127.0.0.1:0 "$ws" 2>"$tmp/http.log" &
hp=$!
url=
for _ in $(seq 50); do
	url=$(sed -n 's/.*listening on //p' "$tmp/http.log")
	[ -n "$url" ] && break
	sleep 0.1
done
expect inspector.http.list_directory '*"text": "\[FILE\] a.txt"*' \
	"$(insp "$url" --transport http --method tools/call --tool-name list_directory --tool-arg path=.)"
expect inspector.http.write '*Successfully wrote to b.txt*' \
	"$(insp "$url" --transport http --method tools/call --tool-name write_file --tool-arg path=b.txt --tool-arg content=x)"
expect inspector.http.written "x" "$(cat "$ws/b.txt" 2>/dev/null)"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
