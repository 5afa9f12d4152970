#!/bin/sh
# bench/mcp.sh - wickfs mcp against the reference filesystem MCP server
# (@modelcontextprotocol/server-filesystem), both driven over stdio by the
# same client: the official TypeScript SDK's (@modelcontextprotocol/sdk).
#
# For each server: spawn + initialize (the median of BENCH_SPAWNS
# connections, default 20: process start to the initialize answer, as a
# host sees it), the median time of one read_text_file call of a 1 KB file
# over BENCH_CALLS calls on one connection (default 2000, after 50 not
# counted), and the server process's RSS after them (VmRSS). Prints a
# markdown table with the ratios.
#
#   sh bench/mcp.sh [--quick]    --quick: 3 spawns, 200 calls (a smoke run)
#
# Variables: WICKFS, BENCH_SPAWNS, BENCH_CALLS, NPM_DIR (where
# node_modules holds the SDK and the reference; default build/npm, as
# tests/t_mcp_sdk.sh installs them at the same pinned versions).
. bench/lib.sh

SDK_VERSION=1.32.2
REF_VERSION=2026.8.31
spawns=${BENCH_SPAWNS:-20}
calls=${BENCH_CALLS:-2000}
if [ "${1:-}" = --quick ]; then
	spawns=3
	calls=200
fi
W=$(bench_wickfs)
npm_dir=${NPM_DIR:-$PWD/build/npm}
sdk=$npm_dir/node_modules/@modelcontextprotocol/sdk/dist/esm
ref=$npm_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js

[ -x "$W" ] || { say "bench: no $W (make first)"; exit 0; }
command -v node >/dev/null 2>&1 || { say "bench: mcp: node is missing"; exit 0; }
if [ ! -f "$sdk/client/stdio.js" ] || [ ! -f "$ref" ]; then
	command -v npm >/dev/null 2>&1 || { say "bench: mcp: npm is missing"; exit 0; }
	mkdir -p "$npm_dir"
	if ! npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error \
		"@modelcontextprotocol/sdk@$SDK_VERSION" \
		"@modelcontextprotocol/server-filesystem@$REF_VERSION" >&2; then
		say "bench: mcp: npm install failed"
		exit 0
	fi
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/wickfs-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'rm -rf "$dir"; exit 1' INT TERM HUP PIPE
mkdir -p "$dir/tree"
head -c 768 /dev/urandom | base64 -w0 >"$dir/tree/f1k.txt"
case $W in /*) ;; *) W=$PWD/$W ;; esac

cat >"$dir/bench.mjs" <<'EOF'
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [sdk, spawns, calls, tree, name, command, ...args] = process.argv.slice(2);
const { Client } = await import(pathToFileURL(join(sdk, 'client/index.js')));
const { StdioClientTransport } = await import(pathToFileURL(join(sdk, 'client/stdio.js')));
const median = (a) => { a.sort((x, y) => x - y); return a[a.length >> 1]; };
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms
async function open() {
	const c = new Client({ name: 'wickfs-bench', version: '1.0.0' });
	const t = new StdioClientTransport({ command, args: [...args, tree], stderr: 'ignore' });
	await c.connect(t);
	return [c, t];
}
const start = [];
for (let i = 0; i < +spawns; i++) {
	const t0 = now();
	const [c] = await open();
	start.push(now() - t0);
	await c.close();
}
const [c, t] = await open();
const path = join(tree, 'f1k.txt');
const want = readFileSync(path, 'utf8');
const per = [];
for (let i = 0; i < 50 + +calls; i++) {
	const t0 = now();
	const r = await c.callTool({ name: 'read_text_file', arguments: { path } });
	const dt = now() - t0;
	if (r.isError || r.content[0].text !== want)
		throw new Error(`${name}: read_text_file answered ${JSON.stringify(r).slice(0, 200)}`);
	if (i >= 50)
		per.push(dt);
}
const rss = +(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${t.pid}/status`, 'utf8')) || [0, 0])[1];
await c.close();
console.log([name, median(start).toFixed(2), median(per).toFixed(3), rss].join('\t'));
EOF

run() {
	node "$dir/bench.mjs" "$sdk" "$spawns" "$calls" "$dir/tree" "$@" 2>"$dir/err" ||
		{ say "bench: mcp: $1 failed: $(tail -3 "$dir/err")"; return 1; }
}
run wickfs "$W" mcp >"$dir/w.tsv" || exit 0
run reference node "$ref" >"$dir/r.tsv" || exit 0

echo "### MCP over stdio: wickfs mcp and the reference server, through the SDK client"
echo
echo "$spawns spawns; read_text_file of a 1 KB file, $calls calls on one connection."
echo
echo "| server | spawn + initialize (median) | read_text_file (median per call) | RSS after the calls |"
echo "|---|---|---|---|"
cat "$dir/w.tsv" "$dir/r.tsv" | awk -F'\t' '{ printf "| %s | %.2f ms | %.3f ms | %.1f MB |\n", $1, $2, $3, $4 / 1024 }'
paste "$dir/w.tsv" "$dir/r.tsv" | awk -F'\t' '{
	printf "| wickfs / reference | %.3fx | %.3fx | %.3fx |\n", $2 / $6, $3 / $7, $4 / $8 }'
