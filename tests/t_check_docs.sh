#!/usr/bin/env bash
# check against goss's own documentation (docs/gossfile.md of
# goss-org/goss): every example gossfile there, rewritten to point at what
# this script makes (files with known modes and digests, a link, a
# directory, a web server, a process of ours, the current user, includes),
# parses and gives the verdict goss documents, checked in check's JSON
# report (successful, skipped, resource-id, property), its Count line and
# its exit status. What docs/check.md lists as unsupported gives the load
# error it promises; what cannot run here is a skip saying why.
. "$(dirname "$0")/lib.sh"

t=$TEST_TMP/docs
f=$t/files
mkdir -p "$f/html" "$t/inc/goss.d" "$t/sys/etc" "$t/sys/var/lib/dpkg" "$t/sys/proc/sys/net/core"
tests_dir=$(cd "$(dirname "$0")" && pwd)
config=${WICKFS_CONFIG:-$tests_dir/../.config}
if ! grep -q '^CONFIG_APPLET_CHECK=y' "$config" 2>/dev/null; then
	skip check_docs "built without the check applet"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	skip check_docs "no python3 to read check's JSON report (and to serve HTTP)"
	exit 0
fi
net=1 templates=1
grep -q '^CONFIG_FEATURE_CHECK_NET=y' "$config" || net=0
grep -q '^CONFIG_FEATURE_CHECK_TEMPLATE=y' "$config" || templates=0

PIDS=()
trap kill_pids EXIT

gossfile() { cat >"$t/g.yaml"; }
# GF: the gossfile the helpers below run (default $t/g.yaml)

# verdicts NAME RC WANT [ARGS...]: check -f json on $GF (with ARGS)
# exits RC and gives, sorted, one "ok|fail|skip RESOURCE-ID PROPERTY" line
# a result, then the summary as the Count line of the documentation format.
verdicts() {
	local name=$1 rc=$2 want=$3 got
	shift 3
	wf check -f json -g "${GF:-$t/g.yaml}" "$@"
	printf '%s' "$OUT" >"$t/out.json"
	got=$(python3 - "$t/out.json" <<'EOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    v = "skip" if r["skipped"] else "ok" if r["successful"] else "fail"
    print(v, r["resource-id"], r["property"])
s = d["summary"]
print("~Count: %d, Failed: %d, Skipped: %d" % (s["test-count"], s["failed-count"], s["skipped-count"]))
EOF
)
	got=$(sort <<<"$got")
	want=$(sort <<<"$want")
	check "$name" "$rc"$'\n'"$want" "$RC"$'\n'"$got${ERR:+$'\n'stderr: $ERR}"
}

# count NAME RC LINE [ARGS...]: the documentation format's summary line.
count() {
	local name=$1 rc=$2 line=$3
	shift 3
	wf check -g "${GF:-$t/g.yaml}" "$@"
	check "$name" "$rc:$line" "$RC:$(grep '^Count: ' <<<"$OUT")"
}

# unloadable NAME NEEDLE [ARGS...]: exit 78, the error saying NEEDLE.
unloadable() {
	local name=$1 needle=$2
	shift 2
	wf check -g "${GF:-$t/g.yaml}" "$@"
	check_match "$name" "78:*$needle*" "$RC:$ERR"
}

# ---- the fixtures ----
printf 'listen 80\nfoo\nGoss rocks\n' >"$f/app.conf"
printf 'foo\n!bar\n' >"$f/bang.txt"
printf 'mta\n' >"$f/sendmail"
ln -s "$f/sendmail" "$f/mta"
chmod 0644 "$f/app.conf" "$f/bang.txt" "$f/sendmail"
size=$(wc -c <"$f/app.conf")
md5=$(md5sum <"$f/app.conf" | cut -d' ' -f1)
sha256=$(sha256sum <"$f/app.conf" | cut -d' ' -f1)
sha512=$(sha512sum <"$f/app.conf" | cut -d' ' -f1)
# the current user and its group, as /etc/passwd and /etc/group name them
uid=$(id -u)
IFS=: read -r uname _ _ ugid _ uhome ushell < <(awk -F: -v u="$uid" '$3 == u { print; exit }' /etc/passwd)
gname=$(awk -F: -v g="${ugid:-x}" '$3 == g { print $1; exit }' /etc/group)
fowner=$(awk -F: -v u="$(stat -c %u "$f/app.conf")" '$3 == u { print $1; exit }' /etc/passwd)
fgroup=$(awk -F: -v g="$(stat -c %g "$f/app.conf")" '$3 == g { print $1; exit }' /etc/group)

# a web server: for addr, http and port
mkdir -p "$t/www/sub"
printf '<html>served by the test</html>\n' >"$t/www/index.html"
cp "$t/www/index.html" "$t/www/sub/index.html"
python3 -u -m http.server 0 -b 127.0.0.1 --directory "$t/www" >"$t/http.log" 2>&1 &
hpid=$!
PIDS+=("$hpid")
hport=
for _ in $(seq 200); do
	hport=$(grep -o 'port [0-9]*' "$t/http.log" 2>/dev/null | grep -o '[0-9]*$')
	[ -n "$hport" ] && break
	kill -0 "$hpid" 2>/dev/null || break
	sleep 0.05
done
[ -n "$hport" ] || skip check_docs.http_server "python3's web server gave no port: $(show "$(cat "$t/http.log")")"

# a process of ours whose comm is known: a script (comm is its name) that
# waits in a builtin, no child
mkfifo "$t/fifo"
# shellcheck disable=SC2016 # $1 is the script's own
printf '#!%s\nread -r -t 60 _ <>"$1"\n' "$BASH" >"$t/wfdocs_proc"
chmod +x "$t/wfdocs_proc"
"$t/wfdocs_proc" "$t/fifo" &
ppid_=$!
PIDS+=("$ppid_")

# ---- goss add's package example, and the uninstall case ----
if [ -r /var/lib/dpkg/status ]; then
	read -r pkg pver < <(awk 'BEGIN { RS = "" } /\nStatus: install ok installed/ {
		p = v = ""; n = split($0, l, "\n")
		for (i = 1; i <= n; i++) {
			if (l[i] ~ /^Package: /) p = substr(l[i], 10)
			if (l[i] ~ /^Version: /) v = substr(l[i], 10)
		}
		if (p != "" && v != "") { print p, v; exit }
	}' /var/lib/dpkg/status)
fi
if [ -n "${pkg:-}" ]; then
	gossfile <<EOF
package:
  $pkg:
    installed: true
    versions:
    - $pver
  wfdocs-not-a-package:
    installed: false
  the-package:
    installed: true
    name: $pkg
    versions:
    - $pver
    skip: false
EOF
	verdicts docs.package 0 "ok $pkg installed
ok $pkg versions
ok wfdocs-not-a-package installed
ok the-package installed
ok the-package versions
~Count: 5, Failed: 0, Skipped: 0"
	gossfile <<EOF
package:
  $pkg:
    installed: false
EOF
	verdicts docs.package.uninstall_fails 1 "fail $pkg installed
~Count: 1, Failed: 1, Skipped: 0"
else
	skip docs.package "no installed package in /var/lib/dpkg/status here (dpkg's database is the one read on this host)"
fi

# ---- a key repeated at the top level: only the last one counts ----
gossfile <<EOF
file:
  $f/app.conf:
    exists: true

service:
  httpd:
    enabled: true
    running: true

file:
  $f/html:
    filetype: directory
    exists: true
EOF
count docs.wrong_way.count 0 "Count: 4, Failed: 0, Skipped: 2"
ran=no
[[ $OUT == *"$f/app.conf"* ]] && ran=yes
check docs.wrong_way.first_file_not_run no "$ran"
verdicts docs.wrong_way 0 "ok $f/html exists
ok $f/html filetype
skip httpd enabled
skip httpd running
~Count: 4, Failed: 0, Skipped: 2"
printf '{"file": {"%s": {"exists": true}}, "service": {"httpd": {"running": true}}, "file": {"%s": {"filetype": "directory"}}}\n' \
	"$f/app.conf" "$f/html" | gossfile
verdicts docs.wrong_way.json 0 "ok $f/html filetype
skip httpd running
~Count: 2, Failed: 0, Skipped: 1"
gossfile <<EOF
file:
  $f/app.conf:
    exists: true
  $f/html:
    filetype: directory
    exists: true

service:
  httpd:
    enabled: true
    running: true
EOF
count docs.correct_way.count 0 "Count: 5, Failed: 0, Skipped: 2"
check_match docs.correct_way.service_skipped_saying_why "*Service: httpd: running: skipped (no init system)*" "$OUT"

# ---- addr ----
if [ "$net" = 0 ]; then
	skip docs.addr "built without CONFIG_FEATURE_CHECK_NET"
elif [ -n "$hport" ]; then
	gossfile <<EOF
addr:
  tcp://127.0.0.1:$hport:
    reachable: true
    address: "tcp://127.0.0.1:$hport"
    timeout: 500
    local-address: 127.0.0.1
EOF
	verdicts docs.addr 0 "ok tcp://127.0.0.1:$hport reachable
~Count: 1, Failed: 0, Skipped: 0"
fi

# ---- command ----
gossfile <<'EOF'
command:
  'uname -s':
    exit-status: 0
    exec: "uname -s"
    stdout:
    - Linux
    stderr: []
    timeout: 10000
    skip: false
  'uname as a pattern':
    exec: "uname -s"
    exit-status: 0
    stdout: ["/^Lin/", "!Windows"]
  'false':
    exit-status: 0
EOF
verdicts docs.command 1 "ok uname -s exit-status
ok uname -s stdout
ok uname -s stderr
ok uname as a pattern exit-status
ok uname as a pattern stdout
fail false exit-status
~Count: 6, Failed: 1, Skipped: 0"

# ---- dns ----
mapfile -t lh < <(awk '!/^[ \t]*#/ { for (i = 2; i <= NF; i++) if ($i == "localhost") { print $1; break } }' /etc/hosts 2>/dev/null | awk '!seen[$0]++')
if [ "$net" = 0 ]; then
	skip docs.dns "built without CONFIG_FEATURE_CHECK_NET"
elif [ ${#lh[@]} = 0 ]; then
	skip docs.dns "localhost is not in /etc/hosts here"
elif [ ${#lh[@]} != 1 ]; then
	# goss lists every address; check keeps the first (docs/check.md)
	skip docs.dns "/etc/hosts gives localhost ${#lh[*]} addresses (${lh[*]}): check's addrs holds the first only (docs/check.md), goss's all"
else
	gossfile <<EOF
dns:
  localhost:
    resolvable: true
    resolve: localhost
    addrs:
    - ${lh[0]}
    timeout: 500
  only-one:
    resolve: localhost
    resolvable: true
    addrs:
      consist-of: [${lh[0]}]
    timeout: 500
  wrong-address:
    resolve: localhost
    addrs: [192.0.2.1]
EOF
	verdicts docs.dns 1 "ok localhost resolvable
ok localhost addrs
ok only-one resolvable
ok only-one addrs
fail wrong-address addrs
~Count: 5, Failed: 1, Skipped: 0"
fi
if [ "$net" = 1 ]; then
	# record types and `server`: skipped as docs/check.md says, never passed
	gossfile <<'EOF'
dns:
  localhost:
    resolvable: true
    server: 127.0.0.1
  CNAME:c.dnstest.io:
    resolvable: true
    server: 127.0.0.1
    addrs:
    - "a.dnstest.io."
  PTR:127.0.0.1:
    resolvable: true
    server: 127.0.0.1
    addrs:
    - "localhost."
  SRV:_https._tcp.dnstest.io:
    resolvable: true
    server: 127.0.0.1
    addrs:
    - "0 5 443 a.dnstest.io."
    - "10 10 443 b.dnstest.io."
EOF
	verdicts docs.dns.server_skipped 0 "skip localhost resolvable
skip CNAME:c.dnstest.io resolvable
skip CNAME:c.dnstest.io addrs
skip PTR:127.0.0.1 resolvable
skip PTR:127.0.0.1 addrs
skip SRV:_https._tcp.dnstest.io resolvable
skip SRV:_https._tcp.dnstest.io addrs
~Count: 7, Failed: 0, Skipped: 7"
	skip docs.dns.typed_records "record types and server are not supported (docs/check.md): goss's verdict from a nameserver is not checked"
fi

# ---- file ----
owner_yaml='' owner_want=''
if [ -n "$fowner" ] && [ -n "$fgroup" ]; then
	owner_yaml="    owner: $fowner
    group: $fgroup
"
	owner_want="ok $f/app.conf owner
ok $f/app.conf group
"
else
	skip docs.file.owner "the test file's owner or group has no name in /etc/passwd or /etc/group"
fi
gossfile <<EOF
file:
  $f/app.conf:
    exists: true
    path: $f/app.conf
    mode: "0644"
    size: $size
$owner_yaml    filetype: file
    contents: []
    md5: $md5
    sha256: $sha256
    sha512: $sha512
  $f/mta:
    exists: true
    filetype: symlink
    linked-to: $f/sendmail
    skip: false
EOF
verdicts docs.file 0 "ok $f/app.conf exists
ok $f/app.conf mode
ok $f/app.conf size
${owner_want}ok $f/app.conf filetype
ok $f/app.conf contents
ok $f/app.conf md5
ok $f/app.conf sha256
ok $f/app.conf sha512
ok $f/mta exists
ok $f/mta filetype
ok $f/mta linked-to
~Count: $((${owner_want:+2} + 11)), Failed: 0, Skipped: 0"

# ---- gossfile: by key, by `file`, a glob, a skipped glob ----
printf 'file:\n  %s:\n    exists: true\n' "$f/app.conf" >"$t/inc/myapp_gossfile.yaml"
printf 'file:\n  %s:\n    filetype: directory\n' "$f/html" >"$t/inc/goss_httpd.yaml"
printf 'file:\n  %s:\n    filetype: symlink\n' "$f/mta" >"$t/inc/goss.d/a.yaml"
printf 'file:\n  %s:\n    exists: false\n' "$f/none" >"$t/inc/goss.d/b.yaml"
printf 'this: [is not, a gossfile\n' >"$t/inc/broken.yaml" # only the skipped glob matches it
cat >"$t/inc/main.yaml" <<EOF
gossfile:
  myapplication:
    file: myapp_gossfile.yaml
    skip: false
  '*.yaml':
    skip: true
  goss_httpd.yaml: {}
  $t/inc/goss.d/*.yaml: {}
EOF
GF=$t/inc/main.yaml verdicts docs.gossfile 0 "ok $f/app.conf exists
ok $f/html filetype
ok $f/mta filetype
ok $f/none exists
~Count: 4, Failed: 0, Skipped: 0"
# goss's example writes the glob unquoted: in YAML `*` starts an alias
sed "s/^  '\*.yaml':/  *.yaml:/" "$t/inc/main.yaml" >"$t/inc/unquoted.yaml"
GF=$t/inc/unquoted.yaml unloadable docs.gossfile.unquoted_glob "line 5: aliases are not supported"
printf 'gossfile:\n  myapp_gossfile.yaml:\n    skip: true\n  missing-*.yaml:\n    skip: true\n' >"$t/inc/skipall.yaml"
GF=$t/inc/skipall.yaml count docs.gossfile.skipped_not_counted 0 "Count: 0, Failed: 0, Skipped: 0"

# ---- group, user ----
if [ -n "$uname" ] && [ -n "$gname" ] && [ -n "$uhome" ] && [ -n "$ushell" ]; then
	gossfile <<EOF
group:
  $gname:
    exists: true
    groupname: $gname
    gid: $ugid
    skip: false
  wfdocs-no-group:
    exists: false
user:
  $uname:
    exists: true
    username: $uname
    uid: $uid
    gid: $ugid
    groups:
    - $gname
    home: $uhome
    shell: $ushell
    skip: false
EOF
	verdicts docs.user_group 0 "ok $gname exists
ok $gname gid
ok wfdocs-no-group exists
ok $uname exists
ok $uname uid
ok $uname gid
ok $uname groups
ok $uname home
ok $uname shell
~Count: 9, Failed: 0, Skipped: 0"
else
	skip docs.user_group "uid $uid, its group, home or shell has no entry in /etc/passwd or /etc/group"
fi

# ---- http ----
if [ "$net" = 0 ]; then
	skip docs.http "built without CONFIG_FEATURE_CHECK_NET"
elif [ -n "$hport" ]; then
	u=http://127.0.0.1:$hport
	gossfile <<EOF
http:
  $u/:
    status: 200
    url: $u/
    allow-insecure: false
    no-follow-redirects: false
    timeout: 1000
    request-headers:
       - "Content-Type: text/html"
    headers: ["Content-Type: text/html"]
    request-body: '{"key": "value"}'
    body: [served by the test]
    username: ""
    password: ""
    ca-file: ""
    cert-file: ""
    key-file: ""
    proxy: ""
    skip: false
    method: GET
  put:
    url: $u/
    method: PUT
    request-body: '{"key": "value"}'
    status: 501
    body: ["Unsupported method ('PUT')"]
  $u/sub:
    status: 200
    body: [served by the test]
  no-follow:
    url: $u/sub
    no-follow-redirects: true
    status: 301
    headers: ["Location: /sub/"]
  $u/missing:
    status: 200
EOF
	verdicts docs.http 1 "ok $u/ status
ok $u/ headers
ok $u/ body
ok put status
ok put body
ok $u/sub status
ok $u/sub body
ok no-follow status
ok no-follow headers
fail $u/missing status
~Count: 10, Failed: 1, Skipped: 0"
	# https and proxy are not supported (docs/check.md): skipped, not
	# passed, and a proxy is not bypassed silently
	gossfile <<EOF
http:
  https://127.0.0.1:$hport/:
    status: 200
  via-proxy:
    url: $u/
    status: 200
    proxy: "http://127.0.0.1:9"
EOF
	verdicts docs.http.https_proxy_skipped 0 "skip https://127.0.0.1:$hport/ status
skip via-proxy status
~Count: 2, Failed: 0, Skipped: 2"
	wf check -f tap -g "$t/g.yaml"
	check_match docs.http.proxy_says_why "*via-proxy: status: skipped (proxy is not supported)*" "$OUT"
fi

# ---- interface ----
if [ "$net" = 0 ]; then
	skip docs.interface "built without CONFIG_FEATURE_CHECK_NET"
elif [ ! -e /sys/class/net/lo/mtu ]; then
	skip docs.interface "no /sys/class/net/lo here (a root without /sys)"
else
	lomtu=$(cat /sys/class/net/lo/mtu)
	loaddrs='' addrs_want=''
	# lo's addresses exist while it is up (a fresh network namespace has it down)
	if [ $(($(cat /sys/class/net/lo/flags) & 1)) = 1 ]; then
		loaddrs='    addrs:
    - 127.0.0.1/8
'
		grep -q ' lo$' /proc/net/if_inet6 2>/dev/null && loaddrs+='    - ::1/128
'
		addrs_want='ok lo addrs
'
	fi
	gossfile <<EOF
interface:
  lo:
    exists: true
    name: lo
${loaddrs}    mtu: $lomtu
  wfdocs0:
    exists: false
EOF
	verdicts docs.interface 0 "ok lo exists
${addrs_want}ok lo mtu
ok wfdocs0 exists
~Count: $((${addrs_want:+1} + 3)), Failed: 0, Skipped: 0"
	[ -n "$loaddrs" ] || skip docs.interface.addrs "lo is down here: no address to expect"
fi

# ---- kernel-param, and the transform example ----
if [ -r /proc/sys/kernel/ostype ]; then
	gossfile <<'EOF'
kernel-param:
  kernel.ostype:
    value: Linux
    name: kernel.ostype
EOF
	verdicts docs.kernel_param 0 "ok kernel.ostype value
~Count: 1, Failed: 0, Skipped: 0"
else
	skip docs.kernel_param "no /proc/sys/kernel/ostype here"
fi
s=$t/sys
printf '128\n' >"$s/proc/sys/net/core/somaxconn"
gossfile <<'EOF'
kernel-param:
  net.core.somaxconn:
    value: "128"
EOF
verdicts docs.transform.string 0 "ok net.core.somaxconn value
~Count: 1, Failed: 0, Skipped: 0" --sysroot "$s"
gossfile <<'EOF'
kernel-param:
  net.core.somaxconn:
    value: {gt: 200}
EOF
count docs.transform.failing 1 "Count: 1, Failed: 1, Skipped: 0" --sysroot "$s"
check_match docs.transform.failing_shows_value "*KernelParam: net.core.somaxconn: value:*128*200*" "$OUT"
count docs.transform.exclude_raw 1 "Count: 1, Failed: 1, Skipped: 0" --sysroot "$s" -o exclude_raw

# ---- mount ----
# / as /proc/self/mountinfo shows it (the last entry for it: the one on top)
IFS=' ' read -r mopts mfs msrc mvfs < <(awk '$5 == "/" { for (i = 7; $i != "-"; i++); o = $6; t = $(i + 1); s = $(i + 2); v = $(i + 3) } END { print o, t, s, v }' /proc/self/mountinfo 2>/dev/null)
if [ -z "$mfs" ]; then
	skip docs.mount "/ is not in /proc/self/mountinfo here"
else
	gossfile <<EOF
mount:
  /:
    exists: true
    timeout: 1000
    mountpoint: /
    opts:
    - ${mopts%%,*}
    vfs-opts:
    - ${mvfs%%,*}
    source: $msrc
    filesystem: $mfs
    usage:
      lt: 101
  $f/html:
    exists: false
EOF
	verdicts docs.mount 0 "ok / exists
ok / opts
ok / vfs-opts
ok / source
ok / filesystem
ok / usage
ok $f/html exists
~Count: 7, Failed: 0, Skipped: 0"
	# usage is a rounded percentage, as goss computes it
	pct() { stat -f -c '%b %f' / | awk '$1 > 0 { printf "%d\n", (1 - $2 / $1) * 100 + 0.5 }'; }
	before=$(pct)
	printf 'mount:\n  /:\n    usage: %s\n' "${before:-0}" | gossfile
	wf check -f silent -g "$t/g.yaml"
	after=$(pct)
	if [ -n "$before" ] && [ "$before" = "$after" ]; then
		check docs.mount.usage_rounded 0 "$RC"
	else
		skip docs.mount.usage_rounded "the use of / changed while checking (${before:-no blocks} then $after)"
	fi
fi

# ---- matching: with templates and --vars, and without ----
printf '{\n  "instance_count": 14,\n  "failures": 3,\n  "status": "FAIL"\n}\n' >"$t/data.json"
printf '{"instance_count": 2, "failures": 0, "status": "PASS"}\n' >"$t/data_ok.json"
gossfile <<'EOF'
matching:
  check_instance_count: # at least one instance
    content: {{ .Vars.instance_count }}
    matches:
      gt: 0

  check_failure_count_from_all_instance: # no failures
    content: {{ .Vars.failures }}
    matches: 0

  check_status:
    content: {{ .Vars.status }}
    matches:
      - not: FAIL
EOF
if [ "$templates" = 1 ]; then
	verdicts docs.matching.templates 1 "ok check_instance_count matches
fail check_failure_count_from_all_instance matches
fail check_status matches
~Count: 3, Failed: 2, Skipped: 0" --vars "$t/data.json"
	verdicts docs.matching.templates_ok 0 "ok check_instance_count matches
ok check_failure_count_from_all_instance matches
ok check_status matches
~Count: 3, Failed: 0, Skipped: 0" --vars "$t/data_ok.json"
else
	skip docs.matching.templates "built without CONFIG_FEATURE_CHECK_TEMPLATE"
	unloadable docs.matching.templates_off "built without CONFIG_FEATURE_CHECK_TEMPLATE" --vars "$t/data.json"
fi
gossfile <<'EOF'
matching:
  has_substr: # a test's name
    content: some string
    matches:
      match-regexp: some str
  has_2:
    content:
      - 2
    matches:
      contain-element: 2
  has_foo_bar_and_baz:
    content:
      foo: bar
      baz: bing
    matches:
      and:
        - have-key: baz
EOF
verdicts docs.matching 0 "ok has_substr matches
ok has_2 matches
ok has_foo_bar_and_baz matches
~Count: 3, Failed: 0, Skipped: 0"

# ---- port, process ----
if [ -n "$hport" ]; then
	gossfile <<EOF
port:
  tcp:$hport:
    listening: true
    port: 'tcp:$hport'
    ip:
    - 127.0.0.1
    skip: false
EOF
	verdicts docs.port 0 "ok tcp:$hport listening
ok tcp:$hport ip
~Count: 2, Failed: 0, Skipped: 0"
fi
for _ in $(seq 100); do [ "$(cat "/proc/$ppid_/comm" 2>/dev/null)" = wfdocs_proc ] && break; sleep 0.05; done
gossfile <<'EOF'
process:
  our-script:
    running: true
    comm: wfdocs_proc
    skip: false
  wfdocs_none:
    running: false
EOF
verdicts docs.process 0 "ok our-script running
ok wfdocs_none running
~Count: 2, Failed: 0, Skipped: 0"

# ---- service: skipped, saying why; never passed ----
gossfile <<'EOF'
service:
  sshd:
    name: sshd
    enabled: true
    running: true
    runlevels: ["3", "4", "5"]
    skip: false
EOF
verdicts docs.service 0 "skip sshd enabled
skip sshd running
skip sshd runlevels
~Count: 3, Failed: 0, Skipped: 3"
wf check -f tap -g "$t/g.yaml"
check_match docs.service.says_why "*# SKIP Service: sshd: enabled: skipped (no init system)*" "$OUT"
skip docs.service.goss_verdict "no init system to ask in a container: service is skipped (docs/check.md)"

# ---- default matchers: equality, arrays as subsets ----
if [ -n "$uname" ]; then
	gossfile <<EOF
matching:
  basic_string:
    content: 'foo'
    matches: 'foo'

user:
  $uname:
    exists: true
    uid: $uid
EOF
	verdicts docs.default.equality 0 "ok basic_string matches
ok $uname exists
ok $uname uid
~Count: 3, Failed: 0, Skipped: 0"
fi
gossfile <<'EOF'
matching:
  basic_array:
    content:
      - 'group1'
      - 'group2'
      - 'group3'
    matches:
      - 'group1'
      - 'group2'

  # the documented failure: no longer a subset
  basic_array_failing:
    content:
      - 'group1'
      - 'group2'
      - 'group3'
    matches:
      - 'group1'
      - 'group2'
      - 'group2' # a second group2 the content has not
EOF
verdicts docs.default.arrays 1 "ok basic_array matches
fail basic_array_failing matches
~Count: 2, Failed: 1, Skipped: 0"

# ---- io.Reader patterns, and the same as advanced matchers ----
gossfile <<EOF
file:
  $f/app.conf:
    exists: true
    contents:
    - "foo"
    - "!bar"
    - "/[Gg]oss/"
  $f/bang.txt:
    contents:
    - "\\\\!bar"
    - "!/[Gg]oss/"
  advanced:
    path: $f/app.conf
    exists: true
    contents:
      and:
        - contain-element: "foo"
        - not: {contain-element: "bar"}
        - contain-element: {match-regexp: "[Gg]oss"}
EOF
verdicts docs.patterns 0 "ok $f/app.conf exists
ok $f/app.conf contents
ok $f/bang.txt contents
ok advanced exists
ok advanced contents
~Count: 5, Failed: 0, Skipped: 0"
n=0
for p in '"!foo"' '"!/[Gg]oss/"' '"/^z/"' '"nowhere"' '"\\!foo"'; do
	n=$((n + 1))
	printf 'file:\n  %s:\n    contents:\n    - %s\n' "$f/app.conf" "$p" | gossfile
	verdicts "docs.patterns.fails.$n" 1 "fail $f/app.conf contents
~Count: 1, Failed: 1, Skipped: 0"
done

# ---- advanced matchers ----
gossfile <<'EOF'
matching:
  string:
    content: 42
    matches:
      and:
        - '42'
        - have-prefix: '4'
        - have-suffix: '2'
        - match-regexp: '\d{2}'
        - contain-substring: '2'
  numeric:
    content: "42"
    matches:
      and:
        - 42
        - 42.0
        - gt: 40
        - lt: 45
  array:
    content: [foo, bar, moo]
    matches:
      and:
        - contain-elements: [foo, bar]
        - [foo, bar] # the same
        - equal: [foo, bar, moo] # in order, exactly
        - consist-of: [foo, have-prefix: m, bar] # any order, matchers
        - contain-element:
            have-prefix: b
  misc:
    content: {foo: bar, moo: cow}
    matches:
      and:
        - have-len: 2
        - have-key: foo
        - not: {have-key: nope}
        - or: [{have-key: nope}, {have-key: moo}]
  one-element:
    content: foo
    matches: [foo]
  equal-overrides:
    content: [foo, bar, moo]
    matches:
      equal: [foo, bar]
EOF
verdicts docs.advanced 1 "ok string matches
ok numeric matches
ok array matches
ok misc matches
ok one-element matches
fail equal-overrides matches
~Count: 6, Failed: 1, Skipped: 0"
# not supported (docs/check.md): load errors naming them
gossfile <<'EOF'
matching:
  semver:
    content:
    - 1.0.1
    - 1.9.9
    matches:
      semver-constraint: ">1.0.0 <2.0.0 !=1.5.0"
EOF
unloadable docs.semver_unsupported 'line 6: matching semver: bad matcher "semver-constraint"'
gossfile <<'EOF'
matching:
  example:
    content: '{"foo": "bar", "moo": {"nested": "cow"}, "count": "15"}'
    matches:
      gjson:
        moo.nested: cow
        foo: {have-prefix: b}
EOF
unloadable docs.gjson_unsupported 'line 4: matching example: bad matcher "gjson"'

# ---- templates ----
if [ "$templates" = 1 ]; then
	gossfile <<EOF
file:
{{- range mkSlice "$f/app.conf" "$f/bang.txt"}}
  {{.}}:
    exists: true
    mode: "0644"
    filetype: file
{{end}}
matching:
  env_default:
    content: {{ getEnv "WFDOCS_UNSET" "the default" }}
    matches: the default
EOF
	verdicts docs.template.mkslice 0 "ok $f/app.conf exists
ok $f/app.conf mode
ok $f/app.conf filetype
ok $f/bang.txt exists
ok $f/bang.txt mode
ok $f/bang.txt filetype
ok env_default matches
~Count: 7, Failed: 0, Skipped: 0"
	gossfile <<'EOF'
matching:
  sping_basic:
    content: {{ "hello!" | upper | repeat 5 }}
    matches:
      match-regexp: "HELLO!HELLO!HELLO!HELLO!HELLO!"
EOF
	unloadable docs.template.sprig_unsupported 'line 3: template: function "repeat" not supported'
	printf 'matching:\n  token:\n    content: {{ readFile "%s" }}\n    matches: foo\n' "$f/bang.txt" | gossfile
	unloadable docs.template.readfile_unsupported 'function "readFile" not supported'

	# the vars file and the gossfile that loops over it
	cat >"$t/vars.yaml" <<'EOF'
centos:
  packages:
    kernel:
      - "4.9.11-centos"
      - "4.9.11-centos2"
debian:
  packages:
    kernel:
      - "4.9.11-debian"
      - "4.9.11-debian2"
users:
  - user1
  - user2
EOF
	cat >"$t/loop.yaml" <<'EOF'
package:
# over the packages of vars.yaml, $OS choosing which
{{range $name, $vers := index .Vars .Env.OS "packages"}}
  {{$name}}:
    installed: true
    versions:
    {{range $vers}}
      - {{.}}
    {{end}}
{{end}}

# only when OS matches
{{if .Env.OS | regexMatch "[Cc]ent(OS|os)"}}
  libselinux:
    installed: true
{{end}}

# over the users
user:
{{range .Vars.users}}
  {{.}}:
    exists: true
    groups:
    - {{.}}
    home: /home/{{.}}
    shell: /bin/bash
{{end}}


package:
{{if eq .Env.OS "centos"}}
  # only when $OS is centos
  libselinux:
    installed: true
{{end}}
EOF
	cp "$t/loop.yaml" "$t/g.yaml"
	OS=centos unloadable docs.template.regexmatch_unsupported 'function "regexMatch" not supported' --vars "$t/vars.yaml"
	# without the regexMatch block: the second package: replaces the first
	awk '/regexMatch/ { skip = 1 } !skip { print } skip && /^\{\{end\}\}/ { skip = 0 }' "$t/loop.yaml" >"$t/g.yaml"
	printf 'root:x:0:0::/root:/bin/sh\nuser1:x:1001:1001::/home/user1:/bin/bash\nuser2:x:1002:1002::/home/user2:/bin/bash\n' >"$s/etc/passwd"
	printf 'root:x:0:\nuser1:x:1001:\nuser2:x:1002:\n' >"$s/etc/group"
	printf 'Package: libselinux\nStatus: install ok installed\nVersion: 2.9\n' >"$s/var/lib/dpkg/status"
	users="ok user1 exists
ok user1 groups
ok user1 home
ok user1 shell
ok user2 exists
ok user2 groups
ok user2 home
ok user2 shell"
	OS=centos verdicts docs.template.last_package_wins 0 "$users
ok libselinux installed
~Count: 9, Failed: 0, Skipped: 0" --sysroot "$s" --vars "$t/vars.yaml"
	OS=debian verdicts docs.template.last_package_empty 0 "$users
~Count: 8, Failed: 0, Skipped: 0" --sysroot "$s" --vars "$t/vars.yaml"
else
	skip docs.template "built without CONFIG_FEATURE_CHECK_TEMPLATE"
fi

kill "$hpid" "$ppid_" 2>/dev/null
wait "$hpid" "$ppid_" 2>/dev/null
PIDS=()
