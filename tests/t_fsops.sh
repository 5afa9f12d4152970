#!/usr/bin/env bash
# The filesystem applets: exists, mkdir, rm, mv, cp, append, symlink,
# readlink, chmod (stat has t_stat.sh). Each flag and error;
# WICKFS_READONLY; escapes under WICKFS_ROOT, also with a component
# swapped for a link to the outside during the call (tests/helpers/swapper.c); 50 appends racing 50
# edits of one file; the same bytes from the CLI, the daemon's fast path
# and its native op form.
. "$(dirname "$0")/lib.sh"
tests_dir=$(cd "$(dirname "$0")" && pwd)

t=$TEST_TMP/fsops
mkdir -p "$t/w"
cd "$t/w" || exit 1

trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT

# ---- exists (stat: t_stat.sh) ----
printf 'hello\n' >f.txt
chmod 0640 f.txt
touch -d '2021-03-04 05:06:07.123456789 UTC' f.txt
ln -s f.txt lnk
wfo() { wf "$@"; OUT=${OUT%$'\n'}; }
mkdir -p sd
chmod 1755 sd
ln -s nowhere dangle

expect fsops.exists.yes 0 '{"ok":true,"data":{"path":"f.txt","exists":true,"type":"file"}}' exists f.txt
expect fsops.exists.no 0 '{"ok":true,"data":{"path":"none","exists":false}}' exists none
expect fsops.exists.deep_no 0 '{"ok":true,"data":{"path":"no/ne/x","exists":false}}' exists no/ne/x
expect fsops.exists.under_file 0 '{"ok":true,"data":{"path":"f.txt/x","exists":false}}' exists f.txt/x
expect fsops.exists.dangling 0 '{"ok":true,"data":{"path":"dangle","exists":true,"type":"symlink"}}' exists dangle
wf exists --help
check_match fsops.exists.help "usage: wickfs exists PATH*" "$OUT"

# ---- mkdir ----
expect fsops.mkdir.new 0 '{"ok":true,"data":{"path":"m","created":true}}' mkdir m
check fsops.mkdir.mode 755 "$(stat -c %a m)"
expect_error fsops.mkdir.exists "mkdir m: file exists" mkdir m
expect_error fsops.mkdir.no_parent "mkdir a/b/c: no such file or directory" mkdir a/b/c
expect fsops.mkdir.p 0 '{"ok":true,"data":{"path":"a/b/c","created":true}}' mkdir -p a/b/c
check_true fsops.mkdir.p_made "a/b/c is no directory" test -d a/b/c
expect fsops.mkdir.p_exists 0 '{"ok":true,"data":{"path":"a/b/c","created":false}}' mkdir --parents a/b/c
expect_error fsops.mkdir.p_file "mkdir f.txt: file exists" mkdir -p f.txt
expect_error fsops.mkdir.p_under_file "mkdir f.txt/x: not a directory" mkdir -p f.txt/x
expect_error fsops.mkdir.empty "mkdir: empty path" mkdir ''

# ---- rm ----
printf x >r1
expect fsops.rm.file 0 '{"ok":true,"data":{"path":"r1","removed":1}}' rm r1
check_true fsops.rm.file_gone "r1 still there" test ! -e r1
expect_error fsops.rm.missing "rm r1: no such file or directory" rm r1
expect fsops.rm.force_missing 0 '{"ok":true,"data":{"path":"r1","removed":0}}' rm -f r1
expect fsops.rm.force_missing_parent 0 '{"ok":true,"data":{"path":"no/r1","removed":0}}' rm --force no/r1
mkdir -p rd/e rd/sub/deep
printf x >rd/sub/deep/f
mkdir -p keep
printf 'keep me\n' >keep/k.txt
ln -s ../../keep rd/sub/tokeep # a link inside the tree to a directory outside it
expect_error fsops.rm.dir_needs_r "rm rd: is a non-empty directory (use -r)" rm rd
expect fsops.rm.empty_dir 0 '{"ok":true,"data":{"path":"rd/e","removed":1}}' rm rd/e
expect fsops.rm.r 0 '{"ok":true,"data":{"path":"rd","removed":5}}' rm -r rd
check fsops.rm.r_never_crosses_link "keep me" "$(cat keep/k.txt)"
ln -s keep keeplink
expect fsops.rm.link_itself 0 '{"ok":true,"data":{"path":"keeplink","removed":1}}' rm -r keeplink
check fsops.rm.link_target_kept "keep me" "$(cat keep/k.txt)"
ln -s keep keeplink
expect fsops.rm.link_trailing_slash 0 '{"ok":true,"data":{"path":"keeplink/","removed":1}}' rm -r keeplink/
check fsops.rm.link_slash_target_kept "keep me" "$(cat keep/k.txt)"
expect_error fsops.rm.dot 'rm .: refusing to remove*' rm -r .
expect_error fsops.rm.dotdot 'rm sd/..: refusing to remove*' rm -r sd/..

# ---- mv ----
printf one >m1
expect fsops.mv.rename 0 '{"ok":true,"data":{"src":"m1","dst":"m2","copied":false}}' mv m1 m2
check fsops.mv.moved "one" "$(cat m2)"
printf two >m3
expect fsops.mv.clobber 0 '{"ok":true,"data":{"src":"m3","dst":"m2","copied":false}}' mv m3 m2
check fsops.mv.clobbered "two" "$(cat m2)"
printf three >m4
expect_error fsops.mv.no_clobber "mv m2: file exists" mv --no-clobber m4 m2
check fsops.mv.no_clobber_kept "two three" "$(cat m2) $(cat m4)"
expect_error fsops.mv.missing "mv none: no such file or directory" mv none m5
expect_error fsops.mv.dst_parent "mv nodir/x: no such file or directory" mv m4 nodir/x
mkdir -p mvd/sub
printf in >mvd/sub/f
expect fsops.mv.dir 0 '{"ok":true,"data":{"src":"mvd","dst":"m/mvd2","copied":false}}' mv mvd m/mvd2
check fsops.mv.dir_moved "in" "$(cat m/mvd2/sub/f)"
ln -s /nonexistent-outside mvl
expect fsops.mv.link_itself 0 '{"ok":true,"data":{"src":"mvl","dst":"mvl2","copied":false}}' mv mvl mvl2
check fsops.mv.link_kept "/nonexistent-outside" "$(readlink mvl2)"
# Across filesystems (EXDEV): /dev/shm is a tmpfs when TEST_TMP is not.
shm=/dev/shm/wickfs-fsops-$$
if [ -d /dev/shm ] && mkdir "$shm" 2>/dev/null &&
	[ "$(stat -f -c %T /dev/shm)" != "$(stat -f -c %T "$t")" ] ||
	[ "$(stat -c %d /dev/shm 2>/dev/null)" != "$(stat -c %d "$t")" ]; then
	mkdir -p xd/sub
	printf data >xd/sub/f
	chmod 0751 xd/sub
	touch -d '2020-01-02 03:04:05 UTC' xd/sub/f
	ln -s sub/f xd/l
	expect fsops.mv.exdev 0 "{\"ok\":true,\"data\":{\"src\":\"xd\",\"dst\":\"$shm/xd\",\"copied\":true}}" mv xd "$shm/xd"
	check fsops.mv.exdev_content "data 751 2020-01-02 03:04:05 sub/f gone" \
		"$(cat "$shm/xd/sub/f") $(stat -c %a "$shm/xd/sub") $(TZ=UTC date -r "$shm/xd/sub/f" '+%Y-%m-%d %H:%M:%S') $(readlink "$shm/xd/l") $([ -e xd ] || echo gone)"
	printf back >"$shm/f1"
	expect fsops.mv.exdev_file 0 "{\"ok\":true,\"data\":{\"src\":\"$shm/f1\",\"dst\":\"xf1\",\"copied\":true}}" mv "$shm/f1" xf1
	check fsops.mv.exdev_file_moved "back gone" "$(cat xf1) $([ -e "$shm/f1" ] || echo gone)"
	printf n >"$shm/f2"
	expect_error fsops.mv.exdev_no_clobber "mv xf1: file exists" mv --no-clobber "$shm/f2" xf1
	rm -rf "$shm"
else
	rmdir "$shm" 2>/dev/null
	skip fsops.mv.exdev "no second filesystem (/dev/shm) here"
fi
# Into an existing directory: the item lands inside it, under its name.
mkdir -p into/sub
printf f >mi1
expect fsops.mv.into_dir 0 '{"ok":true,"data":{"src":"mi1","dst":"into/mi1","copied":false}}' mv mi1 into
check fsops.mv.into_dir_moved "f gone" "$(cat into/mi1) $([ -e mi1 ] || echo gone)"
printf g >mi2
expect fsops.mv.into_dir_slash 0 '{"ok":true,"data":{"src":"mi2","dst":"into/sub/mi2","copied":false}}' mv mi2 into/sub/
mkdir -p mid/x
expect fsops.mv.dir_into_dir 0 '{"ok":true,"data":{"src":"mid","dst":"into/mid","copied":false}}' mv mid into
check_true fsops.mv.dir_into_dir_moved "into/mid/x missing" test -d into/mid/x
ln -s into intolink
printf h >mi3
expect fsops.mv.into_link_to_dir 0 '{"ok":true,"data":{"src":"mi3","dst":"intolink/mi3","copied":false}}' mv mi3 intolink
check fsops.mv.into_link_to_dir_moved "h link" "$(cat into/mi3) $([ -L intolink ] && echo link)"
printf i >mi1
expect_error fsops.mv.into_no_clobber "mv into/mi1: file exists" mv --no-clobber mi1 into
check fsops.mv.into_no_clobber_kept "f i" "$(cat into/mi1) $(cat mi1)"
rm mi1
(cd into/sub && "$WICKFS" mv ../mi1 . >"$t/mvdot.out")
check fsops.mv.into_dot '{"ok":true,"data":{"src":"../mi1","dst":"./mi1","copied":false}}' "$(cat "$t/mvdot.out")"
printf j >mi5
ln -s mi5 filelink
printf k >mi6
expect fsops.mv.onto_link_to_file 0 '{"ok":true,"data":{"src":"mi6","dst":"filelink","copied":false}}' mv mi6 filelink
check fsops.mv.onto_link_to_file_replaced "k j" "$(cat filelink) $(cat mi5)"
ln -s nowhere danglelink
expect fsops.mv.onto_dangling_link 0 '{"ok":true,"data":{"src":"mi5","dst":"danglelink","copied":false}}' mv mi5 danglelink
check fsops.mv.onto_dangling_link_replaced "j" "$(cat danglelink)"

# ---- cp ----
printf 'content\n' >c1
chmod 0750 c1
touch -d '2019-05-06 07:08:09.5 UTC' c1
expect fsops.cp.file 0 '{"ok":true,"data":{"src":"c1","dst":"c2","copied":1}}' cp c1 c2
check fsops.cp.file_kept "content 750 $(stat -c %Y c1)" "$(cat c2) $(stat -c '%a %Y' c2)"
check fsops.cp.mtime_ns "$(stat -c %y c1)" "$(stat -c %y c2)"
printf old >c3
expect fsops.cp.clobber 0 '{"ok":true,"data":{"src":"c1","dst":"c3","copied":1}}' cp c1 c3
check fsops.cp.clobbered "content" "$(cat c3)"
printf old >c4
expect_error fsops.cp.no_clobber "cp c4: file exists" cp --no-clobber c1 c4
check fsops.cp.no_clobber_kept "old" "$(cat c4)"
expect_error fsops.cp.missing "cp none: no such file or directory" cp none c5
mkdir -p ct/sub ct/empty
printf a >ct/sub/a
chmod 0700 ct/sub
ln -s sub/a ct/rel
ln -s "$t/w/keep" ct/out # a link out of the source tree: copied as a link
expect_error fsops.cp.dir_needs_r "cp ct: is a directory (use -r)" cp ct ct2
expect fsops.cp.r 0 '{"ok":true,"data":{"src":"ct","dst":"ct2","copied":3}}' cp -r ct ct2
check fsops.cp.r_tree "a 700 sub/a $t/w/keep" "$(cat ct2/sub/a) $(stat -c %a ct2/sub) $(readlink ct2/rel) $(readlink ct2/out)"
check_true fsops.cp.r_empty_dir "ct2/empty missing" test -d ct2/empty
check fsops.cp.r_not_through_link "k.txt" "$(ls keep)"
expect fsops.cp.link_top 0 '{"ok":true,"data":{"src":"ct/out","dst":"lcopy","copied":1}}' cp ct/out lcopy
check fsops.cp.link_top_is_link "$t/w/keep" "$(readlink lcopy)"
expect_error fsops.cp.r_no_clobber "cp ct2/sub: file exists" cp -r --no-clobber ct/sub ct2
mkdir -p self/x
printf s >self/x/f
expect fsops.cp.into_itself 0 '{"ok":true,"data":{"src":"self","dst":"self/copy","copied":1}}' cp -r self self/copy
check fsops.cp.into_itself_once "self/copy/x/f" "$(cd "$t/w" && find self/copy -type f)"
printf ci >ci1
expect fsops.cp.into_dir 0 '{"ok":true,"data":{"src":"ci1","dst":"into/ci1","copied":1}}' cp ci1 into
check fsops.cp.into_dir_copied "ci ci" "$(cat ci1) $(cat into/ci1)"
expect fsops.cp.r_into_dir 0 '{"ok":true,"data":{"src":"ct","dst":"into/ct","copied":3}}' cp -r ct into/
check fsops.cp.r_into_dir_tree "a sub/a" "$(cat into/ct/sub/a) $(readlink into/ct/rel)"
expect fsops.cp.r_into_dir_again 0 '{"ok":true,"data":{"src":"ct","dst":"into/ct/ct","copied":3}}' cp -r ct into/ct
check_true fsops.cp.r_into_dir_not_merged "into/ct/ct/sub/a missing" test -f into/ct/ct/sub/a
expect fsops.cp.into_link_to_dir 0 '{"ok":true,"data":{"src":"ci1","dst":"intolink/ci2","copied":1}}' cp ci1 intolink/ci2
expect_error fsops.cp.into_no_clobber "cp into/ci1: file exists" cp --no-clobber ci1 into
# the bytes, by copy_file_range or by read and write: a file over the
# copy buffer, an empty one, and a /proc file whose size says 0
head -c 300000 /dev/urandom >cbig
cp_same() { "$WICKFS" cp "$2" "$3" >/dev/null && cmp -s "$2" "$3" && [ -s "$3" -o ! -s "$2" ] && echo same; }
check fsops.cp.big_file same "$(cp_same x cbig cbig2)"
: >cempty
check fsops.cp.empty_file "same 0" "$(cp_same x cempty cempty2) $(wc -c <cempty2)"
if [ -r /proc/version ]; then
	check fsops.cp.proc_file "$(cat /proc/version)" "$("$WICKFS" cp /proc/version cproc >/dev/null; cat cproc)"
else
	skip fsops.cp.proc_file "no /proc/version here"
fi
mkfifo fifo
expect_error fsops.cp.fifo "cp fifo: is a fifo (named pipe), not copied" cp fifo fifo2

# ---- append ----
expect_in fsops.append.new "ab" 0 '{"ok":true,"data":{"path":"ap/new.txt","bytes_written":2}}' append ap/new.txt
expect_in fsops.append.more $'c\n' 0 '{"ok":true,"data":{"path":"ap/new.txt","bytes_written":2}}' append ap/new.txt
check fsops.append.content $'abc' "$(cat ap/new.txt)"
chmod 0600 ap/new.txt
ln -s new.txt ap/alink
expect_in fsops.append.through_link "d" 0 '{"ok":true,"data":{"path":"ap/alink","bytes_written":1}}' append ap/alink
check fsops.append.link_target "$(printf 'abc\nd') 600" "$(cat ap/new.txt) $(stat -c %a ap/new.txt)"
expect_error_in fsops.append.dir "x" "append ap: *" append ap
expect_error_in fsops.append.fifo "x" "append fifo: *fifo*" append fifo
expect_error_in fsops.append.under_file "x" "append f.txt/x: not a directory" append f.txt/x

# ---- symlink, readlink ----
expect fsops.symlink.new 0 '{"ok":true,"data":{"path":"sl","target":"/etc/passwd"}}' symlink /etc/passwd sl
check fsops.symlink.made "/etc/passwd" "$(readlink sl)"
expect_error fsops.symlink.exists "symlink sl: file exists" symlink x sl
expect_error fsops.symlink.empty "symlink s2: empty target" symlink '' s2
expect_error fsops.symlink.no_dir "symlink nodir/s: no such file or directory" symlink x nodir/s
expect fsops.readlink.ok 0 '{"ok":true,"data":{"path":"sl","target":"/etc/passwd"}}' readlink sl
expect_error fsops.readlink.not_link "readlink f.txt: not a symlink" readlink f.txt
expect_error fsops.readlink.missing "readlink none: no such file or directory" readlink none

# ---- chmod ----
printf x >cm
chmod 0644 cm
expect fsops.chmod.octal 0 '{"ok":true,"data":{"path":"cm","mode":"0600"}}' chmod 600 cm
check fsops.chmod.octal_set 600 "$(stat -c %a cm)"
expect fsops.chmod.u_x 0 '{"ok":true,"data":{"path":"cm","mode":"0700"}}' chmod u+x cm
expect fsops.chmod.go_w 0 '{"ok":true,"data":{"path":"cm","mode":"0700"}}' chmod go-w cm
expect fsops.chmod.a_r 0 '{"ok":true,"data":{"path":"cm","mode":"0444"}}' chmod a=r cm
expect fsops.chmod.list 0 '{"ok":true,"data":{"path":"cm","mode":"0754"}}' chmod u=rwx,g=rx,o=r cm
expect fsops.chmod.X 0 '{"ok":true,"data":{"path":"sd","mode":"1755"}}' chmod a+X sd
expect fsops.chmod.through_link 0 '{"ok":true,"data":{"path":"lnk","mode":"0604"}}' chmod 604 lnk
check fsops.chmod.link_target_changed "604 lrwxrwxrwx" "$(stat -c %a f.txt) $(stat -c %A lnk)"
check fsops.chmod.final_mode 754 "$(stat -c %a cm)"
expect_error fsops.chmod.bad "chmod cm: invalid mode 8*" chmod 8 cm
expect_error fsops.chmod.bad_sym "chmod cm: invalid mode u+q*" chmod u+q cm
expect_error fsops.chmod.missing "chmod none: no such file or directory" chmod 644 none

# chmod where /proc is not mounted (an empty tmpfs over it in a private
# mount namespace), with fchmodat2 (Linux 6.6) and with it refused by
# seccomp as on an older kernel; a file only its owner may change, as
# that owner (nobody) when we are root; and a socket, which cannot be
# opened at all.
noproc=()
for try in "unshare -m" "unshare -r -m"; do
	# shellcheck disable=SC2086
	if $try sh -c 'mount -t tmpfs none /proc' 2>/dev/null; then
		read -r -a noproc <<<"$try"
		break
	fi
done
sd_bin=$t/seccomp_deny
${HOSTCC:-cc} -O1 -o "$sd_bin" "$tests_dir/helpers/seccomp_deny.c" 2>"$t/sd.err" || sd_bin=
asnobody=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	asnobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
# np MODE DENY PATH [PREFIX...]: PREFIX wickfs chmod MODE PATH without
# /proc (DENY: "fchmodat2", refused by seccomp, or "")
np() {
	local deny=()
	[ -n "$2" ] && deny=("$sd_bin" "$2")
	# shellcheck disable=SC2016
	"${noproc[@]}" sh -c 'mount -t tmpfs none /proc || exit 99
		[ -e /proc/self ] && exit 98
		exec "$@"' sh "${@:4}" "${deny[@]}" "$WICKFS" chmod "$1" "$3"
}
if [ ${#noproc[@]} -eq 0 ]; then
	skip fsops.chmod.no_proc "cannot mount over /proc in a private mount namespace here (unshare -m as root, or unshare -r -m)"
elif [ -z "$sd_bin" ]; then
	fail fsops.chmod.no_proc_helper "cannot build tests/helpers/seccomp_deny.c: $(head -c 300 "$t/sd.err")"
else
	printf x >np1
	chmod 0644 np1
	# Under qemu-user (tests/cross-run) the kernel's fchmodat2 counts only
	# if the emulator passes it on; one that answers "Unknown syscall 452"
	# (QEMU_STRACE's words) makes the binary see a kernel before 6.6.
	no_f2=""
	if [ "${WICKFS_EMULATED:-0}" = 1 ] &&
		QEMU_STRACE=1 "$WICKFS" chmod 644 np1 2>&1 >/dev/null | grep -q 'Unknown syscall 452'; then
		no_f2="this qemu-user does not implement fchmodat2 (syscall 452): the binary sees a kernel without it, and the fallback's limit is checked by the no_fchmodat2 cases"
	fi
	check fsops.chmod.no_proc '{"ok":true,"data":{"path":"np1","mode":"0600"}} 600' "$(np 600 "" np1) $(stat -c %a np1)"
	check fsops.chmod.no_proc_no_fchmodat2 '{"ok":true,"data":{"path":"np1","mode":"0640"}} 640' "$(np 640 fchmodat2 np1) $(stat -c %a np1)"
	ln -s np1 nplink
	check fsops.chmod.no_proc_through_link '{"ok":true,"data":{"path":"nplink","mode":"0604"}} 604' "$(np 604 fchmodat2 nplink) $(stat -c %a np1)"
	if command -v python3 >/dev/null 2>&1 &&
		python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' npsock 2>/dev/null; then
		chmod 0755 npsock
		if [ -n "$no_f2" ]; then
			skip fsops.chmod.no_proc_socket "$no_f2"
		else
			check fsops.chmod.no_proc_socket '{"ok":true,"data":{"path":"npsock","mode":"0700"}} 700' "$(np 700 "" npsock) $(stat -c %a npsock)"
		fi
		# with /proc and no fchmodat2: through the descriptor's name
		check fsops.chmod.socket_via_proc '{"ok":true,"data":{"path":"npsock","mode":"0750"}} 750' \
			"$("$sd_bin" fchmodat2 "$WICKFS" chmod 750 npsock) $(stat -c %a npsock)"
	else
		skip fsops.chmod.no_proc_socket "no python3 to make a unix socket"
	fi
	if [ ${#asnobody[@]} -gt 0 ]; then
		printf x >npown
		chown 65534:65534 npown
		chmod 000 npown
		if [ -n "$no_f2" ]; then
			skip fsops.chmod.no_proc_unreadable_own_file "$no_f2"
		else
			check fsops.chmod.no_proc_unreadable_own_file '{"ok":true,"data":{"path":"npown","mode":"0600"}} 600' \
				"$(np 600 "" npown "${asnobody[@]}") $(stat -c %a npown)"
		fi
		chmod 000 npown
		# no /proc and no fchmodat2: nothing can reach an inode it may
		# not open without following the name, so it is refused
		check fsops.chmod.no_proc_no_fchmodat2_unreadable '{"ok":false,"error":"chmod npown: permission denied"} 0' \
			"$(np 600 fchmodat2 npown "${asnobody[@]}") $(stat -c %a npown)"
	else
		skip fsops.chmod.no_proc_unreadable_own_file "not root, or setpriv cannot drop to nobody here"
	fi
fi

# ---- --help and usage for every applet ----
for a in stat exists mkdir rm mv cp append symlink readlink chmod; do
	wf "$a" --help
	check_match "fsops.help.$a" "0 usage: wickfs $a*" "$RC $OUT"
	wf "$a" --help
	check "fsops.help_rc.$a" 0 "$RC"
done
wfo mv onlyone
check_match fsops.usage.mv '1 {"ok":false,"error":"*"}' "$RC $OUT"

# ---- WICKFS_READONLY ----
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

# cp over a device or a FIFO refuses: putting a new file in its place
# would remove the device (a root agent's `cp x /dev/null`).
if [ "$(id -u)" = 0 ]; then
	sp=$TEST_TMP/special
	mkdir -p "$sp"
	mknod "$sp/null" c 1 3 && mkfifo "$sp/fifo" && echo x >"$sp/src"
	expect fsops.cp.onto_device 1 '{"ok":false,"error":"cp '"$sp"'/null: is a character device, not a regular file: cp replaces only files"}' cp "$sp/src" "$sp/null"
	check fsops.cp.device_kept c "$(stat -c %F "$sp/null" | cut -c1)"
	wf cp "$sp/src" "$sp/fifo"
	check_match fsops.cp.onto_fifo '*"ok":false*is a fifo*' "$OUT"
	check fsops.cp.fifo_kept "fifo" "$(stat -c %F "$sp/fifo")"
else
	skip fsops.cp.onto_device "needs root to make a device node"
fi
