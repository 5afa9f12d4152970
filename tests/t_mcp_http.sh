#!/usr/bin/env bash
# wickfs mcp --listen: the Streamable HTTP transport with raw HTTP (curl,
# else python3's http.client): initialize and its session id, tools/list,
# tools/call, notifications (202), DELETE, an unknown session (404), no
# token (401), a foreign Origin (403), an oversized body (413), malformed
# JSON (400), PUT (405), the GET stream (roots/list, per-session roots), a chunked body, keep-alive, two clients at once,
# progress as an event stream; then the official TypeScript SDK client's
# StreamableHTTPClientTransport listing and calling tools (skipped without
# Node or the SDK, as in t_mcp_sdk.sh). The server listens on 127.0.0.1
# port 0 and says its port on stderr; it is stopped by its PID.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
w=$TEST_TMP/http
d=$w/d
mkdir -p "$d/sub"
printf 'hello\nworld\n' >"$d/a.txt"
printf 'fine\n' >"$d/sub/c.md"
printf 's3cret-token\n' >"$w/token"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; chmod -R u+rwx "$TEST_TMP" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT

# start NAME ARGS...: a server in the background; its URL in $url, or ""
start() {
	local log=$w/$1.log i
	shift
	"$WICKFS" mcp --listen 127.0.0.1:0 "$@" 2>"$log" &
	pids+=($!)
	pid=$!
	url=
	for i in $(seq 100); do
		url=$(sed -n 's|.*listening on \(http://[^ ]*\)$|\1|p' "$log")
		[ -n "$url" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	fail "mcp_http.start" "no address said: $(cat "$log")"
	return 1
}

# http METHOD URL BODY [HEADER...]: the status in $status, the session id
# answered in $sid_got, the content type in $ctype, the body in $body.
if command -v curl >/dev/null; then
	client=curl
else
	client=python3
fi
http() {
	local m=$1 u=$2 data=$3 h args=()
	shift 3
	printf '%s' "$data" >"$w/body.in"
	if [ $client = curl ]; then
		for h in "$@"; do args+=(-H "$h"); done
		[ "$m" = POST ] && args+=(--data-binary "@$w/body.in")
		curl -s -S -o "$w/body.out" -D "$w/head.out" -X "$m" "${args[@]}" "$u" 2>"$w/curl.err"
	else
		python3 - "$m" "$u" "$w/body.in" "$w/head.out" "$w/body.out" "$@" <<'EOF'
import http.client, sys, urllib.parse
m, u, bin_, hout, bout = sys.argv[1:6]
p = urllib.parse.urlsplit(u)
c = http.client.HTTPConnection(p.hostname, p.port, timeout=30)
hs = dict(h.split(': ', 1) for h in sys.argv[6:])
body = open(bin_, 'rb').read() if m == 'POST' else None
try:
    c.request(m, p.path, body=body, headers=hs)
    r = c.getresponse()
    data = r.read()
except Exception as e:
    open(hout, 'w').write('HTTP/1.1 000 %s\r\n' % e); data = b''
else:
    open(hout, 'w').write('HTTP/1.1 %d x\r\n' % r.status + ''.join('%s: %s\r\n' % kv for kv in r.getheaders()))
open(bout, 'wb').write(data)
EOF
	fi
	status=$(sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$w/head.out" | tr -d '\r')
	# the last status line: curl shows 100 Continue before the answer
	status=$(grep -a '^HTTP/' "$w/head.out" | tail -1 | cut -d' ' -f2)
	sid_got=$(tr -d '\r' <"$w/head.out" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
	ctype=$(tr -d '\r' <"$w/head.out" | sed -n 's/^[Cc]ontent-[Tt]ype: //p')
	body=$(cat "$w/body.out")
}
# a field of a JSON answer (or of an event stream's last message)
field() {
	python3 -c '
import json, sys
t = sys.stdin.read()
if t.startswith("event:") or t.startswith("data:"):
    t = [l[5:] for l in t.splitlines() if l.startswith("data:")][-1]
v = json.loads(t)
for k in sys.argv[1].split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k)
print(json.dumps(v) if not isinstance(v, str) else v)' "$1" <<<"$body" 2>/dev/null
}

JSON='Content-Type: application/json'
ACC='Accept: application/json, text/event-stream'
TOK='Authorization: Bearer s3cret-token'
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'

start main --token-file "$w/token" --max-body 100000 "$d" || exit 0
U=$url

http POST "$U" "$INIT" "$JSON" "$ACC" "$TOK"
check mcp_http.initialize.status 200 "$status"
check mcp_http.initialize.version 2025-06-18 "$(field result.protocolVersion)"
check_match mcp_http.initialize.session_id '[0-9a-f]*' "$sid_got"
check_true mcp_http.initialize.session_id_long "got $(show "$sid_got")" test ${#sid_got} -ge 16
SID="Mcp-Session-Id: $sid_got"
VER='MCP-Protocol-Version: 2025-06-18'
sid=$sid_got

http POST "$U" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.notification.202 202 "$status"

http POST "$U" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.tools_list.status 200 "$status"
check_match mcp_http.tools_list.json 'application/json*' "$ctype"
check_match mcp_http.tools_list.has_read '*"name":"read_text_file"*' "$body"

http POST "$U" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.tools_call.status 200 "$status"
check mcp_http.tools_call.text $'hello\nworld' "$(field result.content.0.text)"

http POST "$U" '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"../x"}}}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.tools_call.escape true "$(field result.isError)"

# an event stream when the client takes only that
http POST "$U" '{"jsonrpc":"2.0","id":5,"method":"ping"}' "$JSON" 'Accept: text/event-stream' "$TOK" "$SID" "$VER"
check_match mcp_http.sse_only.type 'text/event-stream*' "$ctype"
check mcp_http.sse_only.answer 5 "$(field id)"

http POST "$U" '{"jsonrpc":"2.0","id":6,"method":"ping"}' "$JSON" "$ACC" "$TOK" 'Mcp-Session-Id: 0123456789abcdef' "$VER"
check mcp_http.unknown_session.404 404 "$status"
http POST "$U" '{"jsonrpc":"2.0","id":6,"method":"ping"}' "$JSON" "$ACC" "$TOK"
check mcp_http.no_session.400 400 "$status"
http POST "$U" '{"jsonrpc":"2.0","id":6,"method":"ping"}' "$JSON" "$ACC" "$TOK" "$SID" 'MCP-Protocol-Version: 1999-01-01'
check mcp_http.bad_version.400 400 "$status"

http POST "$U" '{"jsonrpc":"2.0","id":7,"method":"ping"}' "$JSON" "$ACC" "$SID" "$VER"
check mcp_http.no_token.401 401 "$status"
http POST "$U" '{"jsonrpc":"2.0","id":7,"method":"ping"}' "$JSON" "$ACC" 'Authorization: Bearer wrong' "$SID" "$VER"
check mcp_http.wrong_token.401 401 "$status"

http POST "$U" '{"jsonrpc":"2.0","id":8,"method":"ping"}' "$JSON" "$ACC" "$TOK" "$SID" "$VER" 'Origin: http://evil.example'
check mcp_http.foreign_origin.403 403 "$status"
http POST "$U" '{"jsonrpc":"2.0","id":8,"method":"ping"}' "$JSON" "$ACC" "$TOK" "$SID" "$VER" 'Origin: http://localhost:6274'
check mcp_http.local_origin.200 200 "$status"

big=$(head -c 150000 /dev/zero | tr '\0' ' ')
http POST "$U" "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}$big" "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.oversized.413 413 "$status"

# larger than the socket's buffers: the answer must not be lost to a reset
head -c 4000000 /dev/zero | tr '\0' ' ' >"$w/huge"
http POST "$U" "$(cat "$w/huge")" "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.oversized_large.413 413 "$status"

http POST "$U" '{"jsonrpc":"2.0","id":' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.malformed.400 400 "$status"
check mcp_http.malformed.code -32700 "$(field error.code)"
http POST "$U" '{"jsonrpc":"2.0","id":10,"method":"nope"}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.unknown_method -32601 "$(field error.code)"

http PUT "$U" '' "$TOK" "$SID"
check mcp_http.put.405 405 "$status"
http GET "$U" '' "$TOK" 'Accept: text/event-stream'
check mcp_http.get.no_session_400 400 "$status"
http GET "$U" '' "$TOK" "$SID" 'Accept: application/json'
check mcp_http.get.not_sse_406 406 "$status"
http GET "$U" '' "$TOK" 'Mcp-Session-Id: 0123456789abcdef' 'Accept: text/event-stream'
check mcp_http.get.unknown_session_404 404 "$status"

# the GET stream: a client with roots gets our roots/list there (asked
# before the stream opened, it waits for it), answers it by POST, and
# from then on its session alone has those directories; apply_patch's
# relative paths go under them; a second stream is refused (409);
# roots/list_changed asks again; DELETE ends the stream
mkdir -p "$w/r1" "$w/r2"
python3 - "$U" "$w" >"$w/get.out" <<'EOF2'
import json, socket, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1]); w = sys.argv[2]
H = 'Host: x\r\nAuthorization: Bearer s3cret-token\r\nAccept: application/json, text/event-stream\r\n'
def conn():
    return socket.create_connection((u.hostname, u.port), timeout=20)
def head(f):
    status = int(f.readline().split()[1]); hs = {}
    while True:
        l = f.readline().strip().decode()
        if not l: break
        k, v = l.split(':', 1); hs[k.lower()] = v.strip()
    return status, hs
def req(method, body=None, sid=None):
    s = conn(); f = s.makefile('rb')
    h = '%s /mcp HTTP/1.1\r\n' % method + H
    if sid: h += 'Mcp-Session-Id: %s\r\n' % sid
    b = json.dumps(body).encode() if body is not None else b''
    s.sendall((h + 'Content-Type: application/json\r\nContent-Length: %d\r\n\r\n' % len(b)).encode() + b)
    st, hs = head(f)
    data = f.read(int(hs.get('content-length', 0)))
    s.close()
    return st, hs, json.loads(data) if data else None
def init(caps):
    st, hs, _ = req('POST', {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-11-25', 'capabilities': caps, 'clientInfo': {'name': 't', 'version': '1'}}})
    return hs['mcp-session-id']
def call(sid, name, args):
    return req('POST', {'jsonrpc': '2.0', 'id': 5, 'method': 'tools/call', 'params': {'name': name, 'arguments': args}}, sid)[2]['result']['content'][0]['text']
def event(f):
    data = None
    while True:
        l = f.readline()
        if not l: return 'EOF'
        l = l.decode().rstrip('\n')
        if l.startswith('data: '): data = json.loads(l[6:])
        if l == '' and data: return data
sid = init({'roots': {'listChanged': True}})
other = init({})
print('initialized', req('POST', {'jsonrpc': '2.0', 'method': 'notifications/initialized'}, sid)[0])
g = conn(); gf = g.makefile('rb')
g.sendall(('GET /mcp HTTP/1.1\r\n' + H.replace('application/json, ', '') + 'Mcp-Session-Id: %s\r\n\r\n' % sid).encode())
st, hs = head(gf)
print('stream', st, hs.get('content-type'))
ask = event(gf)
print('asked', ask.get('method'), ask.get('id'))
print('second', req('GET', None, sid)[0])
print('answered', req('POST', {'jsonrpc': '2.0', 'id': ask['id'], 'result': {'roots': [{'uri': 'file://' + w + '/r1'}]}}, sid)[0])
print('dirs', call(sid, 'list_allowed_directories', {}).split('\n')[1:])
print('other', call(other, 'list_allowed_directories', {}).split('\n')[1:])
call(sid, 'apply_patch', {'patch': '*** Begin Patch\n*** Add File: p.txt\n+patched\n*** End Patch'})
print('changed', req('POST', {'jsonrpc': '2.0', 'method': 'notifications/roots/list_changed'}, sid)[0])
ask = event(gf)
print('asked_again', ask.get('method'), ask.get('id'))
req('POST', {'jsonrpc': '2.0', 'id': ask['id'], 'result': {'roots': [{'uri': 'file://' + w + '/r2'}]}}, sid)
print('dirs2', call(sid, 'list_allowed_directories', {}).split('\n')[1:])
print('deleted', req('DELETE', None, sid)[0], event(gf))
EOF2
check mcp_http.get.initialized 'initialized 202' "$(sed -n 1p "$w/get.out")"
check mcp_http.get.stream 'stream 200 text/event-stream' "$(sed -n 2p "$w/get.out")"
check mcp_http.get.roots_list 'asked roots/list wickfs-roots-1' "$(sed -n 3p "$w/get.out")"
check mcp_http.get.second_409 'second 409' "$(sed -n 4p "$w/get.out")"
check mcp_http.get.answer_202 'answered 202' "$(sed -n 5p "$w/get.out")"
check mcp_http.get.session_roots "dirs ['$w/r1']" "$(sed -n 6p "$w/get.out")"
check mcp_http.get.others_keep "other ['$d']" "$(sed -n 7p "$w/get.out")"
check mcp_http.get.patch_under_root "patched" "$(cat "$w/r1/p.txt" 2>&1)"
check_true mcp_http.get.patch_not_elsewhere "p.txt left in the server's directory" test ! -e "$d/p.txt"
check mcp_http.get.list_changed 'changed 202' "$(sed -n 8p "$w/get.out")"
check mcp_http.get.asked_again 'asked_again roots/list wickfs-roots-2' "$(sed -n 9p "$w/get.out")"
check mcp_http.get.session_roots2 "dirs2 ['$w/r2']" "$(sed -n 10p "$w/get.out")"
check mcp_http.get.delete_ends_stream 'deleted 200 EOF' "$(sed -n 11p "$w/get.out")"
http POST "${U%/mcp}/other" '{}' "$JSON" "$TOK"
check mcp_http.other_path.404 404 "$status"

# raw sockets: a chunked body, two requests on one connection, a bad line
python3 - "$U" "$sid" >"$w/raw.out" <<'EOF'
import socket, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1]); sid = sys.argv[2]
def conn():
    s = socket.create_connection((u.hostname, u.port), timeout=20); return s
def read_answer(f):
    status = f.readline().split()[1].decode(); n = 0
    while True:
        l = f.readline().strip()
        if not l: break
        k, v = l.decode().split(':', 1)
        if k.lower() == 'content-length': n = int(v)
    return status, f.read(n).decode()
hd = 'Host: x\r\nAuthorization: Bearer s3cret-token\r\nContent-Type: application/json\r\nMcp-Session-Id: %s\r\n' % sid
s = conn(); f = s.makefile('rb')
b = b'{"jsonrpc":"2.0","id":21,"method":"ping"}'
s.sendall(('POST /mcp HTTP/1.1\r\n' + hd + 'Transfer-Encoding: chunked\r\n\r\n').encode()
          + b'%x\r\n' % 10 + b[:10] + b'\r\n' + b'%x;ext=1\r\n' % (len(b) - 10) + b[10:] + b'\r\n0\r\n\r\n')
st, body = read_answer(f); print('chunked', st, '"id":21' in body)
b = b'{"jsonrpc":"2.0","id":22,"method":"ping"}'
s.sendall(('POST /mcp HTTP/1.1\r\n' + hd + 'Content-Length: %d\r\n\r\n' % len(b)).encode() + b)
st, body = read_answer(f); print('keepalive', st, '"id":22' in body)
s.close()
s = conn(); f = s.makefile('rb')
s.sendall(b'POST /mcp HTTP/1.1\r\n' + hd.encode() + b'Transfer-Encoding: chunked\r\n\r\nzz\r\n')
st, body = read_answer(f); print('badchunk', st)
s = conn(); f = s.makefile('rb')
s.sendall(b'POST /mcp HTTP/1.1\r\n' + hd.encode() + b'Transfer-Encoding: gzip\r\n\r\n')
st, body = read_answer(f); print('gzip', st)
s = conn(); f = s.makefile('rb')
s.sendall(b'POST /mcp HTTP/1.1\r\n' + hd.encode() + b'\r\n')
st, body = read_answer(f); print('nolength', st)
s = conn(); f = s.makefile('rb')
s.sendall(b'POST /mcp HTTP/1.1\r\n' + hd.encode() + b'X: ' + b'a' * 20000 + b'\r\n\r\n')
st, body = read_answer(f); print('bighead', st)
EOF
check mcp_http.chunked 'chunked 200 True' "$(sed -n 1p "$w/raw.out")"
check mcp_http.keep_alive 'keepalive 200 True' "$(sed -n 2p "$w/raw.out")"
check mcp_http.bad_chunk.400 'badchunk 400' "$(sed -n 3p "$w/raw.out")"
check mcp_http.other_encoding.501 'gzip 501' "$(sed -n 4p "$w/raw.out")"
check mcp_http.no_length.411 'nolength 411' "$(sed -n 5p "$w/raw.out")"
check mcp_http.big_head.431 'bighead 431' "$(sed -n 6p "$w/raw.out")"

# two clients at once: a ping answers while a command sleeps on another
# connection; that command's progress comes as an event stream
call_sleep='{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 2; echo slept"},"_meta":{"progressToken":"p1"}}}'
if [ $client = curl ]; then
	curl -s -o "$w/slow.out" -D "$w/slow.head" -X POST -H "$JSON" -H "$ACC" -H "$TOK" -H "$SID" -H "$VER" \
		--data-binary "$call_sleep" "$U" &
	slow=$!
	sleep 0.5
	t0=$(date +%s%N)
	http POST "$U" '{"jsonrpc":"2.0","id":31,"method":"ping"}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
	t1=$(date +%s%N)
	check mcp_http.concurrent.ping 31 "$(field id)"
	check_true mcp_http.concurrent.not_queued "ping took $(((t1 - t0) / 1000000)) ms" test $(((t1 - t0) / 1000000)) -lt 1200
	wait $slow
	check_match mcp_http.progress.sse 'text/event-stream*' "$(tr -d '\r' <"$w/slow.head" | sed -n 's/^[Cc]ontent-[Tt]ype: //p')"
	check_match mcp_http.progress.event '*"method":"notifications/progress"*"progressToken":"p1"*' "$(cat "$w/slow.out")"
	body=$(cat "$w/slow.out")
	check_match mcp_http.progress.answer '*slept*' "$(field result.content.0.text)"
	# a client that leaves mid-call: its command is stopped, tree and all
	curl -s -o /dev/null --max-time 1 -X POST -H "$JSON" -H "$ACC" -H "$TOK" -H "$SID" -H "$VER" \
		--data-binary '{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 2; echo x >left.txt"}}}' "$U"
	sleep 2.5
	check_true mcp_http.client_left.cancelled "the command ran on" test ! -e "$d/left.txt"
	# notifications/cancelled on another connection stops the tool; its
	# POST gets no answer
	curl -s -o "$w/cancelled.out" -X POST -H "$JSON" -H "$ACC" -H "$TOK" -H "$SID" -H "$VER" \
		--data-binary '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 2; echo x >cancelled.txt"}}}' "$U" &
	slow=$!
	sleep 0.5
	http POST "$U" '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
	check mcp_http.cancel.202 202 "$status"
	wait $slow
	check mcp_http.cancel.no_answer '' "$(cat "$w/cancelled.out" 2>/dev/null)"
	sleep 2
	check_true mcp_http.cancel.stopped "the command ran on" test ! -e "$d/cancelled.txt"
else
	skip mcp_http.concurrent "needs curl"
fi

# sessions never deleted: past 1,024 the least recently used one ends
python3 - "$U" "$sid" >"$w/evict.out" <<'EOF2'
import socket, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1]); keep = sys.argv[2]
s = socket.create_connection((u.hostname, u.port), timeout=60); f = s.makefile('rb')
def post(body, sid=None):
    h = 'POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cret-token\r\nContent-Type: application/json\r\n'
    if sid: h += 'Mcp-Session-Id: %s\r\n' % sid
    s.sendall((h + 'Content-Length: %d\r\n\r\n' % len(body)).encode() + body)
    status = f.readline().split()[1].decode(); n = 0; got = None
    while True:
        l = f.readline().strip().decode()
        if not l: break
        k, v = l.split(':', 1)
        if k.lower() == 'content-length': n = int(v)
        if k.lower() == 'mcp-session-id': got = v.strip()
    f.read(n)
    return status, got
init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
ping = b'{"jsonrpc":"2.0","id":2,"method":"ping"}'
first = post(init)[1]
ids = [post(init)[1] for i in range(1022)]
post(ping, keep)  # the test's own session: used lately, so kept
last = post(init)[1]
print(post(ping, first)[0], post(ping, last)[0], post(ping, keep)[0], len(set(ids)))
EOF2
check mcp_http.sessions.evict_oldest '404 200 200 1022' "$(cat "$w/evict.out")"

http DELETE "$U" '' "$TOK" "$SID"
check mcp_http.delete.200 200 "$status"
http POST "$U" '{"jsonrpc":"2.0","id":40,"method":"ping"}' "$JSON" "$ACC" "$TOK" "$SID" "$VER"
check mcp_http.after_delete.404 404 "$status"
http DELETE "$U" '' "$TOK" "$SID"
check mcp_http.delete_again.404 404 "$status"
check_true mcp_http.still_running "the server exited" kill -0 "$pid"

# --allow-origin adds an Origin; others stay refused; no token asked
if start origins --allow-origin http://app.example:8080 "$d"; then
	http POST "$url" "$INIT" "$JSON" "$ACC" 'Origin: http://app.example:8080'
	check mcp_http.allow_origin.200 200 "$status"
	http POST "$url" "$INIT" "$JSON" "$ACC" 'Origin: http://app.example:8081'
	check mcp_http.allow_origin.other_403 403 "$status"
	http POST "$url" "$INIT" "$JSON" "$ACC" 'Origin: http://[::1]:1'
	check mcp_http.allow_origin.local_200 200 "$status"
	kill "$pid"
fi

# the daemon's --mcp-listen: the same transport beside the NDJSON socket,
# on the daemon's root, with the daemon's token
printf 'from both sides\n' >"$d/both.txt"
"$WICKFS" daemon --root "$d" --listen off --socket "$w/dm.sock" --token-file "$w/token" \
	--mcp-listen 127.0.0.1:0 2>"$w/dm.log" &
pids+=($!)
dpid=$!
url=
for _ in $(seq 100); do
	url=$(sed -n 's|.*listening on \(http://[^ ]*\)$|\1|p' "$w/dm.log")
	[ -n "$url" ] && grep -q ready: "$w/dm.log" && break
	sleep 0.1
done
if [ -n "$url" ]; then
	http POST "$url" "$INIT" "$JSON" "$ACC"
	check mcp_http.daemon.no_token_401 401 "$status"
	http POST "$url" "$INIT" "$JSON" "$ACC" "$TOK"
	check mcp_http.daemon.initialize 200 "$status"
	dsid="Mcp-Session-Id: $sid_got"
	http POST "$url" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"both.txt"}}}' \
		"$JSON" "$ACC" "$TOK" "$dsid" "$VER"
	check mcp_http.daemon.read "from both sides" "$(field result.content.0.text)"
	check mcp_http.daemon.ndjson_too '{"ok":true,"data":"from both sides\n"}' \
		"$(with_timeout 30 "$WICKFS" client --connect "unix:$w/dm.sock" --token s3cret-token read both.txt)"
	kill "$dpid"
else
	fail mcp_http.daemon.start "no address said: $(cat "$w/dm.log")"
fi
"$WICKFS" daemon --listen off --socket off --mcp-listen 127.0.0.1:99999 2>"$w/dbad.err"
check mcp_http.daemon.bad_address_exit 1 "$?"
check_match mcp_http.daemon.bad_address "wickfs daemon: --mcp-listen: *99999*" "$(cat "$w/dbad.err")"

# without a directory: only clients with roots are served
if WICKFS_ROOT= start nodir; then
	http POST "$url" "$INIT" "$JSON" "$ACC"
	check mcp_http.no_dir.no_roots_refused -32602 "$(field error.code)"
	http POST "$url" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}' "$JSON" "$ACC"
	check mcp_http.no_dir.roots_served 200 "$status"
	http POST "$url" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}' \
		"$JSON" "$ACC" "Mcp-Session-Id: $sid_got" "$VER"
	check_match mcp_http.no_dir.before_roots '*no allowed directories*' "$(field result.content.0.text)"
	kill "$pid"
fi

# background processes over HTTP: the same daemon of the server's own,
# which ends with the server however it ends (here: SIGTERM); no
# subscriptions over HTTP
if start procs "$d"; then
	http POST "$url" "$INIT" "$JSON" "$ACC"
	PS="Mcp-Session-Id: $sid_got"
	http POST "$url" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_process","arguments":{"command":"echo viahttp; exec sleep 300","tag":"h"}}}' \
		"$JSON" "$ACC" "$PS" "$VER"
	check mcp_http.proc.start "h true" "$(field result.structuredContent.tag) $(field result.structuredContent.running)"
	ppid_=$(field result.structuredContent.pid)
	for i in $(seq 100); do
		http POST "$url" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"process_output","arguments":{"tag":"h"}}}' \
			"$JSON" "$ACC" "$PS" "$VER"
		[ "$(field result.structuredContent.stdout)" = viahttp ] && break
		sleep 0.1
	done
	check mcp_http.proc.output "viahttp" "$(field result.structuredContent.stdout)"
	http POST "$url" '{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"file:///x"}}' \
		"$JSON" "$ACC" "$PS" "$VER"
	check mcp_http.proc.no_subscribe -32601 "$(field error.code)"
	kill "$pid"
	for i in $(seq 100); do
		kill -0 "$ppid_" 2>/dev/null || break
		sleep 0.1
	done
	check_true mcp_http.proc.ends_with_server "process $ppid_ outlived the server" sh -c "! kill -0 '$ppid_' 2>/dev/null"
	pdir=$(sed -n 's|.*listening on unix \(/tmp/wickfs-mcp\.[^/]*\)/sock.*|\1|p' "$w/procs.log")
	check_true mcp_http.proc.dir_removed "the daemon's directory '$pdir' is left after SIGTERM" sh -c "[ -n '$pdir' ] && [ ! -e '$pdir' ]"
fi

# the official SDK client over Streamable HTTP
npm_dir=$top/build/npm
sdk=$npm_dir/node_modules/@modelcontextprotocol/sdk/dist/esm
if ! mcp_npm_install; then
	skip mcp_http.sdk "$MCP_NPM_ERR"
	exit 0
fi
cat >"$w/sdk.mjs" <<'EOF'
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const [sdk, url, token, rootdir] = process.argv.slice(2);
const { Client } = await import(pathToFileURL(join(sdk, 'client/index.js')));
const { StreamableHTTPClientTransport } = await import(pathToFileURL(join(sdk, 'client/streamableHttp.js')));
const check = (name, want, got) => console.log(want === got ? `ok ${name}` : `FAIL ${name}: expected ${JSON.stringify(want)} got ${JSON.stringify(got)}`);
try {
	const c = new Client({ name: 'wickfs-test', version: '1.0.0' });
	const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
	await c.connect(t);
	check('mcp_http.sdk.server_name', 'wickfs', c.getServerVersion().name);
	check('mcp_http.sdk.session', true, typeof t.sessionId === 'string' && t.sessionId.length > 0);
	const tools = (await c.listTools()).tools.map((x) => x.name);
	check('mcp_http.sdk.list', true, tools.includes('read_text_file') && tools.includes('grep'));
	let r = await c.callTool({ name: 'read_text_file', arguments: { path: 'a.txt' } });
	check('mcp_http.sdk.read_text_file', 'hello\nworld\n', r.content[0].text);
	r = await c.callTool({ name: 'grep', arguments: { pattern: 'fine' } });
	check('mcp_http.sdk.grep', 1, r.structuredContent.matches.length);
	r = await c.callTool({ name: 'read_text_file', arguments: { path: '/etc/passwd' } });
	check('mcp_http.sdk.escape', true, !!r.isError);
	await t.terminateSession();
	check('mcp_http.sdk.terminated', undefined, t.sessionId);
	await c.close();
	const bad = new Client({ name: 'wickfs-test', version: '1.0.0' });
	let refused = false;
	try {
		await bad.connect(new StreamableHTTPClientTransport(new URL(url)));
	} catch (e) {
		refused = true;
	}
	check('mcp_http.sdk.no_token_refused', true, refused);
	// a client with roots: the SDK opens the GET stream by itself, answers
	// our roots/list there, and its session gets its root
	const { ListRootsRequestSchema } = await import(pathToFileURL(join(sdk, 'types.js')));
	const rc = new Client({ name: 'wickfs-test', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
	rc.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(rootdir).href, name: 'r' }] }));
	const rt = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
	await rc.connect(rt);
	let dirs = '';
	for (let i = 0; i < 100 && !dirs.includes(rootdir); i++) { // until its answer has come
		dirs = (await rc.callTool({ name: 'list_allowed_directories', arguments: {} })).content[0].text;
		if (!dirs.includes(rootdir)) await new Promise((ok) => setTimeout(ok, 50));
	}
	check('mcp_http.sdk.roots', `Allowed directories:\n${rootdir}`, dirs);
	await rt.terminateSession();
	await rc.close();
} catch (e) {
	console.log(`FAIL mcp_http.sdk: ${String(e.stack || e).replace(/\n/g, '\\n').slice(0, 600)}`);
}
EOF
mkdir -p "$w/sdkroot"
timeout 60 node "$w/sdk.mjs" "$sdk" "$U" s3cret-token "$w/sdkroot"
exit 0
