# tests/lib.sh - helpers for tests/t_*.sh (sourced; bash).
#
# Every check prints one line: "ok NAME", "FAIL NAME: detail" or, when it
# cannot run here, "skip NAME: reason" (tests/run counts it as skipped).
# WICKFS is the binary under test; TEST_TMP a scratch directory (made here,
# and removed at exit, when a script runs outside tests/run).
#
#   wf ARGS...                 run wickfs; sets RC, OUT (stdout, exact), ERR
#   wf_in DATA ARGS...         the same with DATA (printf %s) on stdin
#   wf_file FILE ARGS...       the same with FILE on stdin
#   expect NAME RC LINE ARGS...      run; stdout must be exactly LINE + "\n"
#   expect_in NAME DATA RC LINE ARGS...
#   expect_error NAME NEEDLE ARGS... error envelope, exit 1, message
#                              containing NEEDLE (a `[[ == ]]` pattern part)
#   expect_error_in NAME DATA NEEDLE ARGS...
#   check NAME EXPECTED ACTUAL       exact string comparison
#   check_match NAME PATTERN ACTUAL  bash pattern match (`[[ == ]]`)
#   check_true NAME DETAIL CMD...    CMD must succeed
#   skip NAME REASON
#   tree_state DIR             a tree, entry by entry, as text (to compare)
#   needs_static NAME          false (after a skip line) when WICKFS is the
#                              sanitizer build, which is dynamic: use it to
#                              guard checks that copy the binary alone
#                              into an empty root
#
# Fixtures shared by several scripts:
#
#   fsops_fixture DIR          cd into DIR/w (made) holding f.txt (0640, a
#                              fixed mtime), lnk -> f.txt, sd (a 1755
#                              directory) and dangle (a dangling link): the
#                              start of t_exists, t_mkdir, t_rm, t_mv, t_cp,
#                              t_append, t_symlink, t_readlink, t_chmod and
#                              t_fsops, with DIR=$TEST_TMP/fsops
#   transfer_fixture DIR       cd into DIR (made) holding rand.bin (3 MB of
#                              random bytes) and src/, a tree with a link, an
#                              empty directory and a .wickfs: t_download,
#                              t_upload, t_transfer
#   download_tree SRC TGZ      `download --tree SRC` in 1 MB chunks (each
#                              after the first with --remove) into TGZ; sets
#                              SPOOL to the spool's path; 1 on an error
#   snapshot_store STORE ID TAG FILE...
#                              a snapshot store made by hand, in the format
#                              lib/snapshot.c describes: snaps/ID lists the
#                              FILEs (regular files of the working directory,
#                              plain names, given sorted) with their modes,
#                              times and sizes, objects/ holds their contents
#                              (t_restore, t_snapshots)
#   tree_state_no_time DIR     tree_state without the mtimes (for writers
#                              that do not keep them all)
#   check_tree NAME DIR WANT_T WANT
#                              tree_state DIR must be WANT_T (to the
#                              nanosecond); under a qemu-user whose fstatat
#                              gives whole seconds (tests/cross-run sets
#                              WICKFS_EMULATED_WHOLE_SECONDS to why),
#                              tree_state_no_time DIR must be WANT and
#                              NAME.mtime_ns skips
#   pack_source_tree DIR       the tree t_pack and t_unpack archive (every
#                              kind of entry and name, a FIFO, deep paths, a
#                              20 MB file, 2000 small ones, fixed mtimes)
#   unpack_no_temp NAME DIR    DIR holds no temporary file of unpack
#   unpack_jail DIR            DIR/h/t is where unpack_hostile unpacks; the
#                              rest of DIR and DIR/outside must not change:
#                              sets UNPACK_JAIL and UNPACK_JAIL_BEFORE
#   unpack_jail_state          what must not change, as text
#   unpack_hostile NAME NEEDLE ARCHIVE [ARGS...]
#                              unpack ARGS DIR/h/t <ARCHIVE, in a fresh DIR/h:
#                              refused with NEEDLE in the error
#                              (unpack.hostile.NAME), nothing outside changed
#                              (.outside), no temporary file left (.no_temp)
#   out_field KEY              a field of the last envelope (OUT), crudely:
#                              "KEY":number|word or "KEY":"string" (no \")
#
# Processes and daemons (t_daemon, t_exec, t_faults, t_fsops, ...):
#
#   PIDS+=(PID)                a background process kill_pids ends
#   kill_pids                  kill -9 each of PIDS and reap them (for a
#                              script's EXIT trap)
#   procs_matching TEXT        the PIDs whose command line contains TEXT
#   wait_procs_gone TEXT       bounded (10 s): until none is left; 1 if some is
#   daemon_start LOG ARGS...   `wickfs daemon ARGS` in the background, its
#                              stderr to LOG; sets DPID (added to PIDS);
#                              0 once LOG says "ready:" (listening), 1 when it
#                              exited or was not ready in 10 s. DAEMON_WRAP:
#                              words (no quoting) to run it through;
#                              DAEMON_DIR: the directory to start it in
#   daemon_stop [PID]          SIGTERM to PID (default DPID), wait (bounded)
#                              for it; the status is the daemon's exit status
#   daemon_client ADDR ARGS... `wickfs client --connect ADDR ARGS` (bounded)
#   daemon_send ADDR LINE...   the same with --raw: each LINE sent, each reply
#                              printed; ADDR is unix:PATH or tcp:HOST:PORT
#   same_via_daemon ADDR NAME RESET STDIN ARGS...
#                              `wickfs ARGS` with STDIN on the CLI, then as
#                              the daemon's native op and its cmd form:
#                              checks NAME.native and NAME.cmd, the CLI's
#                              bytes both; RESET (shell) runs before each

: "${WICKFS:?set WICKFS to the wickfs binary}"
export LC_ALL=C
umask 022
if [ -z "${TEST_TMP:-}" ]; then
	TEST_TMP=$(mktemp -d)
	trap 'chmod -R u+rwx "$TEST_TMP" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
fi
TEST_TMP=$(cd "$TEST_TMP" && pwd -P)
_wf_out=$TEST_TMP/.wf.out
_wf_err=$TEST_TMP/.wf.err
_wf_in=$TEST_TMP/.wf.in

pass() { printf 'ok %s\n' "$1"; }
fail() { printf 'FAIL %s: %s\n' "$1" "$2"; }
skip() { printf 'skip %s: %s\n' "$1" "$2"; }
needs_static() {
	if [ "${WICKFS_EMULATED:-0}" = 1 ]; then
		skip "$1" "WICKFS is a qemu-user wrapper (tests/cross-run), not a binary to copy"
		return 1
	fi
	[ "${WICKFS_SANITIZED:-0}" = 1 ] || return 0
	skip "$1" "the sanitizer build is dynamically linked"
	return 1
}

# A value quoted for a message, on one line, cut at 400 characters.
show() {
	local s=$1
	case $s in
	*[$'\x01'-$'\x1f']* | *$'\x7f'* | *\'*) s=$(printf '%q' "$1") ;;
	*) s="'$s'" ;;
	esac
	[ ${#s} -gt 400 ] && s="${s:0:400}...(${#1} chars)"
	printf '%s' "$s"
}

check() {
	if [ "$2" == "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected $(show "$2") got $(show "$3")"
	fi
}

check_match() {
	# shellcheck disable=SC2053
	if [[ $3 == $2 ]]; then
		pass "$1"
	else
		fail "$1" "expected to match $(show "$2"), got $(show "$3")"
	fi
}

check_true() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then
		pass "$name"
	else
		fail "$name" "$detail"
	fi
}

# stdout with its trailing newlines kept: command substitution drops them.
_wf_collect() {
	OUT=$(cat "$_wf_out"; printf x)
	OUT=${OUT%x}
	ERR=$(cat "$_wf_err")
}

wf() {
	"$WICKFS" "$@" </dev/null >"$_wf_out" 2>"$_wf_err"
	RC=$?
	_wf_collect
}

wf_file() {
	local f=$1
	shift
	"$WICKFS" "$@" <"$f" >"$_wf_out" 2>"$_wf_err"
	RC=$?
	_wf_collect
}

wf_in() {
	printf '%s' "$1" >"$_wf_in"
	shift
	wf_file "$_wf_in" "$@"
}

# Compare the last run with an expected exit status and stdout line.
_expect_result() {
	local name=$1 rc=$2 line=$3
	if [ "$RC" == "$rc" ] && [ "$OUT" == "$line"$'\n' ]; then
		pass "$name"
		return 0
	fi
	local d=""
	[ "$RC" == "$rc" ] || d="exit $RC (want $rc); "
	[ "$OUT" == "$line"$'\n' ] &&
		d="${d}stdout ok" ||
		d="${d}stdout $(show "$OUT") want $(show "$line"$'\n')"
	[ -n "$ERR" ] && d="$d; stderr $(show "$ERR")"
	fail "$name" "$d"
	return 1
}

expect() {
	local name=$1 rc=$2 line=$3
	shift 3
	wf "$@"
	_expect_result "$name" "$rc" "$line"
}

expect_in() {
	local name=$1 data=$2 rc=$3 line=$4
	shift 4
	wf_in "$data" "$@"
	_expect_result "$name" "$rc" "$line"
}

_expect_error_result() {
	local name=$1 needle=$2 msg
	if [ "$RC" != 1 ]; then
		fail "$name" "exit $RC (want 1); stdout $(show "$OUT")"
		return 1
	fi
	case $OUT in
	'{"ok":false,"error":"'*'"}'$'\n') ;;
	*)
		fail "$name" "not one error envelope line: $(show "$OUT")"
		return 1
		;;
	esac
	case $OUT in *$'\n'*$'\n')
		fail "$name" "more than one line: $(show "$OUT")"
		return 1
		;;
	esac
	msg=${OUT#'{"ok":false,"error":"'}
	msg=${msg%$'"}\n'}
	# shellcheck disable=SC2053
	if [[ $msg == *$needle* ]]; then
		pass "$name"
		return 0
	fi
	fail "$name" "error $(show "$msg") does not contain $(show "$needle")"
	return 1
}

expect_error() {
	local name=$1 needle=$2
	shift 2
	wf "$@"
	_expect_error_result "$name" "$needle"
}

expect_error_in() {
	local name=$1 data=$2 needle=$3
	shift 3
	wf_in "$data" "$@"
	_expect_error_result "$name" "$needle"
}

# The message of the last error envelope (JSON-escaped form).
err_msg() {
	local m=${OUT#'{"ok":false,"error":"'}
	printf '%s' "${m%$'"}\n'}"
}

tree_state_no_time() {
	tree_state "$1" | sed -E 's/^([^\t]*\t[a-z] [0-7]+) [0-9.]+/\1/'
}

check_tree() {
	if [ -n "${WICKFS_EMULATED_WHOLE_SECONDS:-}" ]; then
		check "$1" "$4" "$(tree_state_no_time "$2")"
		skip "$1.mtime_ns" "$WICKFS_EMULATED_WHOLE_SECONDS"
	else
		check "$1" "$3" "$(tree_state "$2")"
	fi
}

pack_source_tree() {
	local src=$1 long deep i
	mkdir -p "$src/sub/deeper" "$src/empty dir" "$src/private" "$src/many"
	printf 'hello\n' >"$src/hello.txt"
	printf 'secret' >"$src/private/key"
	chmod 0600 "$src/private/key"
	chmod 0750 "$src/private"
	printf '#!/bin/sh\n' >"$src/run.sh"
	chmod 0755 "$src/run.sh"
	: >"$src/empty file"
	printf 'space' >"$src/name with spaces"
	printf 'nl' >"$src/new"$'\n'"line"
	printf 'utf8' >"$src/ünïcödé-名前.txt"
	long=$(printf 'l%.0s' $(seq 1 120))
	printf 'long' >"$src/sub/$long"
	deep=$src/sub/deeper/$(printf 'a%.0s' $(seq 1 90))/$(printf 'b%.0s' $(seq 1 90))/$(printf 'c%.0s' $(seq 1 90))
	mkdir -p "$deep"
	printf 'deep' >"$deep/file-at-depth"
	ln -s hello.txt "$src/link"
	ln -s ../hello.txt "$src/sub/uplink"
	ln -s does-not-exist "$src/dangling"
	ln -s "$(printf 't%.0s' $(seq 1 150))" "$src/longtarget"
	mkfifo "$src/fifo"
	head -c 15000000 /dev/urandom | base64 >"$src/big" # about 20 MB
	for i in $(seq 1 2000); do printf 'small %d\n' "$i" >"$src/many/f$i"; done
	touch -d '2021-03-04 05:06:07.123456789' "$src/hello.txt"
	touch -h -d '2019-01-01 00:00:00.5' "$src/link"
	touch -d '2018-02-03 04:05:06' "$src/empty dir" "$src/sub/deeper"
}

unpack_no_temp() {
	local left
	left=$(find "$2" -name '.wickfs-unpack-*' 2>/dev/null | head -3)
	check "$1" "" "$left"
}

unpack_jail() {
	UNPACK_JAIL=$1
	mkdir -p "$1/outside"
	UNPACK_JAIL_BEFORE=$(unpack_jail_state)
}

unpack_jail_state() {
	# shellcheck disable=SC2010 # a listing to compare, not names to use
	ls -A "$UNPACK_JAIL" | grep -vx h
	ls -A "$UNPACK_JAIL/outside"
}

unpack_hostile() {
	local name=$1 needle=$2 arc=$3
	shift 3
	rm -rf "$UNPACK_JAIL/h"
	mkdir "$UNPACK_JAIL/h"
	wf_file "$arc" unpack "$@" "$UNPACK_JAIL/h/t"
	_expect_error_result "unpack.hostile.$name" "$needle"
	check "unpack.hostile.$name.outside" "$UNPACK_JAIL_BEFORE" "$(unpack_jail_state)"
	unpack_no_temp "unpack.hostile.$name.no_temp" "$UNPACK_JAIL/h"
}

snapshot_store() {
	local store=$1 id=$2 tag=$3 f sha mode sec size
	shift 3
	mkdir -p "$store/objects" "$store/snaps"
	{
		printf 'wickfs-snapshot 1 %s %s\n' "$(date +%s)" "$tag"
		for f in "$@"; do
			sha=$(sha256sum <"$f" | cut -c1-64)
			mkdir -p "$store/objects/${sha:0:2}"
			gzip -c <"$f" >"$store/objects/${sha:0:2}/${sha:2}"
			read -r mode sec size < <(stat -c '%a %Y %s' "$f")
			printf 'f %s %s 0 %s %s %s\n' "$mode" "$sec" "$size" "$sha" "$f"
		done
	} | gzip -c >"$store/snaps/$id"
}

out_field() { printf '%s' "$OUT" | sed -n 's/.*"'"$1"'":\("[^"]*"\|[0-9a-z]*\).*/\1/p' | tr -d '"'; }

# Octal permission bits of a file.
mode_of() { stat -c %a "$1"; }

# A JSON string literal for a plain ASCII path (no quotes or backslashes).
q() { printf '"%s"' "$1"; }

# Run a command with a deadline; fails the check if it hangs. Under
# qemu-user (tests/cross-run) every process start is an emulator's, and a
# loaded machine made 43 daemon commands outlast 60 s: the deadline is
# five times longer there (it only catches hangs, it measures nothing).
with_timeout() {
	local secs=$1
	shift
	[ "${WICKFS_EMULATED:-0}" = 1 ] && secs=$((secs * 5))
	timeout -k 2 "$secs" "$@"
}

# A JSON string literal.
jstr() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}

# tree_state DIR: one line per entry of the tree, DIR/.wickfs left out
# (newlines in names shown as '?'): type, mode, mtime to the nanosecond,
# link target; then every file's content hash. Equal output, equal trees.
tree_state() {
	(
		cd "$1" || exit 1
		find . -mindepth 1 -path ./.wickfs -prune -o -printf '%P\t%y %m %T@ %l\0' | sort -z | tr '\n\0' '?\n'
		find . -path ./.wickfs -prune -o -type f -print0 | sort -z | xargs -0 -r md5sum
	)
}

fsops_fixture() {
	mkdir -p "$1/w"
	cd "$1/w" || exit 1
	printf 'hello\n' >f.txt
	chmod 0640 f.txt
	touch -d '2021-03-04 05:06:07.123456789 UTC' f.txt
	ln -s f.txt lnk
	mkdir -p sd
	chmod 1755 sd
	ln -s nowhere dangle
}

transfer_fixture() {
	mkdir -p "$1"
	cd "$1" || exit 1
	head -c 3000000 /dev/urandom >rand.bin
	mkdir -p src/sub "src/with space" src/.wickfs
	printf 'a' >src/a
	printf 'in .wickfs' >src/.wickfs/state
	ln -s a src/sub/l
	cp rand.bin src/sub/r.bin
}

download_tree() {
	local off
	wf download --tree --limit 1000000 "$1"
	[ "$RC" = 0 ] || return 1
	SPOOL=$(out_field path)
	out_field data | base64 -d >"$2"
	off=$(out_field bytes)
	while [ "$(out_field eof)" != true ]; do
		wf download --remove --offset "$off" --limit 1000000 "$SPOOL"
		[ "$RC" = 0 ] || return 1
		out_field data | base64 -d >>"$2"
		off=$((off + $(out_field bytes)))
	done
}

# ---- processes and daemons ----

PIDS=()
kill_pids() {
	local p
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}

# Builtins only: a tr and a grep per process made one scan take seconds on
# a busy machine, and the bounded waits built on it minutes.
procs_matching() {
	local f a IFS=' '
	for f in /proc/[0-9]*/cmdline; do
		mapfile -d '' a 2>/dev/null <"$f" || continue
		[[ "${a[*]}" == *"$1"* ]] || continue
		f=${f#/proc/}
		echo "${f%/cmdline}"
	done
}

wait_procs_gone() {
	local _
	for _ in $(seq 100); do
		[ -z "$(procs_matching "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}

# fds_settled PID: how many descriptors PID has, counted once the count
# stops changing (a connection of an earlier check may still be closing).
fds_settled() {
	local n m
	n=$(ls /proc/"$1"/fd | wc -l)
	for _ in $(seq 20); do
		sleep 0.1
		m=$(ls /proc/"$1"/fd | wc -l)
		[ "$m" = "$n" ] && break
		n=$m
	done
	echo "$n"
}

daemon_start() {
	local log=$1 _
	shift
	# shellcheck disable=SC2086
	if [ -n "${DAEMON_DIR:-}" ]; then
		(cd "$DAEMON_DIR" && exec ${DAEMON_WRAP:-} "$WICKFS" daemon "$@" 2>"$log") &
	else
		${DAEMON_WRAP:-} "$WICKFS" daemon "$@" 2>"$log" &
	fi
	DPID=$!
	PIDS+=("$DPID")
	for _ in $(seq 200); do
		grep -q "ready:" "$log" 2>/dev/null && return 0
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

daemon_stop() {
	local pid=${1:-$DPID}
	kill -TERM "$pid" 2>/dev/null
	with_timeout 60 tail --pid="$pid" -f /dev/null
	wait "$pid" 2>/dev/null
}

daemon_client() {
	local addr=$1
	shift
	with_timeout 60 "$WICKFS" client --connect "$addr" "$@"
}

daemon_send() {
	local addr=$1
	shift
	with_timeout 60 "$WICKFS" client --connect "$addr" --raw "$@"
}

same_via_daemon() {
	local addr=$1 name=$2 reset=$3 in=$4 cli native cmd args="" a
	shift 4
	for a in "${@:2}"; do args+=${args:+,}$(jstr "$a"); done
	eval "$reset"
	cli=$(printf '%s' "$in" | "$WICKFS" "$@")
	eval "$reset"
	native=$(daemon_send "$addr" "{\"id\":\"1\",\"op\":\"$1\",\"args\":[$args],\"stdin\":$(jstr "$in")}")
	eval "$reset"
	cmd=$(daemon_send "$addr" "{\"id\":\"2\",\"cmd\":$(jstr "wickfs $*"),\"stdin\":$(jstr "$in")}")
	check "$name.native" "{\"id\":\"1\",${cli#\{}" "$native"
	check "$name.cmd" "{\"id\":\"2\",\"stdout\":$(jstr "$cli
"),\"stderr\":\"\",\"exit_code\":$([[ $cli == '{"ok":true'* ]] && echo 0 || echo 1)}" "$cmd"
}

# The MCP peers from npm, at pinned versions, into build/npm: the official
# TypeScript SDK and the reference filesystem server (t_mcp_sdk and
# t_mcp_http use them). One install at a time, whoever asks first (the
# sanitizer pass runs the same scripts, maybe at once). 0 when they are
# there; 1 with why in MCP_NPM_ERR.
MCP_SDK_VERSION=1.32.2
MCP_REF_VERSION=2026.8.31
mcp_npm_install() {
	local top npm_dir
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	npm_dir=$top/build/npm
	MCP_NPM_ERR=
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		MCP_NPM_ERR="node or npm is missing (scripts/deps.sh installs nodejs and npm)"
		return 1
	fi
	mkdir -p "$npm_dir"
	# shellcheck disable=SC2016
	if ! flock "$npm_dir/.lock" bash -c '
		have() { grep -q "\"version\": \"$2\"" "$1" 2>/dev/null; }
		m=$1/node_modules/@modelcontextprotocol
		have "$m/sdk/package.json" "$2" && have "$m/server-filesystem/package.json" "$3" && exit 0
		timeout 300 npm install --prefix "$1" --no-audit --no-fund --loglevel=error \
			"@modelcontextprotocol/sdk@$2" "@modelcontextprotocol/server-filesystem@$3"
	' sh "$npm_dir" "$MCP_SDK_VERSION" "$MCP_REF_VERSION" >"$TEST_TMP/npm.log" 2>&1; then
		MCP_NPM_ERR="npm install failed (no registry?): $(tail -1 "$TEST_TMP/npm.log")"
		return 1
	fi
}
