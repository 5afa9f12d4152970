#!/usr/bin/env bash
# The filesystem applets together: what is one rule over all of them
# rather than one applet's behaviour, so it is not in a t_APPLET.sh
# (each applet's own checks are in t_exists, t_mkdir, t_rm, t_mv, t_cp,
# t_append, t_symlink, t_readlink, t_chmod; stat's in t_stat): --help for
# each; WICKFS_READONLY; escapes under WICKFS_ROOT, also with a component
# swapped for a link to the outside during the call
# (tests/helpers/swapper.c); 50 appends racing 50 edits of one file; the
# same bytes from the CLI, the daemon's fast path and its native op form.
. "$(dirname "$0")/lib.sh"
tests_dir=$(cd "$(dirname "$0")" && pwd)

t=$TEST_TMP/fsops
fsops_fixture "$t"
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT

# ---- --help and usage for every applet ----
for a in stat exists mkdir rm mv cp append symlink readlink chmod; do
	wf "$a" --help
	check_match "fsops.help.$a" "0 usage: wickfs $a*" "$RC $OUT"
	wf "$a" --help
	check "fsops.help_rc.$a" 0 "$RC"
done

# ---- WICKFS_READONLY ----
# what the refused calls would have changed: a directory, and a link
mkdir m
ln -s /etc/passwd sl
printf ro >ro.txt
ro() { WICKFS_READONLY=1 "$WICKFS" "$@" </dev/null; }
for c in "mkdir rodir" "rm ro.txt" "rm -rf m" "mv ro.txt ro2" "cp ro.txt ro2" "append ro.txt" \
	"symlink x rolink" "chmod 600 ro.txt"; do
	# shellcheck disable=SC2086
	out=$(ro $c)
	check_match "fsops.readonly.${c%% *}.${c##* }" '{"ok":false,"error":"'"${c%% *}"' *: refused, WICKFS_READONLY is set"}' "$out"
done
check fsops.readonly.untouched "ro 644 no no no no" \
	"$(cat ro.txt) $(stat -c %a ro.txt) $([ -e rodir ] && echo yes || echo no) $([ -e ro2 ] && echo yes || echo no) $([ -L rolink ] && echo yes || echo no) $([ -d m ] || echo yes)no"
check_match fsops.readonly.stat_allowed '{"ok":true,*' "$(ro stat ro.txt)"
check_match fsops.readonly.exists_allowed '{"ok":true,*' "$(ro exists ro.txt)"
check_match fsops.readonly.readlink_allowed '{"ok":true,*' "$(ro readlink sl)"

# ---- confinement under WICKFS_ROOT ----
ws=$t/ws
out=$t/out
mkdir -p "$ws/d/sub" "$out/o/sub"
printf 'inside\n' >"$ws/d/f.txt"
printf 'SECRET\n' >"$out/o/f.txt"
printf 'SECRET\n' >"$out/o/sub/g.txt"
chmod 0644 "$out/o/f.txt"
ln -s "$out/o" "$ws/esc"       # a link out of the root
ln -s ../out/o "$ws/esc_rel"
ln -s "$out/o/f.txt" "$ws/escf"
snapshot() { (cd "$out" && find . -printf '%p %s %m %l\n' | sort && cat o/f.txt o/sub/g.txt); }
before=$(snapshot)
cd "$ws" || exit 1
C() { WICKFS_ROOT=$ws "$WICKFS" "$@"; }
confined() { # NAME STDIN ARGS...: must fail, naming the workspace root
	local name=$1 in=$2 o
	shift 2
	o=$(printf '%s' "$in" | C "$@")
	check_match "fsops.confine.$name" '{"ok":false,"error":"'"$1"' *workspace root*"}' "$o"
}
confined stat_via_link "" stat esc/f.txt
confined stat_follow_out "" stat --follow escf
confined stat_dotdot "" stat ../out/o/f.txt
confined exists_via_link "" exists esc/f.txt
confined exists_dotdot "" exists ../out/o/f.txt
confined mkdir_via_link "" mkdir esc/new
confined mkdir_p_via_link "" mkdir -p esc/new/deeper
confined mkdir_abs "" mkdir "$out/o/new"
confined rm_via_link "" rm esc/f.txt
confined rm_r_via_link "" rm -r esc/sub
confined rm_f_via_link "" rm -f esc/f.txt
confined rm_dotdot "" rm -r ..
confined mv_src_out "" mv esc/f.txt d/stolen
confined mv_dst_out "" mv d/f.txt esc/put
confined cp_src_via_link "" cp esc/f.txt d/stolen
confined cp_r_src_via_link "" cp -r esc/sub d/stolen
confined cp_dst_out "" cp d/f.txt esc/put
confined cp_into_link_out "" cp d/f.txt esc
confined cp_r_into_link_out "" cp -r d/sub esc_rel
confined mv_into_link_out "" mv d/f.txt esc
confined mv_into_dotdot "" mv d/f.txt ..
confined append_through_link "x" append escf
confined append_via_link "x" append esc/f.txt
confined symlink_in_out_dir "" symlink x esc/newlink
confined readlink_via_link "" readlink esc/x
confined chmod_through_link "" chmod 777 escf
confined chmod_via_link "" chmod 777 esc/f.txt
confined chmod_dotdot "" chmod 777 ../out/o/f.txt
confined ls_depth_via_link "" ls --depth 2 esc
confined ls_long_via_link "" ls --long esc
confined write_append_through_link "x" write --append escf
confined write_no_clobber_via_link "x" write --no-clobber esc/new.txt
# What the root allows: links that point out are data.
check fsops.confine.symlink_out_ok '{"ok":true,"data":{"path":"d/out","target":"'"$out/o/f.txt"'"}}' "$(C symlink "$out/o/f.txt" d/out)"
check fsops.confine.readlink_out_ok '{"ok":true,"data":{"path":"escf","target":"'"$out/o/f.txt"'"}}' "$(C readlink escf)"
check_match fsops.confine.stat_link_itself '{"ok":true,*"link_target":"'"$out/o/f.txt"'"}}' "$(C stat escf)"
check fsops.confine.exists_link_itself '{"ok":true,"data":{"path":"escf","exists":true,"type":"symlink"}}' "$(C exists escf)"
check_match fsops.confine.cp_link_as_link '{"ok":true,*' "$(C cp escf d/copied_link)"
C cp escf/ d/slashcopy >/dev/null
check fsops.confine.cp_slash_link_as_link "$out/o/f.txt" "$(readlink "$ws/d/slashcopy")"
check fsops.confine.cp_link_as_link_target "$out/o/f.txt" "$(readlink "$ws/d/copied_link")"
mkdir -p "$ws/tree/in"
ln -s "$out/o" "$ws/tree/in/toout"
check_match fsops.confine.cp_r_with_out_link '{"ok":true,*' "$(C cp -r tree tree2)"
check fsops.confine.cp_r_link_kept "$out/o" "$(readlink "$ws/tree2/in/toout")"
check_match fsops.confine.rm_r_with_out_link '{"ok":true,*' "$(C rm -r tree2)"
check_match fsops.confine.mv_link_itself '{"ok":true,*' "$(C mv escf escf2)"
check_match fsops.confine.rm_link_itself '{"ok":true,*' "$(C rm escf2)"
check_match fsops.confine.mkdir_in '{"ok":true,*' "$(C mkdir -p "$ws/d/new/deeper")"
check_match fsops.confine.append_in '{"ok":true,*' "$(printf 'more\n' | C append d/f.txt)"
check_match fsops.confine.chmod_in '{"ok":true,*' "$(C chmod 600 d/f.txt)"
check_match fsops.confine.stat_root '{"ok":true,"data":{"path":".","type":"dir",*' "$(C stat .)"
check_match fsops.confine.rm_root '{"ok":false,"error":"rm .: refusing*' "$(C rm -r .)"
check fsops.confine.outside_unchanged "$before" "$(snapshot)"

# ---- a component swapped for a link to the outside during the call ----
rounds=${WICKFS_RACE_ROUNDS:-20}
[ -z "${WICKFS_RACE_ROUNDS:-}" ] && [ "${WICKFS_SANITIZED:-0}" = 1 ] && rounds=3
mkdir -p "$ws/r/sub" "$out/r/sub"
ln -s "$out/r" "$ws/r.swap"
printf 'inside\n' >"$ws/r/f.txt"
printf 'SECRET\n' >"$out/r/f.txt"
printf 'SECRET\n' >"$out/r/sub/g.txt"
printf 'inside\n' >"$ws/r/sub/g.txt"
before=$(snapshot; cd "$out" && find r -printf '%p %s %m %l\n' | sort)
if ${HOSTCC:-cc} -O1 -o "$t/swapper" "$tests_dir/helpers/swapper.c" 2>"$t/cc.err"; then
	rm -f "$t/count"
	"$t/swapper" "$ws/r" "$ws/r.swap" "$t/count" &
	spid=$!
	PIDS+=("$spid")
	for ((i = 0; i < 400; i++)); do
		[ -e "$t/count" ] && break
		sleep 0.05
	done
	: >"$t/answers"
	for ((i = 0; i < rounds; i++)); do
		{
			C stat r/f.txt
			C stat --follow r/sub/g.txt
			C exists r/f.txt
			C mkdir "r/m$i"
			C mkdir -p "r/sub/p$i/q"
			printf 'x' | C append r/f.txt
			C chmod 600 r/f.txt
			C symlink x "r/l$i"
			C readlink "r/l$i"
			C cp r/f.txt "r/c$i"
			C cp -r r/sub "r/cs$i"
			C mv "r/c$i" "r/mv$i"
			C rm "r/mv$i"
			C rm -r "r/cs$i"
			C ls --depth 0 --long r
			printf 'y' | C write --append r/f.txt
			printf 'y' | C write --no-clobber "r/wn$i"
			C rm -rf r/sub/g.txt
			printf 'inside\n' >"$ws/r/sub/g.txt" 2>/dev/null
		} >>"$t/answers" 2>&1 </dev/null
	done
	kill -TERM "$spid"
	wait "$spid"
	check "fsops.race.swapper_ran" "0 yes" "$? $([ "$(cat "$t/count" 2>/dev/null || echo 0)" -gt 0 ] && echo yes || echo no)"
	if grep -q SECRET "$t/answers"; then
		fail fsops.race.no_outside_content "$(grep -m1 SECRET "$t/answers" | head -c 300)"
	else
		pass fsops.race.no_outside_content
	fi
	check fsops.race.outside_unchanged "$before" "$(snapshot; cd "$out" && find r -printf '%p %s %m %l\n' | sort)"
else
	fail fsops.race.swapper_build "cannot build tests/helpers/swapper.c: $(head -c 300 "$t/cc.err")"
fi

# ---- 50 appends racing 50 edits: nothing lost ----
cd "$t/w" || exit 1
: >conc.txt
for i in $(seq 50); do printf 'E%d.\n' "$i"; done >conc.txt
for i in $(seq 50); do
	printf 'A%d.\n' "$i" | "$WICKFS" append conc.txt >"$t/ap.$i" &
	printf '{"old_text":"E%d.","new_text":"X%d."}' "$i" "$i" | "$WICKFS" edit conc.txt >"$t/ed.$i" &
done
wait
bad=0
for i in $(seq 50); do
	grep -qx "A$i." conc.txt || bad=$((bad + 1))
	grep -qx "X$i." conc.txt || bad=$((bad + 1))
done
check fsops.concurrent.nothing_lost "0 0 100" "$bad $(grep -c '^E' conc.txt) $(wc -l <conc.txt)"
check fsops.concurrent.all_ok 100 "$(cat "$t"/ap.* "$t"/ed.* | grep -c '"ok":true')"

# ---- daemon: CLI, fast path and native op give the same bytes ----
d=$t/dm
mkdir -p "$d"
SOCK=$d/d.sock
if ! daemon_start "$d/log" --listen off --socket "$SOCK"; then
	fail fsops.daemon.start "$(head -c 300 "$d/log")"
	exit 0
fi
cl() { daemon_client "unix:$SOCK" "$@"; }
raw() { daemon_send "unix:$SOCK" "$@"; }
cd "$d" || exit 1
printf 'x\n' >"$d/f"
# same NAME SETUP STDIN ARGS...: SETUP (shell) runs before each of the
# CLI, the fast path and the native op, so each sees the same state.
same() {
	local name=$1 setup=$2 in=$3 cli fast native args a
	shift 3
	eval "$setup"
	cli=$(printf '%s' "$in" | "$WICKFS" "$@"; echo "rc=$?")
	eval "$setup"
	fast=$(printf '%s' "$in" | cl -i "$@"; echo "rc=$?")
	check "fsops.daemon.fast.$name" "$cli" "$fast"
	eval "$setup"
	args=
	for a in "${@:2}"; do args=$args${args:+,}$(jstr "$a"); done
	native=$(raw "{\"id\":\"1\",\"op\":\"$1\",\"args\":[$args],\"stdin\":$(jstr "$in")}")
	# the native reply is the envelope with the id put first
	cli=${cli%$'\n'rc=*}
	check "fsops.daemon.native.$name" "{\"id\":\"1\",${cli#\{}" "$native"
}
touch -d @1600000000 "$d/f"
same stat "" "" stat "$d/f"
same stat_missing "" "" stat "$d/none"
same exists "" "" exists "$d/f"
same exists_no "" "" exists "$d/none"
same mkdir "rm -rf '$d/m'" "" mkdir "$d/m"
same mkdir_p "rm -rf '$d/m'" "" mkdir -p "$d/m/a/b"
same mkdir_error "" "" mkdir "$d/none/x"
same rm "printf x >'$d/r'" "" rm "$d/r"
same rm_r "mkdir -p '$d/rr/a'; printf x >'$d/rr/a/f'" "" rm -r "$d/rr"
same rm_f "" "" rm -f "$d/none"
same mv "printf x >'$d/m1'; rm -f '$d/m2'" "" mv "$d/m1" "$d/m2"
same mv_no_clobber "printf x >'$d/m1'" "" mv --no-clobber "$d/m1" "$d/m2"
same cp "rm -f '$d/c2'" "" cp "$d/f" "$d/c2"
same cp_r "rm -rf '$d/cr2'; mkdir -p '$d/cr/x'; printf y >'$d/cr/x/y'" "" cp -r "$d/cr" "$d/cr2"
same cp_into "rm -rf '$d/ci'; mkdir '$d/ci'" "" cp "$d/f" "$d/ci"
same mv_into "rm -rf '$d/mi'; mkdir '$d/mi'; printf x >'$d/m1'" "" mv "$d/m1" "$d/mi/"
same append "printf 'a\n' >'$d/ap'" $'more\n' append "$d/ap"
same symlink "rm -f '$d/sl'" "" symlink /outside "$d/sl"
same readlink "" "" readlink "$d/sl"
same chmod "chmod 644 '$d/f'" "" chmod u+x,go-r "$d/f"
same chmod_error "" "" chmod 9 "$d/f"
same ls_depth "mkdir -p '$d/lt/x'" "" ls --depth 0 "$d/lt"
same ls_long "" "" ls --long "$d/lt"
same write_append "printf 'a' >'$d/wa'" "b" write --append "$d/wa"
same write_no_clobber "" "b" write --no-clobber "$d/wa"
for a in "stat '$d/f'" "exists '$d/f'" "readlink '$d/sl'"; do
	fast=$(raw "{\"id\":\"f\",\"cmd\":$(jstr "wickfs $a")}")
	spawned=$(raw "{\"id\":\"f\",\"cmd\":$(jstr "\"$WICKFS\" $a")}")
	check "fsops.daemon.cmd_equals_spawned.${a%% *}" "$spawned" "$fast"
done
daemon_stop || true

