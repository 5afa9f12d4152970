#!/usr/bin/env bash
# Confinement: WICKFS_ROOT / --root DIR keeps every applet's paths beneath
# the workspace, through "..", absolute paths and symlinks (relative,
# absolute, chained, looping), for reads and writes alike; the daemon
# confines its in-process operations and the workdirs of commands.
. "$(dirname "$0")/lib.sh"
tests_dir=$(cd "$(dirname "$0")" && pwd)

t=$TEST_TMP/confine
ws=$t/ws
out=$t/outside
mkdir -p "$ws/sub/deep" "$out"
ws=$(cd "$ws" && pwd -P)
out=$(cd "$out" && pwd -P)
printf 'inside\n' >"$ws/a.txt"
printf 'secret needle\n' >"$out/s.txt"
printf 'needle here\n' >"$ws/sub/deep/n.txt"
ln -s "$out" "$ws/outdir"                 # absolute, leaves
ln -s ../../outside/s.txt "$ws/sub/rel"   # relative, leaves
ln -s ../a.txt "$ws/sub/up"               # relative, stays
ln -s "$ws/sub" "$ws/abs_in"              # absolute, stays
ln -s sub/rel "$ws/chain"                 # a chain that leaves at its end
ln -s loop2 "$ws/loop1"
ln -s loop1 "$ws/loop2"
ln -s / "$ws/slash"
cd "$ws" || exit 1

W() { WICKFS_ROOT=$ws "$WICKFS" "$@" 2>&1; }
outside() { printf '{"ok":false,"error":"%s: outside the workspace root %s"}' "$1" "$ws"; }
leads() { printf '{"ok":false,"error":"%s: a symlink leads outside the workspace root %s (%s -> %s)"}' "$1" "$ws" "$2" "$3"; }

# Inside: everything works as without a root.
check confine.read_inside '{"ok":true,"data":"inside\n"}' "$(W read a.txt)"
check confine.read_absolute_inside '{"ok":true,"data":"inside\n"}' "$(W read "$ws/a.txt")"
check confine.read_link_inside '{"ok":true,"data":"inside\n"}' "$(W read sub/up)"
check confine.read_abs_link_inside '{"ok":true,"data":"inside\n"}' "$(W read abs_in/up)"
check confine.read_dotdot_inside '{"ok":true,"data":"inside\n"}' "$(W read sub/deep/../../a.txt)"
check confine.ls_inside "$("$WICKFS" ls sub)" "$(W ls sub)"

# Out: absolute paths, "..", and every kind of link that leaves.
check confine.read_absolute_outside "$(outside "read $out/s.txt")" "$(W read "$out/s.txt")"
check confine.read_dotdot_outside "$(outside "read ../outside/s.txt")" "$(W read ../outside/s.txt)"
check confine.ls_parent "$(outside "ls ..")" "$(W ls ..)"
check confine.read_via_dir_link "$(leads "read outdir/s.txt" "$ws/outdir" "$out")" "$(W read outdir/s.txt)"
check confine.read_via_relative_link "$(leads "read sub/rel" "$ws/sub/rel" "../../outside/s.txt")" "$(W read sub/rel)"
check confine.read_via_chain "$(leads "read chain" "$ws/sub/rel" "../../outside/s.txt")" "$(W read chain)"
check confine.ls_link_to_slash "$(leads "ls slash" "$ws/slash" "/")" "$(W ls slash)"
check confine.loop '{"ok":false,"error":"read loop1: too many levels of symbolic links"}' "$(W read loop1)"
# "/.." is "/": still outside.
check confine.read_root_dotdot "$(outside "read /../etc/passwd")" "$(W read /../etc/passwd)"

# Writes: new directories inside are fine; nothing is created outside.
check confine.write_new_dirs "{\"ok\":true,\"data\":{\"path\":\"new/dir/f.txt\",\"bytes_written\":3}}" \
	"$(printf 'abc' | W write new/dir/f.txt)"
check confine.write_escape_by_name "$(outside "write new/../../x.txt")" "$(printf 'x' | W write new/../../x.txt)"
check confine.write_escape_missing_dirs "$(outside "write nope/../../y.txt")" "$(printf 'x' | W write nope/../../y.txt)"
check confine.nothing_written_outside "" "$(ls "$t" | grep -v '^ws$\|^outside$')"
check confine.write_via_link "$(leads "write outdir/new.txt" "$ws/outdir" "$out")" "$(printf 'x' | W write outdir/new.txt)"
check confine.no_new_file_outside "s.txt" "$(ls "$out")"
check confine.edit_via_link "$(leads "edit sub/rel" "$ws/sub/rel" "../../outside/s.txt")" \
	"$(printf '{"old_text":"secret","new_text":"public"}' | W edit sub/rel)"
check confine.outside_unchanged "secret needle" "$(cat "$out/s.txt")"
check confine.edit_inside '{"ok":true,"data":{"path":"a.txt","replacements":1}}' \
	"$(printf '{"old_text":"inside","new_text":"still inside"}' | W edit a.txt)"
# Through a link that stays inside: the file changes, the link stays.
check confine.edit_via_inner_link '{"ok":true,"data":{"path":"sub/up","replacements":1}}' \
	"$(printf '{"old_text":"still","new_text":"STILL"}' | W edit sub/up)"
check confine.inner_link_kept "../a.txt STILL inside" "$(readlink sub/up) $(cat a.txt)"
printf 'still inside\n' >a.txt
check confine.write_via_inner_link '{"ok":true,"data":{"path":"abs_in/up","bytes_written":13}}' \
	"$(printf 'still inside\n' | W write abs_in/up)"
check confine.inner_link_kept_write "../a.txt" "$(readlink sub/up)"

# grep and glob: roots are checked; links out of the tree are not followed.
unconfined=$("$WICKFS" grep needle .)
check_match confine.grep_unconfined_follows_links '*"file":"sub/rel"*' "$unconfined"
check confine.grep_skips_links_out '{"ok":true,"data":{"matches":[{"file":"sub/deep/n.txt","line":1,"text":"needle here"}],"truncated":false}}' \
	"$(W grep needle .)"
check confine.grep_root_outside "$(outside "grep $out")" "$(W grep needle "$out")"
check confine.glob_root_outside "$(outside "glob $out")" "$(W glob '*.txt' "$out")"
check confine.glob_via_link "$(leads "glob outdir" "$ws/outdir" "$out")" "$(W glob '*.txt' outdir)"
check confine.glob_inside '{"ok":true,"data":{"files":["a.txt","new/dir/f.txt","sub/deep/n.txt"],"truncated":false}}' \
	"$(W glob '**/*.txt')"

# A missing component, then ".." back into real directories: the links
# after it are checked again (they once were walked by name, unchecked).
check confine.missing_dotdot_write "$(leads "write nope/../outdir/a/b/f" "$ws/outdir" "$out")" \
	"$(printf 'x' | W write nope/../outdir/a/b/f)"
check confine.missing_dotdot_nothing_created "s.txt" "$(ls "$out")"
check confine.missing_dotdot_deeper "$(leads "write nope/x/../../outdir/a/f" "$ws/outdir" "$out")" \
	"$(printf 'x' | W write nope/x/../../outdir/a/f)"
check confine.missing_dotdot_read "$(leads "read nope/../outdir/s.txt" "$ws/outdir" "$out")" \
	"$(W read nope/../outdir/s.txt)"
check confine.missing_dotdot_grep "$(leads "grep nope/../outdir" "$ws/outdir" "$out")" \
	"$(W grep needle nope/../outdir)"
check confine.missing_dotdot_glob "$(leads "glob nope/../outdir" "$ws/outdir" "$out")" \
	"$(W glob '*.txt' nope/../outdir)"
check confine.missing_dotdot_inside '{"ok":true,"data":"still inside\n"}' "$(W read nope/../a.txt)"
check confine.missing_dotdot_still_missing '{"ok":true,"data":{"path":"nope/x/../f.txt","bytes_written":1}}' \
	"$(printf 'x' | W write nope/x/../f.txt)"
check confine.missing_dotdot_made_inside "x" "$(cat nope/f.txt)"
rm -rf nope

# The flag, a bad root, and "/" as the root.
check confine.flag "$(outside "read $out/s.txt")" "$("$WICKFS" --root "$ws" read "$out/s.txt" 2>&1)"
check confine.flag_inside '{"ok":true,"data":"still inside\n"}' "$("$WICKFS" --root "$ws" read a.txt 2>&1)"
check confine.bad_root "{\"ok\":false,\"error\":\"read a.txt: workspace root $t/nope (WICKFS_ROOT): no such file or directory\"}" \
	"$(WICKFS_ROOT=$t/nope "$WICKFS" read a.txt 2>&1)"
check confine.slash_root '{"ok":true,"data":"secret needle\n"}' "$(WICKFS_ROOT=/ "$WICKFS" read "$out/s.txt" 2>&1)"
# A root given through a symlink is resolved first.
ln -s "$ws" "$t/wslink"
check confine.root_via_link '{"ok":true,"data":"still inside\n"}' "$(WICKFS_ROOT=$t/wslink "$WICKFS" read "$ws/a.txt" 2>&1)"

# Without openat2 (kernels before 5.6, dated seccomp profiles) the checked
# path is opened as it is: the same answers.
if ${HOSTCC:-cc} -O1 -o "$t/seccomp_deny" "$tests_dir/helpers/seccomp_deny.c" 2>"$t/cc.err"; then
	N() { WICKFS_ROOT=$ws "$t/seccomp_deny" openat2 "$WICKFS" "$@" 2>&1; }
	check confine.no_openat2_read '{"ok":true,"data":"still inside\n"}' "$(N read abs_in/up)"
	check confine.no_openat2_ls "$("$WICKFS" ls sub)" "$(N ls sub)"
	check confine.no_openat2_escape "$(leads "read sub/rel" "$ws/sub/rel" "../../outside/s.txt")" "$(N read sub/rel)"
	check confine.no_openat2_outside "$(outside "read $out/s.txt")" "$(N read "$out/s.txt")"
	check confine.no_openat2_missing_dotdot "$(leads "read nope/../outdir/s.txt" "$ws/outdir" "$out")" \
		"$(N read nope/../outdir/s.txt)"
else
	fail confine.seccomp_helper "cannot build tests/helpers/seccomp_deny.c: $(head -c 300 "$t/cc.err")"
fi

# ---- the daemon ----
sock=$t/d.sock
# Started elsewhere, with a relative socket path: it works from the root,
# and still removes its socket at the end.
DAEMON_DIR=$t daemon_start "$t/d.log" --root "$ws" --listen off --socket d.sock
rc() { with_timeout 30 "$WICKFS" client --connect "unix:$sock" --raw "$@"; }
check_match confine.daemon_logs_root "*workspace root $ws: the working directory; file operations and workdirs are confined to it, shell commands are not*" \
	"$(cat "$t/d.log")"
check confine.daemon_op_outside "{\"id\":\"o\",\"ok\":false,\"error\":\"read $out/s.txt: outside the workspace root $ws\"}" \
	"$(rc "{\"id\":\"o\",\"op\":\"read\",\"args\":[\"$out/s.txt\"]}")"
check confine.daemon_op_inside '{"id":"i","ok":true,"data":"still inside\n"}' \
	"$(rc "{\"id\":\"i\",\"op\":\"read\",\"args\":[\"a.txt\"],\"workdir\":\"$ws\"}")"
check confine.daemon_fast_path_outside "{\"id\":\"f\",\"stdout\":$(jstr "$(outside "read $out/s.txt")
"),\"stderr\":\"\",\"exit_code\":1}" \
	"$(rc "{\"id\":\"f\",\"cmd\":\"wickfs read '$out/s.txt'\"}")"
check confine.daemon_workdir_outside "{\"id\":\"w\",\"stdout\":\"\",\"stderr\":\"\",\"exit_code\":1,\"error\":\"workdir $out: outside the workspace root $ws\"}" \
	"$(rc "{\"id\":\"w\",\"cmd\":\"cat s.txt\",\"workdir\":\"$out\"}")"
# Relative paths are relative to the root, wherever the CLI is started
# (they were resolved against the working directory: "outside the
# workspace root" for a file that is in it); a root that is a file says so.
out_cli=$(cd / && "$WICKFS" --root "$ws" read a.txt 2>&1)
check confine.relative_to_root '{"ok":true,"data":"still inside\n"}' "$out_cli"
out_cli=$(cd / && WICKFS_ROOT=$ws "$WICKFS" exec pwd 2>&1)
check confine.exec_starts_in_root "{\"ok\":true,\"data\":{\"stdout\":\"$ws\\n\",\"stderr\":\"\",\"exit_code\":0}}" "$out_cli"
out_cli=$("$WICKFS" --root "$ws/a.txt" read a.txt 2>&1)
check confine.root_not_a_directory "{\"ok\":false,\"error\":\"read a.txt: workspace root $ws/a.txt (WICKFS_ROOT): not a directory\"}" "$out_cli"
# The same rule on the command line (exec --cwd was not checked there).
out_cli=$(WICKFS_ROOT=$ws "$WICKFS" exec --cwd "$out" cat s.txt 2>&1)
check confine.exec_cwd_outside "{\"ok\":false,\"error\":\"exec --cwd $out: outside the workspace root $ws\"}" "$out_cli"
ln -sfn "$out" "$ws/cwdlink"
out_cli=$(WICKFS_ROOT=$ws "$WICKFS" exec --cwd "$ws/cwdlink" cat s.txt 2>&1)
check_match confine.exec_cwd_through_link "*exec --cwd $ws/cwdlink: a symlink leads outside the workspace root*" "$out_cli"
rm -f "$ws/cwdlink"
check confine.daemon_command_inside "{\"id\":\"c\",\"stdout\":\"still inside\\n\",\"stderr\":\"\",\"exit_code\":0}" \
	"$(rc "{\"id\":\"c\",\"cmd\":\"cat a.txt\",\"workdir\":\"$ws\"}")"
check confine.daemon_starts_in_root "{\"id\":\"p\",\"stdout\":\"$ws\\n\",\"stderr\":\"\",\"exit_code\":0}" \
	"$(rc '{"id":"p","cmd":"pwd"}')"
check confine.daemon_relative_op '{"id":"r","ok":true,"data":"still inside\n"}' \
	"$(rc '{"id":"r","op":"read","args":["a.txt"]}')"
check confine.daemon_command_env "{\"id\":\"e\",\"stdout\":\"$ws\\n\",\"stderr\":\"\",\"exit_code\":0}" \
	"$(rc '{"id":"e","cmd":"echo $WICKFS_ROOT"}')"
# A request's own "root", beneath the daemon's: it narrows, never widens.
mkdir -p "$ws/sub"
printf 'in sub\n' >"$ws/sub/in.txt"
ln -sfn "$ws" "$ws/sub/up"
check confine.request_root_inside '{"id":"q1","ok":true,"data":"in sub\n"}' \
	"$(rc "{\"id\":\"q1\",\"op\":\"read\",\"args\":[\"$ws/sub/in.txt\"],\"root\":\"$ws/sub\"}")"
check_match confine.request_root_narrows "*\"ok\":false,\"error\":\"read $ws/a.txt: outside the workspace root $ws/sub\"*" \
	"$(rc "{\"id\":\"q2\",\"op\":\"read\",\"args\":[\"$ws/a.txt\"],\"root\":\"$ws/sub\"}")"
check_match confine.request_root_no_widening "*\"ok\":false,\"error\":\"root $out: outside the workspace root $ws\"*" \
	"$(rc "{\"id\":\"q3\",\"op\":\"read\",\"args\":[\"$out/s.txt\"],\"root\":\"$out\"}")"
check_match confine.request_root_relative '*"id":"q4","ok":false,"error":"field ?"root?" must be an absolute path"}' \
	"$(rc '{"id":"q4","op":"read","args":["a.txt"],"root":"sub"}')"
check_match confine.request_root_not_dir "*\"error\":\"root $ws/a.txt: not a directory\"*" \
	"$(rc "{\"id\":\"q5\",\"op\":\"read\",\"args\":[\"a.txt\"],\"root\":\"$ws/a.txt\"}")"
check_match confine.request_root_log "*\"ok\":false,\"error\":\"start: log $ws/sub/up/x.log: a symlink leads outside the workspace root $ws/sub*" \
	"$(rc "{\"id\":\"q6\",\"op\":\"start\",\"args\":[\"true\"],\"detach\":true,\"log\":\"$ws/sub/up/x.log\",\"root\":\"$ws/sub\"}")"
check_true confine.request_root_log_nothing "$ws/x.log was made" test ! -e "$ws/x.log"
check_match confine.request_root_watch "*\"ok\":false,\"error\":\"watch $ws/sub/up: a symlink leads outside the workspace root $ws/sub*" \
	"$(rc "{\"id\":\"q7\",\"op\":\"watch\",\"path\":\"$ws/sub/up\",\"root\":\"$ws/sub\"}")"
rm -rf "$ws/sub"
daemon_stop
check confine.daemon_exit_0 0 "$?"
check confine.daemon_socket_removed "" "$(ls "$sock" 2>/dev/null)"
"$WICKFS" daemon --root "$t/nope" --listen off --socket "$t/d2.sock" 2>"$t/d2.log"
check confine.daemon_bad_root 1 "$?"
check_match confine.daemon_bad_root_logged "*workspace root $t/nope (WICKFS_ROOT): No such file or directory*" "$(cat "$t/d2.log")"
