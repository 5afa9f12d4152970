#!/usr/bin/env bash
# wickfs mcp against clients and servers no one here wrote: the official
# TypeScript SDK client (@modelcontextprotocol/sdk) lists and calls tools
# over stdio, and the same calls go to the reference filesystem server
# (@modelcontextprotocol/server-filesystem) on a second copy of the
# fixture, comparing result text and isError (tests/helpers/mcp_sdk.mjs;
# the deliberate differences are listed there and in the README). Node.js
# and npm are Debian's (scripts/deps.sh); the packages go into build/npm,
# at pinned versions. Without Node or the registry: skipped.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
npm_dir=$top/build/npm
ref_js=$npm_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js

if ! mcp_npm_install; then
	skip mcp_sdk "$MCP_NPM_ERR"
	exit 0
fi

fixture() {
	mkdir -p "$1/sub/deep" "$1/links"
	printf 'hello\nworld\n' >"$1/a.txt"
	printf 'one\ntwo\nthree\nfour\nfive\n' >"$1/lines.txt"
	printf 'a\r\nb\r\n' >"$1/crlf.txt"
	printf '  def f():\n      return 1\n' >"$1/sub/b.py"
	printf 'fine\n' >"$1/sub/deep/c.md"
	for n in a_b.txt a-b.txt B.txt a1.txt Ab aB ab 'a b' .dot _u; do printf '%s\n' "$n" >"$1/sub/deep/$n"; done
	printf '\x89PNG\r\n' >"$1/img.png"
	printf '\x00\x01\x02' >"$1/data.bin"
	ln -s "$TEST_TMP/outside" "$1/links/out"
}
mkdir -p "$TEST_TMP/outside"
printf 'secret\n' >"$TEST_TMP/outside/s.txt"
printf 'secret\n' >"$TEST_TMP/outside.txt"
fixture "$TEST_TMP/sdk"
fixture "$TEST_TMP/a"
fixture "$TEST_TMP/b"
mkdir -p "$TEST_TMP/rootdir"

export NPM_DIR=$npm_dir
node "$top/tests/helpers/mcp_sdk.mjs" sdk "$WICKFS" "$TEST_TMP/sdk" "$TEST_TMP/rootdir"
node "$top/tests/helpers/mcp_sdk.mjs" diff "$WICKFS" "$TEST_TMP/a" "$ref_js" "$TEST_TMP/b"
# the trees both servers left: names, types, modes, links and contents
# (not times)
state() {
	(cd "$1" && find . -mindepth 1 -printf '%P %y %m %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 md5sum)
}
check mcp_sdk.diff.trees_alike "$(state "$TEST_TMP/b")" "$(state "$TEST_TMP/a")"
exit 0
