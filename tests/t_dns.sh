#!/usr/bin/env bash
# DNS names in TCP addresses (lib/dns.c): in a fresh network and mount
# namespace, a stub nameserver (tests/helpers/dns_stub.c) on 127.0.0.1:53
# and a private /etc/resolv.conf bound over the real one; the daemon
# listens on a DNS name and the client connects by names found directly,
# through the search list, as AAAA only; unknown names, SERVFAIL and a
# silent nameserver give clear errors.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/dns
mkdir -p "$d"
tests_dir=$(cd "$(dirname "$0")" && pwd)

if ! grep -q '^CONFIG_FEATURE_DNS=y' "$tests_dir/../.config" 2>/dev/null; then
	skip dns.feature "built without CONFIG_FEATURE_DNS"
	exit 0
fi
if ! ${HOSTCC:-cc} -O1 -o "$d/dns_stub" "$tests_dir/helpers/dns_stub.c" 2>"$d/cc.err"; then
	fail dns.stub_build "cannot build tests/helpers/dns_stub.c: $(head -c 300 "$d/cc.err")"
	exit 0
fi
enter=()
: >"$d/probe.a"
: >"$d/probe.b"
for try in "unshare -m -n" "unshare -r -m -n"; do
	# shellcheck disable=SC2086
	if $try sh -c 'mount --bind "$1" "$2"' sh "$d/probe.a" "$d/probe.b" >/dev/null 2>&1; then
		read -r -a enter <<<"$try"
		break
	fi
done
if [ ${#enter[@]} = 0 ]; then
	skip dns.namespace "no private network and mount namespace here (unshare -m -n, as root or in a user namespace)"
	exit 0
fi
pass dns.namespace

cat >"$d/inside.sh" <<'EOF'
# Runs inside the namespaces: $1 = scratch dir, $2 = wickfs, $3 = stub.
d=$1 W=$2 stub=$3
"$stub" 127.0.0.1 wickd.test=127.0.0.1 short.corp.test=127.0.0.1 \
	six.test=::1 broken.test=servfail >"$d/stub.out" 2>"$d/stub.err" &
stub_pid=$!
for i in $(seq 100); do grep -q ready "$d/stub.out" && break; sleep 0.05; done
printf 'nameserver 127.0.0.1\nsearch corp.test\noptions ndots:1 timeout:1 attempts:1\n' >"$d/resolv.conf"
if ! mount --bind "$d/resolv.conf" /etc/resolv.conf 2>/dev/null; then
	echo "cannot bind over /etc/resolv.conf" >"$d/nomount"
	kill "$stub_pid"
	exit 0
fi
echo x >"$d/f.txt"
"$W" daemon --listen wickd.test:7090 --socket off 2>"$d/daemon.log" &
dpid=$!
for i in $(seq 100); do grep -q "ready:" "$d/daemon.log" && break; sleep 0.05; done
"$W" daemon --listen "six.test:7091" --socket off 2>"$d/daemon6.log" &
d6=$!
for i in $(seq 100); do grep -q "ready:\|cannot\|error" "$d/daemon6.log" && break; sleep 0.05; done
"$W" client --connect tcp:wickd.test:7090 read "$d/f.txt" >"$d/by_name.out" 2>&1
"$W" client --connect tcp:WICKD.test.:7090 read "$d/f.txt" >"$d/by_fqdn.out" 2>&1
"$W" client --connect tcp:short:7090 read "$d/f.txt" >"$d/by_search.out" 2>&1
"$W" client --connect tcp:six.test:7091 read "$d/f.txt" >"$d/by_aaaa.out" 2>&1
"$W" client --connect tcp:nosuch.test:7090 read "$d/f.txt" >"$d/nosuch.out" 2>&1
echo "rc=$?" >>"$d/nosuch.out"
"$W" client --connect tcp:broken.test:7090 read "$d/f.txt" >"$d/servfail.out" 2>&1
"$W" daemon --listen nosuch.test:7092 --socket off >"$d/daemon_bad.out" 2>&1
echo "rc=$?" >>"$d/daemon_bad.out"
printf 'nameserver 127.0.0.2\noptions timeout:1 attempts:1\n' >"$d/resolv.conf"
"$W" client --connect tcp:wickd.test:7090 read "$d/f.txt" >"$d/silent.out" 2>&1
kill "$dpid" "$d6" "$stub_pid" 2>/dev/null
wait
EOF
with_timeout 60 "${enter[@]}" bash "$d/inside.sh" "$d" "$WICKFS" "$d/dns_stub" >"$d/inside.log" 2>&1
check dns.inside_ran 0 "$?"
if [ -f "$d/nomount" ]; then
	skip dns.resolver "$(cat "$d/nomount") (no such file here)"
	exit 0
fi

ok_read=$("$WICKFS" read "$d/f.txt")
check_match dns.daemon_listens_by_name "*listening on tcp 127.0.0.1:7090*" "$(cat "$d/daemon.log")"
check dns.client_by_name "$ok_read" "$(cat "$d/by_name.out")"
check dns.client_fqdn_any_case "$ok_read" "$(cat "$d/by_fqdn.out")"
check dns.client_search_list "$ok_read" "$(cat "$d/by_search.out")"
check_match dns.daemon_aaaa "*listening on tcp [[]::1]:7091*" "$(cat "$d/daemon6.log")"
check dns.client_aaaa "$ok_read" "$(cat "$d/by_aaaa.out")"
check dns.no_such_host '{"ok":false,"error":"client: connect tcp:nosuch.test:7090: cannot resolve \"nosuch.test\": no such host"}
rc=1' "$(cat "$d/nosuch.out")"
check dns.servfail '{"ok":false,"error":"client: connect tcp:broken.test:7090: cannot resolve \"broken.test\": no answer from the nameservers of /etc/resolv.conf"}' \
	"$(cat "$d/servfail.out")"
check dns.silent_nameserver '{"ok":false,"error":"client: connect tcp:wickd.test:7090: cannot resolve \"wickd.test\": no answer from the nameservers of /etc/resolv.conf"}' \
	"$(cat "$d/silent.out")"
check_match dns.daemon_bad_name '*wick-daemon: listen tcp nosuch.test:7092: cannot resolve "nosuch.test": no such host*rc=1' \
	"$(cat "$d/daemon_bad.out")"
