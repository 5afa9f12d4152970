// mcp_sdk.mjs - drive MCP servers with the official TypeScript SDK client
// (tests/t_mcp_sdk.sh). Prints "ok NAME" / "FAIL NAME: detail" lines.
//
//   node mcp_sdk.mjs sdk WICKFS DIR ROOTDIR
//       list and call tools of `WICKFS mcp DIR`, then again with a client
//       that has roots (ROOTDIR)
//   node mcp_sdk.mjs diff WICKFS DIR_A REFERENCE_JS DIR_B
//       the same calls on wickfs (DIR_A) and the reference server (DIR_B),
//       two copies of one fixture: result text and isError compared
//
// NPM_DIR names the directory whose node_modules holds the SDK.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const sdk = join(process.env.NPM_DIR, 'node_modules/@modelcontextprotocol/sdk/dist/esm');
const { Client } = await import(pathToFileURL(join(sdk, 'client/index.js')));
const { StdioClientTransport } = await import(pathToFileURL(join(sdk, 'client/stdio.js')));
const { ListRootsRequestSchema } = await import(pathToFileURL(join(sdk, 'types.js')));

let failed = 0;
const ok = (name) => console.log(`ok ${name}`);
const fail = (name, detail) => {
	failed++;
	console.log(`FAIL ${name}: ${String(detail).replace(/\n/g, '\\n').slice(0, 600)}`);
};
const check = (name, want, got) => (want === got ? ok(name) : fail(name, `expected ${JSON.stringify(want)} got ${JSON.stringify(got)}`));

async function connect(command, args, roots) {
	const client = new Client({ name: 'wickfs-test', version: '1.0.0' }, { capabilities: roots ? { roots: { listChanged: true } } : {} });
	if (roots)
		client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: 'r' })) }));
	const transport = new StdioClientTransport({ command, args, stderr: 'ignore', env: { ...process.env, TZ: 'UTC' } });
	await client.connect(transport);
	return client;
}

const text = (r) => (r.content && r.content[0] && (r.content[0].text ?? JSON.stringify(r.content[0]))) || '';

async function sdkMode(wickfs, dir, rootdir) {
	const c = await connect(wickfs, ['mcp', dir]);
	check('sdk.server_name', 'wickfs', c.getServerVersion().name);
	const tools = (await c.listTools()).tools.map((t) => t.name);
	check('sdk.list.count', 35, tools.length);
	check('sdk.list.has_reference', true, ['read_text_file', 'edit_file', 'directory_tree', 'search_files', 'list_allowed_directories'].every((n) => tools.includes(n)));
	// the client validates structuredContent against each outputSchema
	let r = await c.callTool({ name: 'read_text_file', arguments: { path: 'a.txt' } });
	check('sdk.read_text_file', 'hello\nworld\n', text(r));
	check('sdk.read_text_file.structured', 'hello\nworld\n', r.structuredContent.content);
	r = await c.callTool({ name: 'write_file', arguments: { path: 'w.txt', content: 'one\ntwo\n' } });
	check('sdk.write_file', 'Successfully wrote to w.txt', text(r));
	r = await c.callTool({ name: 'edit_file', arguments: { path: 'w.txt', edits: [{ oldText: 'two', newText: 'TWO' }] } });
	check('sdk.edit_file', false, !!r.isError);
	r = await c.callTool({ name: 'grep', arguments: { pattern: 'TWO' } });
	check('sdk.grep', `${dir}/w.txt:2:TWO`, text(r));
	check('sdk.grep.structured', 2, r.structuredContent.matches[0].line);
	// a background process, through the server's own daemon
	r = await c.callTool({ name: 'start_process', arguments: { command: 'echo sdk', tag: 'sdk' } });
	check('sdk.start_process', 'sdk false', `${r.structuredContent.tag} ${!!r.isError}`);
	r = await c.callTool({ name: 'wait_process', arguments: { tag: 'sdk', timeout: 20 } });
	check('sdk.wait_process', 'false 0', `${r.structuredContent.running} ${r.structuredContent.exit_code}`);
	r = await c.callTool({ name: 'process_output', arguments: { tag: 'sdk' } });
	check('sdk.process_output', 'sdk\n', r.structuredContent.stdout);
	r = await c.callTool({ name: 'read_text_file', arguments: { path: '../x' } });
	check('sdk.escape', true, !!r.isError);
	r = await c.callTool({ name: 'read_media_file', arguments: { path: 'a.txt' } });
	check('sdk.read_media_file', 'resource', r.content[0].type);
	r = await c.callTool({ name: 'run_command', arguments: { command: 'echo hi' } });
	check('sdk.run_command', 0, r.structuredContent.exitCode);
	try {
		await c.callTool({ name: 'no_such_tool', arguments: {} });
		fail('sdk.unknown_tool', 'no error');
	} catch (e) {
		check('sdk.unknown_tool', -32602, e.code);
	}
	await c.ping();
	ok('sdk.ping');
	// progress for a long tool, and a cancelled one that stops
	let seen = 0;
	r = await c.callTool({ name: 'run_command', arguments: { command: 'sleep 2; echo p' } }, undefined, { onprogress: () => seen++ });
	check('sdk.progress', true, seen > 0 && text(r).startsWith('p\n'));
	const ac = new AbortController();
	const pending = c.callTool({ name: 'run_command', arguments: { command: 'sleep 30; echo late >cancelled.txt' } }, undefined, { signal: ac.signal });
	setTimeout(() => ac.abort('test'), 300);
	try {
		await pending;
		fail('sdk.cancel', 'answered');
	} catch (e) {
		ok('sdk.cancel');
	}
	await c.ping(); // answered once the cancelled tool has stopped
	check('sdk.cancel.stopped', false, existsSync(join(dir, 'cancelled.txt')));
	await c.close();

	// a client with roots: they replace the directory given
	const c2 = await connect(wickfs, ['mcp', dir], [rootdir]);
	let got = '';
	for (let i = 0; i < 50 && !got.includes(rootdir); i++) {
		got = text(await c2.callTool({ name: 'list_allowed_directories', arguments: {} }));
		if (!got.includes(rootdir))
			await new Promise((res) => setTimeout(res, 20));
	}
	check('sdk.roots', `Allowed directories:\n${rootdir}`, got);
	await c2.close();
}

// The calls of the differential; both servers see each in turn.
const calls = [
	['read_text_file', { path: 'a.txt' }],
	['read_text_file', { path: 'lines.txt', head: 2 }],
	['read_text_file', { path: 'lines.txt', tail: 2 }],
	['read_text_file', { path: 'lines.txt', head: 10 }],
	['read_text_file', { path: 'crlf.txt', tail: 1 }],
	['read_text_file', { path: 'a.txt', head: 1, tail: 1 }],
	['read_text_file', { path: 'nope.txt' }],
	['read_file', { path: 'a.txt' }],
	['read_multiple_files', { paths: ['a.txt', 'sub/b.py'] }],
	['list_directory', { path: '.' }],
	['list_directory', { path: 'sub' }],
	['list_directory_with_sizes', { path: '.' }],
	['list_directory_with_sizes', { path: '.', sortBy: 'size' }],
	['list_directory_with_sizes', { path: 'sub/deep' }],
	['list_directory', { path: 'sub/deep' }],
	['directory_tree', { path: 'sub' }],
	['directory_tree', { path: '.', excludePatterns: ['links', 'deep'] }],
	['directory_tree', { path: '.', excludePatterns: ['*.txt', 'links'] }],
	['search_files', { path: '.', pattern: '**/*.py' }],
	['search_files', { path: '.', pattern: '*.txt' }],
	['search_files', { path: '.', pattern: '**/*', excludePatterns: ['links', 'sub/**'] }],
	['search_files', { path: '.', pattern: '*.none' }],
	['get_file_info', { path: 'a.txt' }],
	['get_file_info', { path: 'sub' }],
	['list_allowed_directories', {}],
	['write_file', { path: 'new.txt', content: 'fresh\ncontent\n' }],
	['read_text_file', { path: 'new.txt' }],
	['edit_file', { path: 'sub/b.py', edits: [{ oldText: 'return 1', newText: 'return 2' }], dryRun: true }],
	['edit_file', { path: 'sub/b.py', edits: [{ oldText: 'def f():\n  return 1', newText: 'def g():\n    return 3' }] }],
	['read_text_file', { path: 'sub/b.py' }],
	['edit_file', { path: 'lines.txt', edits: [{ oldText: 'two', newText: 'TWO' }, { oldText: 'four\nfive', newText: '4\n5\n6' }] }],
	['edit_file', { path: 'a.txt', edits: [{ oldText: 'absent', newText: 'x' }] }],
	['create_directory', { path: 'made/deeper' }],
	['create_directory', { path: 'made' }],
	['move_file', { source: 'new.txt', destination: 'made/new.txt' }],
	['move_file', { source: 'a.txt', destination: 'lines.txt' }],
	['read_media_file', { path: 'img.png' }],
	['read_media_file', { path: 'data.bin' }],
	['edit_file', { path: 'sub/b.py', edits: [{ oldText: '    def g():\n  return 3', newText: 'def h(x):\n      y = x\n      return y' }], dryRun: true }],
	['edit_file', { path: 'a.txt', edits: [{ oldText: 'hello', newText: 'hello' }], dryRun: true }],
	['edit_file', { path: 'a.txt', edits: [{ oldText: 'hello\n', newText: '' }, { oldText: 'world', newText: 'WORLD' }] }],
	['read_text_file', { path: 'a.txt' }],
	['read_text_file', { path: 'lines.txt', head: 0 }],
	['search_files', { path: '.', pattern: 'sub' }],
	['search_files', { path: '.', pattern: '**/deep/*' }],
	['directory_tree', { path: '.', excludePatterns: ['*.md', 'links'] }],
	['list_directory', { path: 'a.txt' }],
	['create_directory', { path: 'a.txt' }],
	['move_file', { source: 'made', destination: 'moved' }],
	['list_directory', { path: 'moved' }],
	['get_file_info', { path: 'moved' }],
	['read_multiple_files', { paths: ['lines.txt'] }],
	['read_text_file', { path: '../outside.txt' }],
	['read_text_file', { path: 'links/out/s.txt' }],
	['write_file', { path: 'links/out/w.txt', content: 'x' }],
	['list_directory', { path: 'links/out' }],
];

// Where the two differ on purpose (README, "Use from any MCP client"):
// - error texts: ours name the operation, the path and the cause
//   ("read PATH: no such file or directory"), the reference's are Node's;
//   only isError is compared for errors;
// - get_file_info's "created": ours is the change time (no birth time
//   from stat); dates are compared as their shape only;
// - the rest (write_file making parents, edit_file refusing an oldText
//   found twice, CRLF kept) is left out here: the trees would differ.
const norm = (s, dir) => s.split(dir).join('ROOT').replace(/\w{3} \w{3} \d\d \d{4} \d\d:\d\d:\d\d GMT[^)]*\)/g, 'DATE');

async function diffMode(wickfs, dirA, refJs, dirB) {
	const a = await connect(wickfs, ['mcp', dirA]);
	const b = await connect(process.execPath, [refJs, dirB]);
	for (let i = 0; i < calls.length; i++) {
		const [name, args] = calls[i];
		const name_i = `diff.${String(i).padStart(2, '0')}.${name}`;
		let ra, rb;
		try {
			ra = await a.callTool({ name, arguments: args });
			rb = await b.callTool({ name, arguments: args });
		} catch (e) {
			fail(name_i, `call failed: ${e.message}`);
			continue;
		}
		if (!!ra.isError !== !!rb.isError) {
			fail(name_i, `isError ${!!ra.isError} vs reference ${!!rb.isError}: ${text(ra)} | ${text(rb)}`);
			continue;
		}
		if (ra.isError) {
			ok(name_i);
			continue;
		}
		const ta = norm(JSON.stringify(ra.content), dirA), tb = norm(JSON.stringify(rb.content), dirB);
		if (ta === tb)
			ok(name_i);
		else
			fail(name_i, `ours ${ta} | reference ${tb}`);
	}
	await a.close();
	await b.close();
}

try {
	const [mode, ...rest] = process.argv.slice(2);
	if (mode === 'sdk')
		await sdkMode(...rest);
	else
		await diffMode(...rest);
} catch (e) {
	fail('sdk.run', e.stack || e);
}
process.exit(failed ? 1 : 0);
