#!/usr/bin/env bash
# chmod: octal and symbolic modes, through a link, its errors; and where
# /proc is not mounted, with and without fchmodat2 (tests/helpers/seccomp_deny.c).
# (the fsops.chmod.* checks, once in t_fsops.sh)
. "$(dirname "$0")/lib.sh"
tests_dir=$(cd "$(dirname "$0")" && pwd)

t=$TEST_TMP/fsops
fsops_fixture "$t"
trap 'chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT

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
