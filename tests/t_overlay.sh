#!/usr/bin/env bash
# overlay: layers started, written through (--overlay: every applet and
# exec in an overlayfs view), diffed, committed (all or some paths,
# refused when the real file changed, finished after a kill -9) and
# discarded; names and paths refused with errors naming them. The checks
# that mount skip, saying why, where the kernel refuses the namespace or
# overlayfs (a default Docker seccomp profile does).
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/overlay
mkdir -p "$d"
cd "$d" || exit 1

# A build without CONFIG_FEATURE_OVERLAY (`make menuconfig`; the default
# and the releases have it) has no overlay applet and refuses
# WICKFS_OVERLAY.
if ! "$WICKFS" --list | grep -qx overlay; then
	mkdir -p off
	OUT=$(cd off && WICKFS_OVERLAY=x "$WICKFS" ls . 2>&1)
	check overlay.off.refused '{"ok":false,"error":"WICKFS_OVERLAY: this wickfs is built without overlays (CONFIG_FEATURE_OVERLAY): refused, nothing ran"}' "$OUT"
	OUT=$(cd off && "$WICKFS" --overlay x write f 2>&1 </dev/null)
	check_match overlay.off.option_unknown "*unknown applet '--overlay'*" "$OUT"
	check_true overlay.off.nothing_written "a file was written" test ! -e off/f
	skip overlay "built without CONFIG_FEATURE_OVERLAY"
	exit 0
fi

# The real tree as text: every entry (but .wickfs) with type, mode, size
# (not a directory's: tmpfs counts its entries, .wickfs among them) and
# content hash.
real_state() {
	(cd "$1" && find . -path ./.wickfs -prune -o \( -type d -printf '%p %y %m\n' \) \
		-o -printf '%p %y %m %s\n' | sort &&
		find . -path ./.wickfs -prune -o -type f -print0 | sort -z | xargs -0r md5sum)
}

# has NAME TEXT: the last output (OUT) holds TEXT, literally.
has() {
	if [[ $OUT == *"$2"* ]]; then pass "$1"; else fail "$1" "no $(show "$2") in $(show "$OUT")"; fi
}

# ---- names, paths and commands refused without a mount ----
mkdir -p n
expect_error overlay.bad_name 'overlay start a/b: not a name for an overlay*' overlay start a/b n
expect_error overlay.bad_name_dots 'overlay start ..: not a name*' overlay start .. n
expect_error overlay.unknown_command 'overlay frob: unknown command*' overlay frob x n
expect_error overlay.no_such 'overlay diff nope: no such overlay in n (wickfs overlay start nope)' \
	overlay diff nope n
expect_error overlay.no_such_view 'overlay nope: no such overlay in *' --overlay nope ls n
expect_error overlay.needs_name 'overlay diff: needs a NAME*' overlay diff
expect overlay.list_none 0 '{"ok":true,"data":{"overlays":[]}}' overlay list n
WICKFS_READONLY=1 expect_error overlay.readonly 'overlay start n: refused, WICKFS_READONLY is set' \
	overlay start x n

# ---- can this kernel give us the view? ----
mkdir -p probe
wf overlay start p probe
(cd probe && "$WICKFS" --overlay p exists .) >probe.out 2>&1
if ! grep -q '"ok":true' probe.out; then
	skip overlay.view "the kernel refuses the namespace or overlayfs here: $(head -c 300 probe.out)"
	exit 0
fi

# ---- refused, never run on the real tree, where the kernel says no ----
# (simulated: no CAP_SYS_ADMIN, and no user namespace left to make)
if ! command -v setpriv >/dev/null || ! unshare -Ur true 2>/dev/null; then
	skip overlay.refused "needs setpriv and user namespaces to simulate a refusal"
else
	refused() {
		(cd probe && unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
			exec setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$@"' sh "$WICKFS" "$@")
	}
	OUT=$(refused --overlay p exec 'echo ran > ran')
	has overlay.refused.exec '{"ok":false,"error":"overlay p: unshare on .: No space left on device; refused, nothing ran"}'
	OUT=$(printf 'x' | WICKFS_OVERLAY=p refused write w.txt)
	has overlay.refused.write '"error":"overlay p: unshare on .: '
	check overlay.refused.untouched "" "$(ls probe)"
fi

# ---- a session: change through the view, the real tree untouched ----
mkdir -p w/dd w/sub
printf 'one\ntwo\nthree\n' >w/a.txt
printf 'gone\n' >w/g.txt
printf 'x\n' >w/dd/f
printf 'keep\n' >w/sub/k
chmod 644 w/sub/k
cd w || exit 1
before=$(real_state .)
wf overlay start try
has overlay.start '{"ok":true,"data":{"name":"try","entries":6}}'
expect_error overlay.start_twice 'overlay start try: already started in . (overlay discard try first)' \
	overlay start try
wf_in $'one\nTWO\nthree\n' --overlay try write a.txt
check_match overlay.write "*\"bytes_written\":14*" "$OUT"
wf --overlay try rm g.txt
check_match overlay.rm '*"removed":1*' "$OUT"
wf --overlay try mv dd ee
check_match overlay.mv_dir '{"ok":true,*' "$OUT"
wf --overlay try mkdir newd
wf --overlay try chmod 600 sub/k
"$WICKFS" --overlay try exec 'echo hi > newd/n' >/dev/null
check overlay.real_untouched "$before" "$(real_state .)"
wf --overlay try read a.txt
check overlay.view_reads_layer '{"ok":true,"data":"one\nTWO\nthree\n"}' "${OUT%$'\n'}"
wf --overlay try exists g.txt
check_match overlay.view_whiteout '*"exists":false*' "$OUT"
wf --overlay try ls ee
check_match overlay.view_renamed_dir '*"name":"f"*' "$OUT"
check_true overlay.layer_whiteout "upper/g.txt is not a char device 0/0" \
	test "$(stat -c '%F %t %T' .wickfs/overlay/try/upper/g.txt 2>&1)" = "character special file 0 0"

# A command in the view cannot reach the layer (the kernel's trap), and
# what it writes under .wickfs stays out of diff and commit.
wf --overlay try exec 'echo x > .wickfs/overlay/try/upper/z; echo $?; mkdir -p .wickfs/k; echo k > .wickfs/k/f'
has overlay.layer_trapped 'upper/z: Too many levels of symbolic links'
# Confined applets never reach the layer by a path.
expect_error overlay.confined_refused '*.wickfs*' --root . read .wickfs/overlay/try/meta

wf overlay diff try
check overlay.diff.lists '"added":["ee","ee/f","newd","newd/n"],"changed":["a.txt"],"deleted":["dd","g.txt"],"mode_changed":["sub/k"]' \
	"$(sed 's/.*"name":"try",\(.*\),"diff".*/\1/' <<<"$OUT")"
has overlay.diff.unified '"diff":"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n'
has overlay.diff.deleted_text '--- a/g.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n'
wf -t overlay diff try
check_match overlay.diff.text '*changed:*a.txt*-two*+TWO*' "$OUT"
wf overlay list
has overlay.list '{"ok":true,"data":{"overlays":[{"name":"try","started":'
has overlay.list.not_interrupted '"commit_interrupted":false}]}}'

wf overlay commit try
has overlay.commit '{"ok":true,"data":{"name":"try","added":["ee","ee/f","newd","newd/n"],"changed":["a.txt"],"deleted":["dd","g.txt"],"mode_changed":["sub/k"],"resumed":false}}'
check overlay.commit.applied "$(printf 'one\nTWO\nthree|hi|x|600|no g|no dd')" \
	"$(cat a.txt)|$(cat newd/n)|$(cat ee/f)|$(stat -c %a sub/k)|$([ -e g.txt ] || echo no g)|$([ -e dd ] || echo no dd)"
check overlay.commit.no_state_dir "" "$(ls -d .wickfs/k 2>/dev/null)"
# (what the command wrote under .wickfs stays in the layer, and out)
check overlay.commit.upper_empty ".wickfs" "$(ls -A .wickfs/overlay/try/upper)"
wf overlay diff try
has overlay.diff_after_commit '"added":[],"changed":[],"deleted":[],"mode_changed":[],"diff":""}}'
# the layer goes on: a second change to a committed file commits too
wf_in 'again' --overlay try write a.txt
wf overlay commit try a.txt
check overlay.commit_again "again" "$(cat a.txt)"
wf overlay discard try
check_match overlay.discard '{"ok":true,"data":{"name":"try","discarded":true}}*' "$OUT"
check overlay.discard.gone "" "$(ls -A .wickfs/overlay | grep -x try)"
cd "$d" || exit 1

# ---- refused when the real file changed; PATHs; all or nothing ----
mkdir -p r
printf 'orig\n' >r/f.txt
printf 'stay\n' >r/s.txt
wf overlay start r r
(cd r && printf 'mine\n' | "$WICKFS" --overlay r write f.txt >/dev/null &&
	printf 'new\n' | "$WICKFS" --overlay r write new.txt >/dev/null &&
	"$WICKFS" --overlay r rm s.txt >/dev/null)
printf 'theirs\n' >>r/f.txt
expect_error overlay.commit_refused 'overlay commit r: r/f.txt changed since the overlay started; nothing committed' \
	overlay commit r --dir r
check overlay.commit_refused.nothing "$(printf 'orig\ntheirs\n')|no new|stay" \
	"$(cat r/f.txt)|$([ -e r/new.txt ] && echo new || echo no new)|$(cat r/s.txt)"
printf 'x\n' >r/s2.txt
(cd r && "$WICKFS" --overlay r rm s2.txt >/dev/null 2>&1)
expect_error overlay.commit_created 'overlay commit r: r/s2.txt was created since the overlay started*' \
	overlay commit r s2.txt --dir r
expect_error overlay.commit_outside 'overlay commit r: ../x: not a path inside r*' overlay commit r ../x --dir r
expect_error overlay.commit_state 'overlay commit r: .wickfs/key: not a path inside r*' \
	overlay commit r .wickfs/key --dir r
expect_error overlay.commit_nothing 'overlay commit r: nope: no change there in the overlay' \
	overlay commit r nope --dir r
wf overlay commit r new.txt s.txt --dir r
has overlay.commit_paths '"added":["new.txt"],"changed":[],"deleted":["s.txt"]'
check overlay.commit_paths.applied "$(printf 'orig\ntheirs\n')|new|no s" \
	"$(cat r/f.txt)|$(cat r/new.txt)|$([ -e r/s.txt ] || echo no s)"
wf overlay discard r r
# A directory the layer merges into, replaced underneath by a file: never
# removed for it.
mkdir -p r2/sub
wf overlay start r2 r2
(cd r2 && printf 'a' | "$WICKFS" --overlay r2 write sub/a >/dev/null)
rm -r r2/sub && printf 'mine\n' >r2/sub
expect_error overlay.commit_dir_replaced 'overlay commit r2: r2/sub changed since the overlay started; nothing committed' \
	overlay commit r2 --dir r2
check overlay.commit_dir_replaced.kept "mine" "$(cat r2/sub)"
check overlay.discard_unapplied "$(printf 'orig\ntheirs\n')" "$(cat r/f.txt)"

# ---- confined: DIR is the root; binary files ----
mkdir -p c
printf 'a\0b' >c/bin
wf --root c overlay start c
has overlay.root.start '"name":"c"'
printf 'a\0c' | "$WICKFS" --root c --overlay c write bin >/dev/null
printf 'new' | "$WICKFS" --overlay c --root c write sub/n >/dev/null
# after the applet's name, --overlay is the applet's argument, literally
printf 'x' | "$WICKFS" --root c write --overlay >/dev/null 2>&1
check overlay.root.literal_after_applet "x" "$(cat c/--overlay 2>/dev/null)"
rm -f c/--overlay
wf --root c --overlay c read sub/n
has overlay.root.view '{"ok":true,"data":"new"}'
check overlay.root.untouched "no sub" "$(ls c/sub 2>/dev/null || echo no sub)"
wf --root c overlay diff c
has overlay.root.binary_diff '"diff":"Binary files a/bin and b/bin differ\n--- /dev/null\n+++ b/sub/n\n'
wf --root c overlay commit c
check overlay.root.commit "new" "$(cat c/sub/n)"

# ---- kill -9 during a commit: each file old or new, then finished ----
n=2000
mkdir -p k
(cd k && for i in $(seq 1 $n); do printf 'old %s\n' "$i" >"f$i"; done)
kstate() {
	local bad=0 i c nold=0 nnew=0
	for ((i = 1; i <= n; i++)); do
		c=
		read -r c <"k/f$i"
		if [ "$c" = "old $i" ]; then
			nold=$((nold + 1))
		elif [ "$c" = "new $i with more" ]; then
			nnew=$((nnew + 1))
		else
			bad=$((bad + 1))
		fi
	done
	echo "$nold $nnew $bad"
}
# The kill lands once the first file is in place (the checks passed, the
# journal is written), while the renames go on; a commit that finishes first is tried again, a kill
# before the journal leaves the tree as it was and the layer whole.
wf overlay start k k
(cd k && WICKFS_OVERLAY=k "$WICKFS" exec \
	"for i in \$(seq 1 $n); do printf 'new %s with more\n' \$i > f\$i; done") >/dev/null
caught=0
for try in 1 2 3; do
	"$WICKFS" overlay commit k --dir k >/dev/null 2>&1 &
	pid=$!
	# until the first file (in the order of the commit's walk) is new
	c=
	while kill -0 "$pid" 2>/dev/null && [ "$c" != "new 1 with more" ]; do
		read -r c <k/f1
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -e k/.wickfs/overlay/k/commit ]; then
		caught=1
		break
	fi
	[ -z "$(ls -A k/.wickfs/overlay/k/upper)" ] || continue
	(cd k && WICKFS_OVERLAY=k "$WICKFS" exec \
		"for i in \$(seq 1 $n); do printf 'new %s with more\n' \$i > f\$i; done") >/dev/null
done
if [ "$caught" = 0 ]; then
	skip overlay.kill9 "no kill landed between a commit's journal and its end (3 tries)"
else
	read -r nold nnew bad < <(kstate)
	check overlay.kill9.each_old_or_new "0 bad" "$bad bad"
	check_true overlay.kill9.mixed "old $nold, new $nnew: the kill landed before or after the renames" \
		test "$nold" -gt 0 -a "$nnew" -gt 0
	wf overlay list k
	check_match overlay.kill9.listed '*"commit_interrupted":true*' "$OUT"
	expect_error overlay.kill9.view_refused 'overlay k: a commit was interrupted*' --overlay k --root k ls
	wf overlay commit k --dir k
	check_match overlay.kill9.resumed '*"resumed":true}}*' "$OUT"
	check overlay.kill9.finished "0 $n 0" "$(kstate)"
fi

# ---- a daemon request's "overlay": that applet in the layer ----
mkdir -p dm
printf 'one\n' >dm/a.txt
wf overlay start dv dm
if daemon_start "$d/dm.log" --listen off --socket "$d/dm.sock" --root "$d/dm"; then
	rq() { daemon_send "unix:$d/dm.sock" "$1"; }
	check overlay.daemon.write '{"id":"1","ok":true,"data":{"path":"a.txt","bytes_written":4}}' \
		"$(rq '{"id":"1","op":"write","args":["a.txt"],"stdin":"TWO\n","overlay":"dv"}')"
	check overlay.daemon.reads_layer '{"id":"2","ok":true,"data":"TWO\n"}' \
		"$(rq '{"id":"2","op":"read","args":["a.txt"],"overlay":"dv"}')"
	check overlay.daemon.real_untouched '{"id":"3","ok":true,"data":"one\n"}' \
		"$(rq '{"id":"3","op":"read","args":["a.txt"]}')"
	check overlay.daemon.exec '{"id":"4","ok":true,"data":{"stdout":"TWO\n","stderr":"","exit_code":0}}' \
		"$(rq '{"id":"4","op":"exec","args":["cat a.txt; echo x > b.txt"],"overlay":"dv"}')"
	check overlay.daemon.exec_real_untouched "one|no b" "$(cat dm/a.txt)|$([ -e dm/b.txt ] || echo no b)"
	check_match overlay.daemon.no_such '{"id":"5","ok":false,"error":"overlay nope: no such overlay in *' \
		"$(rq '{"id":"5","op":"read","args":["a.txt"],"overlay":"nope"}')"
	check overlay.daemon.cmd '{"id":"6","stdout":"TWO\n","stderr":"","exit_code":0}' \
		"$(rq '{"id":"6","cmd":"cat a.txt","overlay":"dv"}')"
	check_match overlay.daemon.start '*"ok":true*' \
		"$(rq '{"id":"6s","op":"start","tag":"ovp","args":["echo bg > bg.txt"],"overlay":"dv"}')"
	check_match overlay.daemon.start_ended '*"exit_code":0*' "$(rq '{"id":"6w","op":"wait","tag":"ovp"}')"
	check overlay.daemon.session '{"id":"6x","ok":true,"data":{"stdout":"TWO\n","stderr":"","exit_code":0}}' \
		"$(rq '{"id":"6x","op":"exec","args":["cat a.txt"],"session":"s1","overlay":"dv"}')"
	check_match overlay.daemon.runs_nothing '{"id":"6y","ok":false,"error":"field ?"overlay?": this request runs nothing*' \
		"$(rq '{"id":"6y","op":"watch","path":".","overlay":"dv"}')"
	check overlay.daemon.cmd_refused '{"id":"6z","stdout":"","stderr":"","exit_code":1,"error":"overlay nope: no such overlay in '"$d/dm"' (wickfs overlay start nope): No such file or directory"}' \
		"$(rq '{"id":"6z","cmd":"touch ran","overlay":"nope"}')"
	check overlay.daemon.cmd_refused_nothing_ran "no ran" "$([ -e dm/ran ] || echo no ran)"
	check_match overlay.daemon.not_a_name '{"id":"7","ok":false,"error":"field ?"overlay?" must be the name of an overlay"}' \
		"$(rq '{"id":"7","op":"read","args":["a.txt"],"overlay":7}')"
	check_match overlay.daemon.stdin_needed '*"id":"8","ok":false,"error":"write: field ?"stdin?" is missing*' \
		"$(rq '{"id":"8","op":"write","args":["c.txt"],"overlay":"dv"}')"
	daemon_stop
	OUT=$("$WICKFS" overlay diff dv dm)
	has overlay.daemon.diff '"added":["b.txt","bg.txt"],"changed":["a.txt"]'
	# an MCP server in the layer: --overlay before the applet
	OUT=$(printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"m.txt","content":"via mcp"}}}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}' |
		"$WICKFS" --overlay dv --root "$d/dm" mcp "$d/dm" 2>/dev/null)
	has overlay.mcp.reads_layer '"id":2,"result":{"content":[{"type":"text","text":"TWO\n"}]'
	check overlay.mcp.real_untouched "no m" "$([ -e dm/m.txt ] || echo no m)"
	OUT=$("$WICKFS" overlay diff dv dm)
	has overlay.mcp.diff '"added":["b.txt","bg.txt","m.txt"]'
else
	fail overlay.daemon.start "$(cat "$d/dm.log")"
fi

# ---- without CAP_SYS_ADMIN: a user namespace (userxattr) ----
u=65534
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip overlay.userns "needs root (to run a check as uid $u) and setpriv"
elif ! setpriv --reuid=$u --regid=$u --clear-groups unshare -Ur true 2>/dev/null; then
	skip overlay.userns "unprivileged user namespaces are refused here"
else
	mkdir -p un/w/d && printf 'b\n' >un/w/d/b && printf 'a\n' >un/w/a
	chown -R $u:$u un
	chmod 755 "$TEST_TMP" "$d"
	asu() { (cd un/w && setpriv --reuid=$u --regid=$u --clear-groups "$WICKFS" "$@"); }
	asu overlay start u >/dev/null
	printf 'A\n' | asu --overlay u write a >/dev/null
	asu --overlay u exec 'rm -r d && mkdir d && echo c > d/c' >/dev/null
	OUT=$(asu overlay diff u)
	has overlay.userns.diff '"added":["d/c"],"changed":["a"],"deleted":["d/b"]'
	check overlay.userns.untouched "a|b" "$(cat un/w/a)|$(cat un/w/d/b)"
	out=$(asu overlay commit u)
	check_match overlay.userns.commit '{"ok":true,*' "$out"
	check overlay.userns.applied "A|c|no b" "$(cat un/w/a)|$(cat un/w/d/c)|$([ -e un/w/d/b ] || echo no b)"
	out=$(asu overlay discard u)
	check_match overlay.userns.discard '*"discarded":true*' "$out"
fi
