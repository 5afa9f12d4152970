#!/usr/bin/env bash
# watch: the daemon's file watches (issue 24's Watch part): the native
# ops watch and unwatch, and the client's watch. Every wait polls for
# what it needs, bounded; nothing here measures time.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/watch
root=$d/root
mkdir -p "$root/sub" "$d/outside"
cd "$d" || exit 1
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT

SOCK=$d/d.sock
if ! WICKFS_ROOT=$root daemon_start "$d/daemon.log" --listen off --socket "$SOCK"; then
	fail watch.start "did not start: $(show "$(cat "$d/daemon.log")")"
	exit 0
fi
MAIN=$DPID
raw() { daemon_send "unix:$SOCK" "$@"; }

# wait_for FILE TEXT: 0 once FILE has TEXT (a fixed string), 1 after 30 s.
wait_for() {
	local _
	for _ in $(seq 600); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
# watch_bg OUT ARGS...: `client --raw watch ARGS` in the background, its
# lines in OUT, its PID in WPID; 0 once the watch is set up.
watch_bg() {
	local out=$1
	shift
	"$WICKFS" client --connect "unix:$SOCK" --raw watch "$@" >"$out" 2>&1 &
	WPID=$!
	PIDS+=("$WPID")
	wait_for "$out" '"event":"watching"'
}
# gone PID: 0 once PID has exited (30 s at most).
gone() {
	local _
	for _ in $(seq 600); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}
nfds() { find "/proc/$MAIN/fd" -mindepth 1 -maxdepth 1 | wc -l; }
# The value of "KEY":N in a line.
num() { [[ $2 =~ \"$1\":(-?[0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }

# ---- a flat watch: create, modify, move, delete ----
watch_bg flat.out .
check_match watch.watching_first '{"id":"c1","event":"watching","watch":1,"path":""}*' "$(cat flat.out)"
(
	cd "$root" || exit 1
	echo one >f1
	echo two >>f1
	mv f1 f2
	rm f2
	mkdir newdir
	echo x >newdir/inner
	mkdir .wickfs
	echo s >.wickfs/snap
	echo end >flat-end
)
wait_for flat.out '"path":"flat-end"'
out=$(cat flat.out)
check_match watch.flat_create '*{"id":"c1","event":"create","path":"f1"}*' "$out"
check_match watch.flat_modify '*{"id":"c1","event":"modify","path":"f1"}*' "$out"
check_match watch.flat_move '*{"id":"c1","event":"move","from":"f1","path":"f2"}*' "$out"
check_match watch.flat_delete '*{"id":"c1","event":"delete","path":"f2"}*' "$out"
check_match watch.flat_dir '*{"id":"c1","event":"create","path":"newdir","dir":true}*' "$out"
check watch.flat_not_below 0 "$(grep -c inner <<<"$out")"
check watch.state_dir_not_reported 0 "$(grep -c wickfs <<<"$out")"
# the order: create before modify before move before delete
check watch.flat_order 'create f1 modify f1 move f2 delete f2' \
	"$(grep -o '"event":"[a-z]*","\(from":"f1","\)\{0,1\}path":"f[12]"' <<<"$out" |
		sed 's/"event":"\([a-z]*\)".*"path":"\([^"]*\)"/\1 \2/' | uniq | tr '\n' ' ' | sed 's/ $//')"
# Modifies of one file in one batch of events are one: the daemon is
# stopped while the file is written 500 times, then reads them at once.
kill -STOP "$MAIN"
for i in $(seq 500); do echo "$i" >>"$root/appended"; done
echo end >"$root/flat-end2"
kill -CONT "$MAIN"
wait_for flat.out '"path":"flat-end2"'
check watch.modify_coalesced 1 "$(grep -c '"event":"modify","path":"appended"' flat.out)"
kill "$WPID"
gone "$WPID"

# ---- a file, watched by itself ----
echo a >"$root/single"
watch_bg single.out single
echo b >>"$root/single"
wait_for single.out '"event":"modify"'
check_match watch.file_modify '*{"id":"c1","event":"modify","path":"single"}*' "$(cat single.out)"
rm "$root/single"
check_true watch.file_deleted_ends "$(show "$(cat single.out)")" gone "$WPID"
check_match watch.file_deleted_last '*{"id":"c1","event":"delete","path":"single"}'$'\n''{"id":"c1","ok":true,"data":{"watch":*' "$(cat single.out)"

# ---- recursive ----
mkdir -p "$root/tree/old/deep"
watch_bg rec.out -r tree
# Each step once the daemon has reported the one before: a directory that
# is moved away before the daemon reads its creation cannot be watched or
# scanned (a loaded machine did that), and that is not what is tested here.
t=$root/tree
mkdir -p "$t/a/b"
echo x >"$t/a/b/c"
echo y >"$t/old/deep/seen"
wait_for rec.out '"path":"tree/a/b/c"'
wait_for rec.out '"path":"tree/old/deep/seen"'
mv "$t/a" "$t/z"
wait_for rec.out '"path":"tree/z","dir":true'
echo w >"$t/z/b/d"
wait_for rec.out '"path":"tree/z/b/d"'
mv "$t/z" "$d/outside/z"
echo no >"$d/outside/z/b/outside-file"
echo end >"$t/rec-end"
wait_for rec.out '"path":"tree/rec-end"'
out=$(cat rec.out)
check_match watch.rec_new_dir '*{"id":"c1","event":"create","path":"tree/a","dir":true}*' "$out"
check_match watch.rec_new_subdir_file '*"event":"create","path":"tree/a/b/c"}*' "$out"
check_match watch.rec_existing_subdir '*"event":"create","path":"tree/old/deep/seen"}*' "$out"
check_match watch.rec_dir_moved '*{"id":"c1","event":"move","from":"tree/a","path":"tree/z","dir":true}*' "$out"
check_match watch.rec_moved_dir_paths '*"event":"create","path":"tree/z/b/d"}*' "$out"
check_match watch.rec_moved_out '*{"id":"c1","event":"delete","path":"tree/z","dir":true}*' "$out"
check watch.rec_moved_out_unwatched 0 "$(grep -c outside-file <<<"$out")"
kill "$WPID"
gone "$WPID"

# A directory made with its files already in it (moved in whole) has
# them reported, below a recursive watch.
mkdir -p "$d/pre/inner"
echo 1 >"$d/pre/inner/f"
watch_bg movein.out -r tree
mv "$d/pre" "$root/tree/pre"
wait_for movein.out '"path":"tree/pre/inner/f"'
check_match watch.rec_moved_in_contents '*"event":"create","path":"tree/pre","dir":true}*"path":"tree/pre/inner/f"}*' "$(cat movein.out)"
echo 2 >"$root/tree/pre/inner/g"
wait_for movein.out '"path":"tree/pre/inner/g"'
check_match watch.rec_moved_in_watched '*"event":"create","path":"tree/pre/inner/g"}*' "$(cat movein.out)"
kill "$WPID"
gone "$WPID"

# ---- confinement ----
ln -s ../outside "$root/link"
check_match watch.outside_refused '{"id":"o","ok":false,"error":"watch ../outside: outside the workspace root*' \
	"$(raw '{"id":"o","op":"watch","path":"../outside"}')"
check_match watch.symlink_out_refused '{"id":"o","ok":false,"error":"watch link: a symlink leads outside the workspace root*' \
	"$(raw '{"id":"o","op":"watch","path":"link","recursive":true}')"
check_match watch.absolute_out_refused '{"id":"o","ok":false,"error":"watch /etc: outside the workspace root*' \
	"$(raw '{"id":"o","op":"watch","path":"/etc"}')"
check watch.missing_refused '{"id":"o","ok":false,"error":"watch nosuch: No such file or directory"}' \
	"$(raw '{"id":"o","op":"watch","path":"nosuch"}')"
check_match watch.state_dir_refused '{"id":"o","ok":false,"error":"watch .wickfs: refused: .wickfs is reserved*' \
	"$(raw '{"id":"o","op":"watch","path":".wickfs"}')"
# a symlink inside the tree is not followed by a recursive watch
watch_bg link.out -r .
echo no >"$d/outside/via-link"
echo end >"$root/link-end"
wait_for link.out '"path":"link-end"'
check watch.symlink_not_followed 0 "$(grep -c via-link link.out)"
kill "$WPID"
gone "$WPID"

# ---- unwatch, and the client leaving ----
fds0=$(nfds)
watch_bg un.out sub
n=$(num watch "$(head -n1 un.out)")
: >"$root/sub/u1"
wait_for un.out '"path":"sub/u1"'
check watch.unwatch_answer "{\"id\":\"u\",\"ok\":true,\"data\":{\"watch\":$n,\"events\":1,\"dropped\":0}}" \
	"$(raw "{\"id\":\"u\",\"op\":\"unwatch\",\"watch\":$n}")"
check_true watch.unwatch_ends_client "$(show "$(cat un.out)")" gone "$WPID"
wait "$WPID"
check watch.unwatch_client_status 0 "$?"
check watch.unwatch_last_line "{\"id\":\"c1\",\"ok\":true,\"data\":{\"watch\":$n,\"events\":1,\"dropped\":0}}" "$(tail -n1 un.out)"
check watch.unwatch_unknown '{"id":"u","ok":false,"error":"unwatch: no such watch (give its \"watch\" number)"}' \
	"$(raw "{\"id\":\"u\",\"op\":\"unwatch\",\"watch\":$n}")"

watch_bg leave.out -r .
n=$(num watch "$(head -n1 leave.out)")
kill "$WPID"
gone "$WPID"
for _ in $(seq 600); do
	[[ $(raw "{\"id\":\"u\",\"op\":\"unwatch\",\"watch\":$n}") == *'no such watch'* ]] && break
	sleep 0.05
done
check_match watch.client_gone_ends '*no such watch*' "$(raw "{\"id\":\"u\",\"op\":\"unwatch\",\"watch\":$n}")"
for _ in $(seq 600); do
	[ "$(nfds)" -le "$fds0" ] && break
	sleep 0.05
done
check watch.no_fd_leak "$fds0" "$(nfds)"
check_match watch.still_serves '{"id":"s","ok":true,*' "$(raw '{"id":"s","op":"stat","args":["sub"]}')"

# ---- the client's text ----
mkdir -p "$root/txt"
# Started in the background, the client would inherit SIGINT ignored:
# env gives it back its default, as a terminal's Ctrl-C finds it.
sigint=()
env --default-signal=INT true 2>/dev/null && sigint=(env --default-signal=INT)
"${sigint[@]}" "$WICKFS" client --connect "unix:$SOCK" watch txt >text.out 2>text.err &
WPID=$!
PIDS+=("$WPID")
wait_for text.err watching
(
	cd "$root/txt" || exit 1
	echo 1 >a
	mv a b
	mkdir c
	rm b
)
wait_for text.out 'delete txt/b'
check watch.client_text "create txt/a
modify txt/a
move txt/a -> txt/b
create txt/c
delete txt/b" "$(cat text.out)"
if [ ${#sigint[@]} = 0 ]; then
	skip watch.client_sigint_exits "no env --default-signal here (coreutils before 8.31)"
	kill "$WPID"
else
	kill -INT "$WPID"
	check_true watch.client_sigint_exits "" gone "$WPID"
fi
check watch.client_no_path '{"ok":false,"error":"watch : No such file or directory"}' \
	"$(with_timeout 30 "$WICKFS" client --connect "unix:$SOCK" watch 2>&1)"

# ---- a burst of 10,000 creations, read slowly ----
# burst NAME N PREFIX MADE ARGS...: a watch (ARGS) whose client writes
# into a FIFO nobody reads while MADE runs, so the daemon falls behind;
# then its lines (in NAME.out) until every name of N under PREFIX was
# reported or counted dropped, or the kernel's queue overflowed. Sets
# ACCOUNTED: the names reported plus the drops counted ("kernel" for the
# kernel's overflow). A name lost silently leaves it short, after 30 s
# without a line.
burst() {
	local name=$1 n=$2 prefix=$3 made=$4 out=$d/$1.out line dropped=0
	local -A seen=()
	shift 4
	rm -f "$d/fifo"
	mkfifo "$d/fifo"
	"$WICKFS" client --connect "unix:$SOCK" --raw watch "$@" >"$d/fifo" &
	WPID=$!
	PIDS+=("$WPID")
	exec 8<"$d/fifo"
	# MADE only once the watch is set: made before, nothing is reported
	read -r -t 120 -u 8 line
	echo "$line" >"$out"
	if [[ $line != *'"event":"watching"'* ]]; then
		ACCOUNTED="no watch within 120 s: '$line'"
		exec 8<&-
		kill "$WPID" 2>/dev/null
		gone "$WPID"
		return
	fi
	eval "$made"
	ACCOUNTED=0
	while [ "$ACCOUNTED" -lt "$n" ] && read -r -t 30 -u 8 line; do
		echo "$line" >>"$out"
		if [[ $line =~ \"event\":\"create\",\"path\":\"$prefix([^\"]*)\" ]]; then
			seen[${BASH_REMATCH[1]}]=1
		elif [[ $line =~ \"dropped\":([0-9]+) ]]; then
			dropped=$((dropped + BASH_REMATCH[1]))
		elif [[ $line == *'"dropped":-1'* ]]; then
			ACCOUNTED=kernel
			break
		fi
		ACCOUNTED=$((${#seen[@]} + dropped))
	done
	exec 8<&-
	kill "$WPID" 2>/dev/null
	gone "$WPID"
}
mkdir "$root/burst"
burst flood 10000 burst/f 'for i in $(seq 10000); do : >"$root/burst/f$i"; done' burst
if [ "$ACCOUNTED" = kernel ]; then
	pass watch.burst_all_or_overflow
else
	check watch.burst_all_or_overflow 10000 "$ACCOUNTED"
fi
# A directory moved in whole under a recursive watch is reported entry
# by entry by the daemon itself: past its bound while the reader is
# behind, what it drops is counted and said. 20,000 lines are more than
# the socket's and the FIFO's buffers and the daemon's 128 KiB hold.
mkdir "$d/many"
for i in $(seq 20000); do : >"$d/many/m$i"; done
burst scan 20000 many/m 'mv "$d/many" "$root/many"' -r .
check watch.scan_all_or_counted 20000 "$ACCOUNTED"
check_match watch.scan_overflow_said '*{"id":"c1","event":"overflow","dropped":[1-9]*' "$(cat scan.out)"

# ---- read-only mode watches; the limit; shutdown ends a watch ----
ROSOCK=$d/ro.sock
if WICKFS_READONLY=1 WICKFS_ROOT=$root daemon_start "$d/ro.log" --listen off --socket "$ROSOCK"; then
	RO=$DPID
	"$WICKFS" client --connect "unix:$ROSOCK" --raw watch sub >ro.out 2>&1 &
	PIDS+=($!)
	wait_for ro.out '"event":"watching"'
	check_match watch.readonly_allowed '{"id":"c1","event":"watching",*' "$(cat ro.out)"
	daemon_stop "$RO"
else
	fail watch.readonly_allowed "did not start: $(show "$(cat "$d/ro.log")")"
fi

WPIDS=()
for i in $(seq 64); do
	"$WICKFS" client --connect "unix:$SOCK" --raw watch sub >"$d/lim$i.out" 2>&1 &
	WPIDS+=($!)
	PIDS+=($!)
done
for i in $(seq 64); do wait_for "$d/lim$i.out" watching; done
check watch.limit '{"id":"l","ok":false,"error":"watch sub: 64 watches are open, the daemon'"'"'s limit"}' \
	"$(raw '{"id":"l","op":"watch","path":"sub"}')"
kill "${WPIDS[@]}"
for p in "${WPIDS[@]}"; do gone "$p"; done

watch_bg stop.out sub
daemon_stop "$MAIN"
check_true watch.shutdown_ends "$(show "$(cat stop.out)")" gone "$WPID"
check_match watch.shutdown_summary '*{"id":"c1","ok":true,"data":{"watch":*,"events":0,"dropped":0}}' "$(cat stop.out)"
