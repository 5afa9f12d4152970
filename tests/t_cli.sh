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
for a in $applets; do
	check_match "cli.help.lists_$a" "*$a*" "$OUT"
done
wf --list
check cli.list.exit 0 "$RC"
for a in $applets; do
	check_match "cli.list.$a" "*${nl}${a}${nl}*" "$nl$OUT"
done
wf --version
check cli.version.exit 0 "$RC"
check_match cli.version.zlib "*zlib*" "$OUT"
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

# --install DIR: wickfs-<applet> hard links that dispatch on argv[0].
wf --install bin
check cli.install.exit 0 "$RC"
for a in $applets; do
	check_true "cli.install.$a" "bin/wickfs-$a missing or not executable" test -x "bin/wickfs-$a" -a ! -L "bin/wickfs-$a"
done
printf 'hi' >hi.txt
"$TEST_TMP/bin/wickfs-read" hi.txt >out 2>&1
check cli.install.argv0_read '{"ok":true,"data":"hi"}' "$(cat out)"
"$TEST_TMP/bin/wickfs-ls" lsdir >out 2>&1
check cli.install.argv0_ls '{"ok":true,"data":[{"name":"f","type":"file","size":0}]}' "$(cat out)"
printf 'hello' | "$TEST_TMP/bin/wickfs-write" w.txt >out 2>&1
check cli.install.argv0_write '{"ok":true,"data":{"path":"w.txt","bytes_written":5}} hello' "$(cat out) $(cat w.txt)"

# --install -s DIR: symbolic links.
wf --install -s sbin
check cli.install_s.exit 0 "$RC"
for a in $applets; do
	check_true "cli.install_s.$a" "sbin/wickfs-$a is not a symlink" test -L "sbin/wickfs-$a"
done
"$TEST_TMP/sbin/wickfs-read" hi.txt >out 2>&1
check cli.install_s.argv0_read '{"ok":true,"data":"hi"}' "$(cat out)"
# A second install over existing links works.
wf --install -s sbin
check cli.install_s.again 0 "$RC"

# argv[0] dispatch without links.
(exec -a wickfs-read "$WICKFS" hi.txt) >out 2>&1
check cli.argv0.wickfs_prefix '{"ok":true,"data":"hi"}' "$(cat out)"
(exec -a /some/dir/wickfs "$WICKFS" read hi.txt) >out 2>&1
check cli.argv0.wickfs_path '{"ok":true,"data":"hi"}' "$(cat out)"
