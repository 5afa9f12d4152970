#!/usr/bin/env bash
# The CLI envelope (PROTOCOL.md section 1) and the multicall front end:
# usage, --help, --list, --version, --install, argv[0] dispatch.
. "$(dirname "$0")/lib.sh"

cd "$TEST_TMP" || exit 1
applets="ls read write edit grep glob exec"
nl=$'\n'

# No applet, unknown applet: usage on stderr, nothing on stdout, exit 2.
wf
check cli.no_applet.exit 2 "$RC"
check cli.no_applet.stdout "" "$OUT"
check_match cli.no_applet.stderr "*usage*" "$ERR"
wf frobnicate x
check cli.unknown_applet.exit 2 "$RC"
check cli.unknown_applet.stdout "" "$OUT"
check_match cli.unknown_applet.stderr "*frobnicate*" "$ERR"

# A missing argument: the error envelope, exit 1, "usage: wickfs <applet> ...".
for a in read write edit grep glob exec; do
	expect_error "cli.missing_arg.$a" "usage: wickfs $a" "$a"
	check_match "cli.missing_arg.$a.prefix" "usage: wickfs $a*" "$(err_msg)"
done
# ls has none: the current directory.
mkdir -p lsdir && : >lsdir/f
(cd lsdir && expect cli.ls_no_arg 0 '{"ok":true,"data":[{"name":"f","type":"file","size":0}]}' ls)

# --help, --list, --version.
wf --help
check cli.help.exit 0 "$RC"
check_match cli.help.usage "*usage*" "$OUT"
# The "applets:" line itself, word by word (the banner's prose would
# match "ls" and "exec" on its own).
help_list=$(printf '%s\n' "$OUT" | grep '^applets: ')
for a in $applets; do
	check_match "cli.help.lists_$a" "* $a *" "$help_list "
done
wf --list
check cli.list.exit 0 "$RC"
for a in $applets; do
	check_match "cli.list.$a" "*${nl}${a}${nl}*" "$nl$OUT"
done
wf --version
check cli.version.exit 0 "$RC"
check_match cli.version.zlib "*zlib*" "$OUT"
if [ "${WICKFS_SANITIZED:-0}" = 1 ]; then
	skip cli.version.musl "the sanitizer build is linked with glibc"
else
	check_match cli.version.musl "wickfs * ?musl [0-9]*.[0-9]*, zlib *" "$OUT"
fi
check_match cli.version.name "wickfs *" "$OUT"

# Every applet's help (`wickfs help APPLET`): its usage line first, exit 0.
for a in $applets; do
	wf help "$a"
	check "cli.applet_help.$a.exit" 0 "$RC"
	check_match "cli.applet_help.$a" "usage: wickfs $a*" "$OUT"
done

# The envelope is the only thing on stdout, one line, also on errors.
printf 'x' >one
wf read one
check cli.one_line.ok '{"ok":true,"data":"x"}'$'\n' "$OUT"
wf read nonexistent
check_match cli.one_line.error '{"ok":false,"error":"*"}'$'\n' "$OUT"
check cli.one_line.error.exit 1 "$RC"

printf 'hi' >hi.txt
if [ "${WICKFS_EMULATED:-0}" = 1 ]; then
	skip cli.install "WICKFS is a qemu-user wrapper script (tests/cross-run): --install links the binary the script runs, not the script"
else
	# --install DIR: wickfs-<applet> hard links that dispatch on argv[0], one
	# line each saying so. The binary is copied beside DIR first, so the hard
	# link stays on one filesystem wherever the build lives.
	self=$TEST_TMP/self/wickfs
	mkdir -p "$TEST_TMP/self"
	cp "$WICKFS" "$self"
	install_wf() { "$self" "$@" </dev/null >"$_wf_out" 2>"$_wf_err"; RC=$?; _wf_collect; }
	install_wf --install bin
	check cli.install.exit 0 "$RC"
	for a in $applets; do
		check_true "cli.install.$a" "bin/wickfs-$a missing or not executable" test -x "bin/wickfs-$a" -a ! -L "bin/wickfs-$a"
		check_true "cli.install.$a.same_file" "bin/wickfs-$a is not a hard link of the binary" test "bin/wickfs-$a" -ef "$self"
		check_match "cli.install.$a.says_hard" "*bin/wickfs-$a: hard link to $self$nl*" "$nl$OUT"
	done
	check cli.install.one_line_each "$(($(wc -l <<<"$("$self" --list)")))" "$(grep -c ': hard link to ' <<<"$OUT")"
	"$TEST_TMP/bin/wickfs-read" hi.txt >out 2>&1
	check cli.install.argv0_read '{"ok":true,"data":"hi"}' "$(cat out)"
	"$TEST_TMP/bin/wickfs-ls" lsdir >out 2>&1
	check cli.install.argv0_ls '{"ok":true,"data":[{"name":"f","type":"file","size":0}]}' "$(cat out)"
	printf 'hello' | "$TEST_TMP/bin/wickfs-write" w.txt >out 2>&1
	check cli.install.argv0_write '{"ok":true,"data":{"path":"w.txt","bytes_written":5}} hello' "$(cat out) $(cat w.txt)"

	# --install -s DIR: symbolic links.
	install_wf --install -s sbin
	check cli.install_s.exit 0 "$RC"
	for a in $applets; do
		check_true "cli.install_s.$a" "sbin/wickfs-$a is not a symlink" test -L "sbin/wickfs-$a"
		check_match "cli.install_s.$a.says_symbolic" "*sbin/wickfs-$a: symbolic link to $self$nl*" "$nl$OUT"
	done
	"$TEST_TMP/sbin/wickfs-read" hi.txt >out 2>&1
	check cli.install_s.argv0_read '{"ok":true,"data":"hi"}' "$(cat out)"
	# A second install over existing links works.
	install_wf --install -s sbin
	check cli.install_s.again 0 "$RC"

	# --install writes: read-only mode refuses it, and nothing is made.
	WICKFS_READONLY=1 install_wf --install robin
	check cli.install.readonly "1 wickfs: --install robin: refused, WICKFS_READONLY is set" "$RC $OUT$ERR"
	check_true cli.install.readonly.nothing "robin was made" test ! -e robin
	# Under a root DIR must resolve beneath it (a symlink leading out
	# counts as out), and the links are symbolic: a hard link would bring
	# the binary itself into the workspace.
	mkdir -p ws
	ln -sfn "$TEST_TMP" ws/out
	WICKFS_ROOT=ws install_wf --install outbin
	check_match cli.install.root_outside "1 wickfs: --install outbin: *outside the workspace root*" "$RC $OUT$ERR"
	WICKFS_ROOT=ws install_wf --install ws/out/escbin
	check_match cli.install.root_symlink_out "1 wickfs: --install ws/out/escbin: *" "$RC $OUT$ERR"
	check_true cli.install.root.nothing_outside "made outside the root" test ! -e outbin -a ! -e escbin
	install_wf --root ws --install ws/bin
	check cli.install.root.exit 0 "$RC"
	check cli.install.root.all_symbolic "$(($(wc -l <<<"$("$self" --list)")))" "$(grep -c "^ws/bin/wickfs-[a-z-]*: symbolic link to $self\$" <<<"$OUT")"
	check_true cli.install.root.link "ws/bin/wickfs-read is not a symlink to the binary" test -L ws/bin/wickfs-read -a ws/bin/wickfs-read -ef "$self"
	check cli.install.root.runs '{"ok":true,"data":"hi"}' "$(ws/bin/wickfs-read hi.txt 2>&1)"

	# --install onto another filesystem (a tmpfs mounted in a private mount
	# namespace, as root or in a user namespace): no hard link can cross it,
	# so symbolic links, said so.
	mkdir -p "$TEST_TMP/tmpfs"
	ns=()
	for try in "unshare -m" "unshare -r -m"; do
		# shellcheck disable=SC2086
		if $try sh -c 'mount -t tmpfs wickfs-test "$1"' sh "$TEST_TMP/tmpfs" 2>/dev/null; then
			read -r -a ns <<<"$try"
			break
		fi
	done
	if [ ${#ns[@]} -gt 0 ]; then
		# shellcheck disable=SC2016
		"${ns[@]}" sh -c 'mount -t tmpfs wickfs-test "$1" || exit 99
			"$2" --install "$1/bin" >"$3/tmpfs.out" 2>"$3/tmpfs.err"
			echo "rc=$?" >>"$3/tmpfs.out"
			for a in $4; do
				if [ -L "$1/bin/wickfs-$a" ]; then echo "$a symlink"; else echo "$a not a symlink"; fi
			done >>"$3/tmpfs.out"
			printf hi >"$1/hi.txt"
			"$1/bin/wickfs-read" "$1/hi.txt" >>"$3/tmpfs.out"' \
			sh "$TEST_TMP/tmpfs" "$self" "$TEST_TMP" "$applets"
		out=$(cat "$TEST_TMP/tmpfs.out")
		check cli.install_tmpfs.exit "rc=0" "$(grep '^rc=' <<<"$out")"
		for a in $applets; do
			check "cli.install_tmpfs.$a" "$a symlink" "$(grep "^$a " <<<"$out")"
			# EXDEV's text: "Cross-device link" (musl), "Invalid cross-device
			# link" (glibc, the sanitizer build).
			check_match "cli.install_tmpfs.$a.says_symbolic" \
				"$TEST_TMP/tmpfs/bin/wickfs-$a: symbolic link to $self (no hard link: *ross-device link)" \
				"$(grep "/wickfs-$a: " <<<"$out")"
		done
		check cli.install_tmpfs.argv0_read '{"ok":true,"data":"hi"}' "$(tail -n 1 <<<"$out")"
		check cli.install_tmpfs.stderr "" "$(cat "$TEST_TMP/tmpfs.err")"
	else
		skip cli.install_tmpfs "cannot mount a tmpfs in a private mount namespace here (unshare -m as root, or unshare -r -m)"
	fi
fi

# exec -a and --install need the binary itself: through the wrapper
# script argv[0] is lost, and --install links the real binary.
if [ "${WICKFS_EMULATED:-0}" = 1 ]; then
	skip cli.argv0.exec_a "WICKFS is a qemu-user wrapper script (tests/cross-run): exec -a names the script, not the binary"
else
	# argv[0] dispatch without links.
	(exec -a wickfs-read "$WICKFS" hi.txt) >out 2>&1
	check cli.argv0.wickfs_prefix '{"ok":true,"data":"hi"}' "$(cat out)"
	(exec -a /some/dir/wickfs "$WICKFS" read hi.txt) >out 2>&1
	check cli.argv0.wickfs_path '{"ok":true,"data":"hi"}' "$(cat out)"
	(exec -a ls "$WICKFS" lsdir) >out 2>&1
	check cli.argv0.bare_ls '{"ok":true,"data":[{"name":"f","type":"file","size":0}]}' "$(cat out)"
fi

# Links named as the applets themselves: ls, and wick-daemon (the name
# the Go host starts the daemon by), serving a client.
mkdir -p names
ln -sf "$WICKFS" names/ls
ln -sf "$WICKFS" names/wick-daemon
check cli.argv0.ls_link '{"ok":true,"data":[{"name":"f","type":"file","size":0}]}' "$(names/ls lsdir 2>&1)"
if "$WICKFS" --list | grep -qx daemon; then
	sock=$TEST_TMP/wd.sock
	names/wick-daemon --listen off --socket "$sock" 2>"$TEST_TMP/wd.log" &
	wd=$!
	for _ in $(seq 200); do
		[ -S "$sock" ] && break
		kill -0 "$wd" 2>/dev/null || break
		sleep 0.05
	done
	check cli.argv0.wick_daemon '{"ok":true,"data":"hi"}' \
		"$(with_timeout 30 "$WICKFS" client --connect "unix:$sock" read "$TEST_TMP/hi.txt" 2>&1)"
	check_match cli.argv0.wick_daemon_log "*wick-daemon*ready:*" "$(cat "$TEST_TMP/wd.log")"
	kill -TERM "$wd"
	with_timeout 10 tail --pid="$wd" -f /dev/null
	wait "$wd"
	check cli.argv0.wick_daemon_exit_0 0 "$?"
else
	skip cli.argv0.wick_daemon "built without the daemon applet"
fi

# Every applet's help ends with an example, and `wickfs help APPLET` and
# `APPLET -h` (outside the reference's form) say the same.
missing=""
for a in $("$WICKFS" --list); do
	h=$("$WICKFS" help "$a")
	case $h in *"Example: "*) ;; *) missing="$missing $a" ;; esac
done
check cli.help_examples "" "$missing"
check cli.help_dash_h "$("$WICKFS" help grep)" "$("$WICKFS" grep -h)"
