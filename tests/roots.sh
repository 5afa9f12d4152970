# shellcheck shell=bash
# tests/roots.sh - sourced by tests/t_inject_*.sh (after tests/lib.sh): the
# roots that stand for real images, entered as root through a mount
# namespace held open by one sleeping process.
#
#   roots_ns_start          a private mount (and network) namespace, held by
#                           NS_PID; stopped by that PID at exit
#   in_ns CMD...            run CMD in that namespace (outside any root)
#   NS=(nsenter ...)        the prefix in_ns uses, for commands that need a
#                           program rather than a function (timeout, &)
#   IN_ROOT=(CMD...)        the test sets it: the command prefix that runs
#                           a program inside its root ("${NS[@]}" chroot ...)
#   in_root CMD...          run CMD through IN_ROOT, with a deadline
#   rr NAME STDIN WANT ARGS...   run `wickfs ARGS` in the root; stdout must
#                           be WANT and the exit status 0
#   rr_match NAME STDIN PATTERN ARGS...   the same, stdout matching PATTERN
#   applet_sweep PREFIX WS  every applet once on the empty workspace WS (an
#                           absolute path inside the root), exact answers
#   sweep_covers NAME APPLET...  `wickfs --list` in the root is exactly the
#                           applets the sweep ran plus APPLET...: a new
#                           applet fails here until a root test runs it

NS_PID=""

roots_ns_stop() {
	[ -n "$NS_PID" ] && kill -KILL "$NS_PID" 2>/dev/null && wait "$NS_PID" 2>/dev/null
	NS_PID=""
}

# A namespace of our own: mounts made in it vanish with its last process,
# so nothing is left mounted on the host even if the test is killed.
# Extra unshare flags (-n) may be given.
# shellcheck disable=SC2120 # the flags are optional
roots_ns_start() {
	unshare -m --propagation private "$@" sleep 3600 </dev/null >/dev/null 2>&1 &
	NS_PID=$!
	# -r: entering a mount namespace resets the root to its "/"; keep the
	# holder's, which is not "/" when the suite itself runs chrooted.
	NS=(nsenter -t "$NS_PID" -m -r)
	[ "$*" = -n ] && NS+=(-n)
	trap roots_ns_stop EXIT
	local _
	for _ in $(seq 100); do
		[ "$(readlink "/proc/$NS_PID/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] && return 0
		kill -0 "$NS_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

NS=()
in_ns() { "${NS[@]}" "$@"; }
in_root() { timeout -k 2 60 "${IN_ROOT[@]}" "$@"; }

_rr_run() {
	local in=$1
	shift
	RR_OUT=$(printf '%s' "$in" | in_root wickfs "$@" 2>"$TEST_TMP/rr.err")
	RR_RC=$?
}

RR_APPLETS=""
rr() {
	local name=$1 in=$2 want=$3
	shift 3
	RR_APPLETS+=" $1"
	_rr_run "$in" "$@"
	if [ "$RR_OUT" == "$want" ] && [ "$RR_RC" = 0 ]; then
		pass "$name"
	else
		fail "$name" "exit $RR_RC, stdout $(show "$RR_OUT") want $(show "$want"); stderr $(show "$(cat "$TEST_TMP/rr.err")")"
	fi
}

rr_match() {
	local name=$1 in=$2 pat=$3
	shift 3
	RR_APPLETS+=" $1"
	_rr_run "$in" "$@"
	# shellcheck disable=SC2053
	if [[ $RR_OUT == $pat ]] && [ "$RR_RC" = 0 ]; then
		pass "$name"
	else
		fail "$name" "exit $RR_RC, stdout $(show "$RR_OUT") want to match $(show "$pat"); stderr $(show "$(cat "$TEST_TMP/rr.err")")"
	fi
}

# Every applet but exec, client and daemon (which need a shell or a second
# process; each test checks them its own way), in an order where each
# answer is known exactly.
applet_sweep() {
	local p=$1 w=$2 ok='{"ok":true,"data":'
	rr "$p.write" $'alpha\nneedle\n' "$ok{\"path\":\"$w/a.txt\",\"bytes_written\":13}}" write "$w/a.txt"
	rr "$p.read" "" "$ok\"alpha\\nneedle\\n\"}" read "$w/a.txt"
	rr "$p.edit" '{"old_text":"alpha","new_text":"beta"}' "$ok{\"path\":\"$w/a.txt\",\"replacements\":1}}" edit "$w/a.txt"
	rr "$p.patch" '[{"old_text":"beta","new_text":"gamma"}]' "$ok{\"path\":\"$w/a.txt\",\"hunks\":1}}" patch "$w/a.txt"
	rr "$p.append" $'tail\n' "$ok{\"path\":\"$w/a.txt\",\"bytes_written\":5}}" append "$w/a.txt"
	rr "$p.mkdir" "" "$ok{\"path\":\"$w/sub\",\"created\":true}}" mkdir "$w/sub"
	rr "$p.cp" "" "$ok{\"src\":\"$w/a.txt\",\"dst\":\"$w/sub/b.txt\",\"copied\":1}}" cp "$w/a.txt" "$w/sub/b.txt"
	rr "$p.mv" "" "$ok{\"src\":\"$w/sub/b.txt\",\"dst\":\"$w/sub/c.txt\",\"copied\":false}}" mv "$w/sub/b.txt" "$w/sub/c.txt"
	rr "$p.append2" $'more\n' "$ok{\"path\":\"$w/sub/c.txt\",\"bytes_written\":5}}" append "$w/sub/c.txt"
	rr "$p.chmod" "" "$ok{\"path\":\"$w/sub/c.txt\",\"mode\":\"0600\"}}" chmod 600 "$w/sub/c.txt"
	rr_match "$p.stat" "" "$ok{\"path\":\"$w/sub/c.txt\",\"type\":\"file\",\"size\":23,\"mode\":\"0600\",\"perm\":\"-rw-------\",*" stat "$w/sub/c.txt"
	rr "$p.exists" "" "$ok{\"path\":\"$w/sub/c.txt\",\"exists\":true,\"type\":\"file\"}}" exists "$w/sub/c.txt"
	rr "$p.exists_not" "" "$ok{\"path\":\"$w/nope\",\"exists\":false}}" exists "$w/nope"
	rr "$p.ls" "" "${ok}[{\"name\":\"c.txt\",\"type\":\"file\",\"size\":23}]}" ls "$w/sub"
	rr "$p.grep" "" "$ok{\"matches\":[{\"file\":\"$w/a.txt\",\"line\":2,\"text\":\"needle\"},{\"file\":\"$w/sub/c.txt\",\"line\":2,\"text\":\"needle\"}],\"truncated\":false}}" grep needle "$w"
	rr "$p.glob" "" "$ok{\"files\":[\"$w/a.txt\",\"$w/sub/c.txt\"],\"truncated\":false}}" glob '*.txt' "$w"
	rr "$p.diff" "" "$ok{\"diff\":\"--- $w/a.txt\\n+++ $w/sub/c.txt\\n@@ -1,3 +1,4 @@\\n gamma\\n needle\\n tail\\n+more\\n\",\"added\":1,\"removed\":0}}" diff "$w/a.txt" "$w/sub/c.txt"
	rr "$p.symlink" "" "$ok{\"path\":\"$w/l\",\"target\":\"a.txt\"}}" symlink a.txt "$w/l"
	rr "$p.readlink" "" "$ok{\"path\":\"$w/l\",\"target\":\"a.txt\"}}" readlink "$w/l"
	rr "$p.rm" "" "$ok{\"path\":\"$w/l\",\"removed\":1}}" rm "$w/l"
	rr "$p.apply_patch" "*** Begin Patch
*** Add File: $w/new.txt
+hello
*** Update File: $w/a.txt
@@
 gamma
-needle
+pin
*** End Patch
" "$ok{\"files\":[{\"op\":\"add\",\"path\":\"$w/new.txt\"},{\"op\":\"update\",\"path\":\"$w/a.txt\"}]}}" apply-patch
	rr "$p.apply_patch.result" "" "$ok\"gamma\\npin\\ntail\\n\"}" read "$w/a.txt"
	rr_match "$p.pack" "" "$ok{\"files\":1,\"dirs\":0,\"symlinks\":0,\"bytes\":23,\"compressed_bytes\":[1-9]*,\"skipped\":[],\"skipped_total\":0}}" pack --output "$w/t.tgz" "$w/sub"
	rr_match "$p.unpack" "" "$ok{\"files\":1,\"dirs\":0,\"symlinks\":0,\"bytes\":23,*}" unpack --input "$w/t.tgz" "$w/out"
	rr "$p.unpack.result" "" "$ok\"gamma\\nneedle\\ntail\\nmore\\n\"}" read "$w/out/c.txt"
	rr "$p.rm_r" "" "$ok{\"path\":\"$w/out\",\"removed\":2}}" rm -r "$w/out"
	rr_match "$p.snapshot" "" "$ok{\"id\":\"*\",\"tag\":\"s1\",*\"files\":4,\"dirs\":1,\"symlinks\":0,*" snapshot --tag s1 "$w"
	rr_match "$p.snapshots" "" "$ok{\"snapshots\":?{\"id\":\"*\",\"tag\":\"s1\",*}?}}" snapshots "$w"
	rr "$p.upload" "aGkK" "$ok{\"path\":\"$w/up.txt\",\"offset\":0,\"bytes\":3,\"size\":3,\"done\":true}}" upload --last "$w/up.txt"
	rr "$p.download" "" "$ok{\"path\":\"$w/up.txt\",\"offset\":0,\"bytes\":3,\"size\":3,\"eof\":true,\"data\":\"aGkK\"}}" download "$w/up.txt"
	rr_match "$p.restore" "" "$ok{\"id\":\"*\",\"deleted\":?\"up.txt\"?,\"recreated\":??,\"reverted\":??}}" restore s1 "$w"
	rr "$p.restore.result" "" "$ok{\"path\":\"$w/up.txt\",\"exists\":false}}" exists "$w/up.txt"
	rr "$p.init" "" "$ok{\"path\":\"$w/nope\",\"exists\":false}}" init -- wickfs exists "$w/nope"
	rr_match "$p.mcp" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"'"$w"'/sub"}}}
' '*"id":1,"result":{"protocolVersion":"2025-06-18"*"id":2,"result":{"content":?{"type":"text","text":"\[FILE\] c.txt"}?*' mcp "$w"
	rr_match "$p.check" "file:
  $w:
    exists: true
    filetype: directory
" "*Count: 2, Failed: 0, Skipped: 0*" check -g -
	rr_match "$p.overlay" "" "$ok{\"name\":\"o1\",\"entries\":[1-9]*}}" overlay start o1 "$w"
	rr_match "$p.overlay.discard" "" "$ok{\"name\":\"o1\",*\"discarded\":true*}}" overlay discard o1 "$w"
}

sweep_covers() {
	local name=$1 want got
	shift
	# shellcheck disable=SC2086 # one applet a word
	want=$(printf '%s\n' $RR_APPLETS "$@" | sort -u | tr '\n' ' ')
	got=$(in_root wickfs --list </dev/null | sort -u | tr '\n' ' ')
	check "$name" "$want" "$got"
}
