#!/usr/bin/env bash
# check: goss's validate. Verdicts of every resource and matcher on a
# fixture root (files with known modes and hashes; /etc, /proc and the
# package databases faked under a sysroot), a real listener and process
# for port and process, every output format's shape, exit codes 0/1/78,
# and bad gossfiles naming their line.
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP
f=$t/files
s=$t/sys
mkdir -p "$f/dir" "$s/etc" "$s/var/lib/dpkg" "$s/proc/net" "$s/proc/sys/net/core" \
	"$s/proc/self" "$s/proc/4242" "$t/apk/lib/apk/db" "$t/rpm/var/lib/rpm" "$t/inc"
printf 'hello world\nfoo bar\n' >"$f/data.txt"
chmod 0640 "$f/data.txt"
ln -s data.txt "$f/link"
me=$(id -u)
mygid=$(id -g)
owner=tester group=testers
if [ "$me" = 0 ]; then
	# root: give the file to alice and wheel, so that names are not root's
	chown -h 1001:10 "$f/data.txt"
	me=1001 mygid=10 owner=alice group=wheel
fi
cat >"$s/etc/passwd" <<EOF
root:x:0:0:root:/root:/bin/sh
tester:x:$(id -u):$(id -g):the tester:/home/tester:/bin/bash
alice:x:1001:1001::/home/alice:/bin/sh
EOF
cat >"$s/etc/group" <<EOF
root:x:0:
testers:x:$(id -g):
alice:x:1001:
wheel:x:10:root,alice
EOF
cat >"$s/var/lib/dpkg/status" <<'EOF'
Package: hello
Status: install ok installed
Version: 2.10-3

Package: gone
Status: deinstall ok config-files
Version: 1.0
EOF
printf 'P:musl\nV:1.2.4-r2\n\nP:busybox\nV:1.36.1-r5\n' >"$t/apk/lib/apk/db/installed"
cat >"$s/proc/net/tcp" <<'EOF'
  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1
   1: 0100007F:0050 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 2 1
EOF
printf '4096\n' >"$s/proc/sys/net/core/somaxconn"
printf '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n23 22 0:5 / /my\\040data ro,nosuid - tmpfs tmpfs rw,size=1024k\n' \
	>"$s/proc/self/mountinfo"
printf 'fakeproc\n' >"$s/proc/4242/comm"

md5=$(md5sum <"$f/data.txt" | cut -d' ' -f1)
sha256=$(sha256sum <"$f/data.txt" | cut -d' ' -f1)
sha512=$(sha512sum <"$f/data.txt" | cut -d' ' -f1)

# wf_check NAME ARGS...: run check on $t/g.yaml (written by the caller).
gossfile() { cat >"$t/g.yaml"; }

# contains NAME NEEDLE HAYSTACK: a fixed substring.
contains() {
	if [[ $3 == *"$2"* ]]; then pass "$1"; else fail "$1" "no $(show "$2") in $(show "$3")"; fi
}

# Every TAP line must start with WANT ("ok" or "not ok"): one check each.
tap_all() {
	local name=$1 want=$2 line n=0
	while IFS= read -r line; do
		case $line in
		"1.."* | "") continue ;;
		"$want "[0-9]*) pass "$name: ${line#* - }" ;;
		*) fail "$name" "$(show "$line")" ;;
		esac
		n=$((n + 1))
	done <<<"$OUT"
	[ "$n" -gt 0 ] || fail "$name" "no tests ran: $(show "$ERR")"
}

# ---- every resource and matcher: what passes ----
gossfile <<EOF
file:
  $f/data.txt:
    exists: true
    mode: "0640"
    size: 20
    owner: $owner
    uid: $me
    group: $group
    gid: $mygid
    filetype: file
    contents:
      - hello
      - "!absent"
      - /fo+ bar/
      - "!/^x/"
    md5: $md5
    sha256: $sha256
    sha512: $sha512
  $f/link:
    exists: true
    filetype: symlink
    linked-to: data.txt
  $f/dir:
    filetype: directory
  $f/none:
    exists: false
  ~alice/x:
    exists: false
command:
  echo hello:
    exit-status: 0
    stdout: "hello\n"
    stderr: ""
  lines:
    exec: "printf 'a\\nb\\n'; echo oops >&2; exit 3"
    exit-status: 3
    stdout: [a, "/^b$/", "!c"]
    stderr: [oops]
  argv:
    exec: [echo, "it's; \$HOME"]
    exit-status: 0
    stdout: {have-prefix: "it's; \$HOME"}
  skipped:
    exit-status: 0
    skip: true
user:
  alice:
    exists: true
    uid: 1001
    gid: 1001
    groups: [alice, wheel]
    home: /home/alice
    shell: /bin/sh
  nobody-here:
    exists: false
group:
  wheel:
    exists: true
    gid: 10
  nogroup-here:
    exists: false
port:
  tcp:8080:
    listening: true
    ip: [127.0.0.1]
  tcp:80:
    listening: false
  udp:53:
    listening: false
process:
  fakeproc:
    running: true
  not-a-process:
    running: false
package:
  hello:
    installed: true
    versions: [2.10-3]
  gone:
    installed: false
kernel-param:
  net.core.somaxconn:
    value: "4096"
  numeric:
    name: net.core.somaxconn
    value: {gt: 1000}
mount:
  /:
    exists: true
    opts: [rw, relatime]
    vfs-opts: {contain-element: {have-prefix: errors=}}
    source: /dev/sda1
    filesystem: ext4
  /my data:
    exists: true
    filesystem: tmpfs
  /not/mounted:
    exists: false
service:
  sshd:
    running: true
matching:
  equality:
    content: foo
    matches: foo
  number-string:
    content: "42"
    matches: 42
  string-number:
    content: 42
    matches: "42"
  string-matchers:
    content: 42
    matches:
      and:
        - have-prefix: "4"
        - have-suffix: "2"
        - match-regexp: '^\d{2}$'
        - contain-substring: "2"
  numeric:
    content: "42"
    matches: {and: [{gt: 40}, {ge: 42}, {lt: 45}, {le: 42}]}
  arrays:
    content: [foo, bar, moo]
    matches:
      and:
        - contain-elements: [foo, bar]
        - [foo, bar]
        - equal: [foo, bar, moo]
        - consist-of: [foo, have-prefix: m, bar]
        - contain-element: {have-prefix: b}
        - have-len: 3
  maps:
    content: {foo: bar, baz: bing}
    matches: {and: [{have-key: baz}, {not: {have-key: nope}}, {have-len: 2}]}
  or:
    content: x
    matches: {or: [y, x]}
  split-lines:
    content: "a\nb"
    matches: {contain-element: b}
EOF
wf check --sysroot "$s" -f tap -g "$t/g.yaml"
check check.pass.exit 0 "$RC"
tap_all check.pass ok
contains check.pass.skip_has_reason "# SKIP Service: sshd: running: skipped (no init system)" "$OUT"
contains check.pass.skip_attr "# SKIP Command: skipped: exit-status: skipped" "$OUT"

# ---- the same resources: what fails ----
gossfile <<EOF
file:
  $f/data.txt:
    exists: false
    mode: "0644"
    size: 21
    owner: nobody
    uid: 4
    filetype: directory
    contents: [absent, "!hello", "/^z/"]
    md5: 0
    sha256: x
    sha512: x
  $f/link:
    linked-to: elsewhere
  $f/none:
    exists: true
    mode: "0644"
command:
  exit 2:
    exit-status: 0
  echo hello:
    stdout: [nothere]
  timeout:
    exec: sleep 5
    timeout: 100
    exit-status: 0
user:
  alice:
    uid: 1
    groups: [root]
  nobody-here:
    exists: true
group:
  wheel:
    gid: 11
port:
  tcp:8080:
    listening: false
  tcp:80:
    listening: true
process:
  fakeproc:
    running: false
package:
  hello:
    versions: [9]
  gone:
    installed: true
kernel-param:
  net.core.somaxconn:
    value: {lt: 100}
mount:
  /:
    opts: [ro]
matching:
  equality:
    content: foo
    matches: bar
  number:
    content: abc
    matches: {gt: 1}
  arrays:
    content: [foo, bar]
    matches:
      or:
        - consist-of: [foo]
        - contain-element: baz
        - have-len: 3
        - equal: [bar, foo]
  not:
    content: x
    matches: {not: x}
  duplicates:
    content: [group1, group2, group3]
    matches: [group1, group2, group2]
EOF
wf check --sysroot "$s" -f tap -g "$t/g.yaml"
check check.fail.exit 1 "$RC"
tap_all check.fail "not ok"

# ---- apk and rpm databases ----
gossfile <<'EOF'
package:
  musl:
    installed: true
    versions: {contain-element: {have-prefix: "1.2"}}
  hello:
    installed: false
EOF
wf check --sysroot "$t/apk" -f tap -g "$t/g.yaml"
check check.apk.exit 0 "$RC"
tap_all check.apk ok
wf check --sysroot "$t/rpm" -f tap -g "$t/g.yaml"
check check.rpm.exit 0 "$RC"
contains check.rpm.skipped "# SKIP Package: musl: installed: skipped (rpm's database is not read)" "$OUT"

# ---- the real system: a listener and a process of ours ----
if command -v python3 >/dev/null; then
	python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$t/port" &
lpid=$!
for _ in $(seq 100); do [ -s "$t/port" ] && break; sleep 0.05; done
port=$(cat "$t/port")
sleep 30 &
spid=$!
gossfile <<EOF
port:
  tcp:$port:
    listening: true
    ip: [127.0.0.1]
process:
  sleep:
    running: true
EOF
	wf check -f tap -g "$t/g.yaml"
	check check.system.exit 0 "$RC"
	tap_all check.system ok
	kill "$lpid" "$spid" 2>/dev/null
	wait "$lpid" "$spid" 2>/dev/null
else
	skip check.system "no python3 for a listener"
fi
tests_dir=$(cd "$(dirname "$0")" && pwd)
if ! grep -q '^CONFIG_FEATURE_CHECK_NET=y' "${WICKFS_CONFIG:-$tests_dir/../.config}" 2>/dev/null; then
	skip check.network "built without CONFIG_FEATURE_CHECK_NET"
elif command -v python3 >/dev/null; then
	# addr, http (plain), dns (localhost), interface (lo)
	mkdir -p "$t/www"
	printf 'served body\n' >"$t/www/index.html"
	python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$t/www" >"$t/http.log" 2>&1 &
	hpid=$!
	for _ in $(seq 300); do grep -qs 'port [0-9]' "$t/http.log" && break; sleep 0.05; done
	hport=$(grep -o 'port [0-9]*' "$t/http.log" | grep -o '[0-9]*$')
	# lo as the kernel shows it (/sys/class/net): a root without /sys has none
	iface=lo lo_yaml='  lo:
    exists: true
    mtu: {gt: 0}
    addrs: {contain-element: 127.0.0.1/8}
'
	[ -e /sys/class/net/lo/mtu ] || iface= lo_yaml=
	if [ -z "$hport" ]; then
		skip check.network "python3's web server gave no port: $(show "$(cat "$t/http.log")")"
	else
	gossfile <<EOF
addr:
  tcp://127.0.0.1:$hport:
    reachable: true
    timeout: 2000
http:
  http://127.0.0.1:$hport/:
    status: 200
    headers: ["Content-Type: text/html"]
    body: [served body, "!nothing"]
  http://127.0.0.1:$hport/missing:
    status: 404
dns:
  localhost:
    resolvable: true
    addrs: {contain-element: {match-regexp: '^(127\.0\.0\.1|::1)$'}}
interface:
$lo_yaml  nosuch0:
    exists: false
EOF
	wf check -f tap -g "$t/g.yaml"
	check check.network.exit 0 "$RC"
	tap_all check.network ok
	[ -n "$iface" ] || skip check.network.interface_lo "no /sys/class/net here (a root without /sys)"
	kill "$hpid" 2>/dev/null
	wait "$hpid" 2>/dev/null
	gossfile <<EOF
addr:
  tcp://127.0.0.1:$hport:
    reachable: true
    timeout: 500
http:
  http://127.0.0.1:$hport/:
    status: 200
  https://127.0.0.1:$hport/:
    status: 200
EOF
	wf check -f tap -g "$t/g.yaml"
	check check.network_down.exit 1 "$RC"
	check_match check.network_down.tap $'1..3\nnot ok 1 - Addr*\nnot ok 2 - HTTP*Error: dial tcp 127.0.0.1*\nok 3 - \\# SKIP HTTP*TLS is not supported*' "$OUT"
	fi
else
	skip check.network "no python3 for a web server"
fi

# ---- output formats ----
gossfile <<EOF
file:
  $f/data.txt:
    exists: true
    mode: "0600"
    title: the data
    meta: {team: ops, n: 1}
service:
  sshd:
    running: true
EOF
wf check -g "$t/g.yaml"
check check.exit_fail 1 "$RC"
contains check.doc.pass "File: $f/data.txt: exists: matches expectation: [true]" "$OUT"
contains check.doc.fail "Failures/Skipped:

File: $f/data.txt: mode:
Expected
    \"0640\"
to equal
    \"0600\"" "$OUT"
check_match check.doc.summary $'*\n\nTotal Duration: [0-9]*.[0-9][0-9][0-9]s\nCount: 3, Failed: 1, Skipped: 1\n' "$OUT"
wf check -f rspecish -g "$t/g.yaml"
check_match check.rspecish $'.FS\n\nFailures/Skipped:*Count: 3, Failed: 1, Skipped: 1\n' "$OUT"
wf check -f silent -g "$t/g.yaml"
check check.silent "1:" "$RC:$OUT"
wf check -f json -g "$t/g.yaml"
check check.json.exit 1 "$RC"
printf '%s' "$OUT" >"$t/out.json"
if command -v python3 >/dev/null; then
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]; s = d["summary"]
keys = {"resource-id", "resource-type", "property", "successful", "skipped", "result",
        "err", "duration", "title", "meta", "expected", "found", "human", "summary-line"}
assert all(keys <= set(x) for x in r), r[0].keys()
assert r[0]["title"] == "the data" and r[0]["meta"] == {"team": "ops", "n": 1}, (r[0]["title"], r[0]["meta"])
assert r[2]["title"] == "" and r[2]["meta"] is None
print(len(r), s["test-count"], s["failed-count"], s["skipped-count"], s["total-duration"] >= 0,
      [(x["resource-type"], x["property"], x["successful"], x["skipped"], x["result"]) for x in r])
' "$t/out.json" 2>&1)
	check check.json.shape "3 3 1 1 True [('File', 'exists', True, False, 0), ('File', 'mode', False, False, 1), ('Service', 'running', True, True, 2)]" "$got"
	wf check -f junit -g "$t/g.yaml"
	printf '%s' "$OUT" >"$t/out.xml"
	got=$(python3 -c '
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot()
c = s.findall("testcase")
print(s.tag, s.get("tests"), s.get("failures"), s.get("skipped"), len(c),
      [(len(x.findall("failure")), len(x.findall("skipped"))) for x in c])
' "$t/out.xml" 2>&1)
	check check.junit.xml "testsuite 3 1 1 3 [(0, 0), (1, 0), (0, 1)]" "$got"
else
	skip check.json.shape "no python3"
	skip check.junit.xml "no python3"
fi
wf check -f tap -g "$t/g.yaml"
check_match check.tap.plan $'1..3\nok 1 - *\nnot ok 2 - *\nok 3 - \\# SKIP *' "$OUT"
if command -v prove >/dev/null; then
	printf '%s' "$OUT" >"$t/fail.tap"
	wf_in "$(printf 'package:\n  musl:\n    installed: true\n')" check -f tap --sysroot "$t/apk" -g -
	printf '%s' "$OUT" >"$t/pass.tap"
	prove -e cat "$t/pass.tap" >"$t/prove.out" 2>&1
	check_match check.tap.prove_pass "0 *" "$? $(cat "$t/pass.tap" "$t/prove.out")"
	prove -e cat "$t/fail.tap" >"$t/prove.out" 2>&1
	rc=$?
	check_match check.tap.prove_fail "1:*Failed 1/3 subtests*" "$rc:$(cat "$t/prove.out")"
else
	skip check.tap.prove "prove is not installed"
fi
wf check -f nonsense -g "$t/g.yaml"
check_match check.bad_format "78:*unknown format*" "$RC:$ERR"

# ---- JSON gossfiles, stdin, includes, templates, vars ----
printf '{"file": {"%s": {"exists": true}}}\n' "$f/data.txt" >"$t/inc/a.json"
printf 'file:\n  %s:\n    filetype: directory\n' "$f/dir" >"$t/inc/b.yaml"
printf 'gossfile:\n  inc/*.yaml: {}\n  other:\n    file: inc/a.json\n  skipped.yaml:\n    skip: true\n' >"$t/main.yaml"
wf check -f tap -g "$t/main.yaml"
check_match check.include "0:1..2*ok 1 - File: $f/dir: filetype*ok 2 - File: $f/data.txt: exists*" "$RC:$OUT"
wf_in "$(cat "$t/inc/a.json")" check -f tap -g -
check_match check.stdin_json "0:1..1*ok 1*" "$RC:$OUT"

if grep -q '^CONFIG_FEATURE_CHECK_TEMPLATE=y' "${WICKFS_CONFIG:-$tests_dir/../.config}" 2>/dev/null; then
templates=1
printf 'users: [alice, root]\nos: Debian\nn: 2\n' >"$t/vars.yaml"
gossfile <<'EOF'
user:
{{- range .Vars.users}}
  {{.}}:
    exists: true
{{- end}}
matching:
  env:
    content: {{.Env.CHECK_T}}
    matches: hi there
  lower:
    content: {{.Vars.os | toLower}}
    matches: debian
  upper:
    content: {{toUpper "x"}}
    matches: X
{{- if eq .Vars.os "Debian"}}
  if-yes:
    content: 1
    matches: 1
{{- else}}
  if-no:
    content: 1
    matches: 2
{{- end}}
{{- range $i, $p := mkSlice "a" "b"}}
  slice-{{$p}}:
    content: {{$i}}
    matches: {lt: {{$.Vars.n}}}
{{- end}}
EOF
CHECK_T="hi there" wf check --sysroot "$s" --vars "$t/vars.yaml" -f tap -g "$t/g.yaml"
check check.template.exit 0 "$RC"
check_match check.template.tests "1..8*User: alice*User: root*env*lower*upper*if-yes*slice-a*slice-b*" "$OUT"
else
	templates=0
	skip check.template "built without CONFIG_FEATURE_CHECK_TEMPLATE"
	printf 'a:\n  {{ .Env.HOME }}: 1\n' | gossfile
	wf check -g "$t/g.yaml"
	check_match check.template.off_says_so "78:*line 2: template: built without CONFIG_FEATURE_CHECK_TEMPLATE*" "$RC:$ERR"
fi

# ---- bad gossfiles: exit 78, the line named ----
bad() {
	local name=$1 needle=$2
	gossfile
	wf check -g "$t/g.yaml"
	check_match "check.bad.$name" "78:*$needle*" "$RC:$ERR"
}
printf 'file:\n\t/etc/passwd:\n    exists: true\n' | bad tab "line 2: tab in indentation"
printf 'file:\n  /x:\n    exists: true\nfiles:\n  /y: {}\n' | bad unknown_resource 'line 4: unknown resource type "files"'
printf 'file:\n  /x:\n    exists: true\n    colour: red\n' | bad unknown_attribute 'line 4: file /x: unknown attribute "colour"'
printf 'file:\n  /x:\n    mode: {have-prefx: "0"}\n' | bad matcher 'line 3: file /x: bad matcher "have-prefx"'
printf 'file:\n  /x:\n    mode: {gt: abc}\n' | bad matcher_arg 'line 3: file /x: bad matcher "gt"'
if [ "$templates" = 1 ]; then
	printf 'file:\n\n  {{ .Env.HOME | sha1sum }}:\n    exists: true\n' | bad template 'line 3: template: function "sha1sum" not supported'
	printf 'file:\n  {{ range .Vars.x }}\n' | bad template_end 'line 2: template: range without end'
fi
printf 'a: &anchor 1\nb: *anchor\n' | bad anchor 'line 1: anchors are not supported'
printf 'a: 1\n---\nb: 2\n' | bad documents 'line 2: more than one document'
printf 'a: [1, 2\n' | bad flow 'line 1: unterminated flow'
printf 'a:\n  b: 1\n c: 2\n' | bad indentation 'line 3: unexpected indentation'
printf 'file: [1]\n' | bad not_a_map 'line 1: file: expected a map of resources'
wf check -g "$t/does-not-exist.yaml"
check_match check.bad.missing_file "78:*does-not-exist.yaml*" "$RC:$ERR"
wf check -g "$t/g.yaml" --retry-timeout 5x
check_match check.bad.duration "78:*5x: not a duration*" "$RC:$ERR"

# ---- retry: a file that appears while check waits ----
gossfile <<EOF
file:
  $t/late:
    exists: true
EOF
(sleep 0.3 && : >"$t/late") &
wf check -g "$t/g.yaml" -r 20s -s 100ms -f silent
wait
check check.retry_until_pass 0 "$RC"
rm -f "$t/late"
wf check -g "$t/g.yaml" -r 200ms -s 50ms -f silent
check check.retry_gives_up 1 "$RC"
contains check.retry_says_so "Retrying in 0.050s (elapsed/timeout time: " "$ERR"

# ---- durations as goss writes them ----
gossfile <<'EOF'
matching:
  a:
    content: 1
    matches: 1
EOF
wf check -g "$t/g.yaml" -r 1m30s -s 1.5s -f silent
check check.duration_forms 0 "$RC"

# ---- the daemon's check op: our binary as a command, answered as exec ----
mkdir -p "$t/dws"
printf 'ready\n' >"$t/dws/flag"
cat >"$t/dws/ok.yaml" <<'EOF2'
file:
  flag:
    exists: true
    contents: [ready]
EOF2
cat >"$t/dws/bad.yaml" <<'EOF2'
file:
  missing-file:
    exists: true
EOF2
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null' EXIT
cd "$t/dws" || exit 1
if daemon_start "$t/d.log" --listen off --socket "$t/d.sock"; then
	dq() { with_timeout 60 "$WICKFS" client --connect "unix:$t/d.sock" --raw "$1"; }
	check check.daemon_op_pass '{"id":"1","ok":true,"data":{"stdout":"1..2\nok 1 - File: flag: exists: matches expectation: [true]\nok 2 - File: flag: contents: matches expectation: [\"ready\"]\n","stderr":"","exit_code":0}}' \
		"$(dq '{"id":"1","op":"check","args":["-g","ok.yaml","--format","tap"]}')"
	check_match check.daemon_op_fail '{"id":"2","ok":true,"data":{"stdout":"1..1\\nnot ok 1 - File: missing-file: exists:*,"exit_code":1}}' \
		"$(dq '{"id":"2","op":"check","args":["-g","bad.yaml","--format","tap"]}')"
	check_match check.daemon_op_unloadable '{"id":"3","ok":true,"data":{"stdout":"","stderr":"wickfs check: *nope.yaml*","exit_code":78}}' \
		"$(dq '{"id":"3","op":"check","args":["-g","nope.yaml"]}')"
	check check.daemon_op_quoting '{"id":"4","ok":true,"data":{"stdout":"","stderr":"wickfs check: read it'"'"'s.yaml: no such file or directory\n","exit_code":78}}' \
		"$(dq '{"id":"4","op":"check","args":["-g","it'"'"'s.yaml"]}')"
	# the client sends it in our form: no wickfs needed in the daemon's PATH
	# (the reference form would run `wickfs check` through sh)
	out=$(with_timeout 60 "$WICKFS" -t client --connect "unix:$t/d.sock" check -g bad.yaml -f tap)
	check check.daemon_client_status 1 "$?"
	check_match check.daemon_client_output "1..1*not ok 1 - File: missing-file*" "$out"
	daemon_stop "$DPID"
else
	fail check.daemon_start "$(show "$(cat "$t/d.log")")"
fi
if DAEMON_WRAP="env WICKFS_READONLY=1" daemon_start "$t/dro.log" --listen off --socket "$t/dro.sock"; then
	check_match check.daemon_op_readonly '{"id":"5","ok":false,"error":"*refused, WICKFS_READONLY is set*"}' \
		"$(with_timeout 30 "$WICKFS" client --connect "unix:$t/dro.sock" --raw '{"id":"5","op":"check","args":["-g","ok.yaml"]}')"
	daemon_stop "$DPID"
fi

# ---- --serve: goss serve's health endpoint ----
get() { # METHOD URL: "STATUS BODY-FIRST-LINE"
	python3 - "$1" "$2" <<'EOF2'
import http.client, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[2])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
c.request(sys.argv[1], u.path)
r = c.getresponse()
b = r.read().decode()
print(r.status, b.splitlines()[0] if b else "")
EOF2
}
"$WICKFS" check -g ok.yaml -f tap --serve 127.0.0.1:0 --cache 0s 2>"$t/serve.log" &
spid=$!
PIDS+=("$spid")
url=
for _ in $(seq 100); do
	url=$(sed -n 's/.*serving on //p' "$t/serve.log")
	[ -n "$url" ] && break
	sleep 0.05
done
if [ -n "$url" ]; then
	check check.serve_pass "200 1..2" "$(get GET "$url")"
	mv flag flag.away
	check check.serve_fail "503 1..2" "$(get GET "$url")"
	mv flag.away flag
	check check.serve_again "200 1..2" "$(get GET "$url")"
	check check.serve_other_path "404 " "$(get GET "${url%/healthz}/metrics")"
	check check.serve_post "405 " "$(get POST "$url")"
	kill "$spid"
else
	fail check.serve "no address said: $(show "$(cat "$t/serve.log")")"
fi
"$WICKFS" check -g ok.yaml --serve 127.0.0.1:99999 2>"$t/serve_bad.log"
check check.serve_bad_address 78 "$?"
check_match check.serve_bad_address_says "wickfs check: --serve 127.0.0.1:99999: *" "$(cat "$t/serve_bad.log")"
cd "$t" || exit 1
