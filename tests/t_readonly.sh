#!/usr/bin/env bash
# WICKFS_READONLY takes the usual boolean words and refuses anything else;
# read-only refuses writes and commands unless WICKFS_READONLY_EXEC
# allows commands. Also: a request "timeout" of 1e999, and the cause of an
# error about a path over 4 KiB.
. "$(dirname "$0")/lib.sh"

w=$TEST_TMP/ro
mkdir -p "$w"
cd "$w" || exit 1
printf 'old\n' >f

ro_refused='{"ok":false,"error":"write f: refused, WICKFS_READONLY is set"}'
exec_refused='{"ok":false,"error":"exec: refused, WICKFS_READONLY is set (commands could write; WICKFS_READONLY_EXEC=1 allows them)"}'
for v in 1 true TRUE yes Yes on ON; do
	WICKFS_READONLY=$v expect_in "readonly.on.$v.write" new 1 "$ro_refused" write f
	WICKFS_READONLY=$v expect_error_in "readonly.on.$v.edit" '{"old_text":"old","new_text":"x"}' "refused, WICKFS_READONLY is set" edit f
	WICKFS_READONLY=$v expect "readonly.on.$v.exec" 1 "$exec_refused" exec echo hi
	WICKFS_READONLY=$v expect "readonly.on.$v.read" 0 '{"ok":true,"data":"old\n"}' read f
done
check readonly.file_kept "old" "$(cat f)"
for v in 0 false FALSE no No off OFF ""; do
	WICKFS_READONLY=$v expect_in "readonly.off.$v.write" same 0 '{"ok":true,"data":{"path":"f","bytes_written":4}}' write f
	WICKFS_READONLY=$v expect "readonly.off.$v.exec" 0 '{"ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' exec echo hi
done
for v in maybe 2 y enable " 1"; do
	WICKFS_READONLY=$v expect "readonly.bad.$v" 1 "{\"ok\":false,\"error\":\"WICKFS_READONLY=$v: not a boolean; use 1, true, yes, on or 0, false, no, off\"}" read f
done
WICKFS_READONLY=maybe expect_error_in readonly.bad.write_not_done new "WICKFS_READONLY=maybe" write f
check readonly.bad.file_kept "same" "$(cat f)"
WICKFS_READONLY=1 WICKFS_READONLY_EXEC=1 expect readonly.exec_allowed 0 '{"ok":true,"data":{"stdout":"hi\n","stderr":"","exit_code":0}}' exec echo hi
WICKFS_READONLY=1 WICKFS_READONLY_EXEC=true expect_in readonly.exec_allowed.write_still_refused new 1 "$ro_refused" write f
WICKFS_READONLY_EXEC=sure expect_error readonly.exec_bad "WICKFS_READONLY_EXEC=sure: not a boolean" read f

# ---- the policy is each applet's declaration, enforced in one place ----
# An applet that writes (APPLET_WRITES) is refused before it runs, in one
# wording naming its last operand, the target (cp's and mv's DEST,
# chmod's PATH); a write that one option asks for (download --remove and
# --tree, pack --output) is refused only with that option.
printf 'data' >dl
fmode=$(stat -c %a f)
mkdir -p src
printf 'x' >src/a
for c in "cp f g" "mv f g" "chmod 600 f" "symlink f g" "rm f"; do
	# shellcheck disable=SC2086
	WICKFS_READONLY=1 expect "readonly.names_target.${c%% *}" 1 \
		"{\"ok\":false,\"error\":\"${c%% *} ${c##* }: refused, WICKFS_READONLY is set\"}" $c
done
WICKFS_READONLY=1 expect readonly.option.download_remove 1 '{"ok":false,"error":"download dl: refused, WICKFS_READONLY is set"}' download --remove dl
WICKFS_READONLY=1 expect readonly.option.download 0 '{"ok":true,"data":{"path":"dl","offset":0,"bytes":4,"size":4,"eof":true,"data":"ZGF0YQ=="}}' download dl
check_true readonly.option.download_kept "dl was removed" test -e dl
WICKFS_READONLY=1 expect readonly.option.pack_output 1 '{"ok":false,"error":"pack out.tgz: refused, WICKFS_READONLY is set"}' pack --output out.tgz src
check_true readonly.option.pack_output_nothing "out.tgz was made" test ! -e out.tgz
WICKFS_READONLY=1 "$WICKFS" pack src >src.tgz 2>pack.err
rc=$?
check readonly.option.pack_stdout "0 a" "$rc $(tar -tzf src.tgz 2>&1)"
check readonly.option.untouched "same $fmode no-g" "$(cat f) $(stat -c %a f) $([ -e g ] && echo g || echo no-g)"

# ---- the daemon ----
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
# start NAME ENV...: a daemon on $w/NAME.sock with ENV set (words
# without spaces: daemon_start runs it through DAEMON_WRAP)
start() {
	local name=$1
	shift
	DAEMON_WRAP="env $*" daemon_start "$w/$name.log" --listen off --socket "$w/$name.sock" && return 0
	fail "readonly.$name.start" "$(show "$(cat "$w/$name.log")")"
	return 1
}
raw() { local s=$1; shift; with_timeout 30 "$WICKFS" client --connect "unix:$w/$s.sock" --raw "$@"; }

if start ro WICKFS_READONLY=yes; then
	check readonly.daemon.shell '{"id":"1","stdout":"","stderr":"","exit_code":1,"error":"exec: refused, WICKFS_READONLY is set (commands could write; WICKFS_READONLY_EXEC=1 allows them)"}' \
		"$(raw ro '{"id":"1","cmd":"touch made"}')"
	check readonly.daemon.exec_fast "{\"id\":\"2\",\"stdout\":$(jstr "$exec_refused"$'\n'),\"stderr\":\"\",\"exit_code\":1}" \
		"$(raw ro '{"id":"2","cmd":"wickfs exec '"'"'touch made'"'"'"}')"
	check readonly.daemon.exec_op '{"id":"3","ok":false,"error":"exec: refused, WICKFS_READONLY is set (commands could write; WICKFS_READONLY_EXEC=1 allows them)"}' \
		"$(raw ro '{"id":"3","op":"exec","args":["--timeout","5","touch made"]}')"
	check readonly.daemon.exec_op_literal '{"id":"3","ok":false,"error":"exec: refused, WICKFS_READONLY is set (commands could write; WICKFS_READONLY_EXEC=1 allows them)"}' \
		"$(raw ro '{"id":"3","op":"exec","args":["touch made"]}')"
	check_true readonly.daemon.nothing_made "a command ran" test ! -e made
	check readonly.daemon.write "{\"id\":\"4\",\"ok\":false,\"error\":\"write $w/f: refused, WICKFS_READONLY is set\"}" \
		"$(raw ro "{\"id\":\"4\",\"op\":\"write\",\"args\":[$(jstr "$w/f")],\"stdin\":\"x\"}")"
	check readonly.daemon.read "{\"id\":\"5\",\"ok\":true,\"data\":\"same\"}" \
		"$(raw ro "{\"id\":\"5\",\"op\":\"read\",\"args\":[$(jstr "$w/f")]}")"
fi
if start rox WICKFS_READONLY=on WICKFS_READONLY_EXEC=on; then
	check readonly.daemon_exec.shell '{"id":"1","stdout":"hi\n","stderr":"","exit_code":0}' \
		"$(raw rox '{"id":"1","cmd":"echo hi"}')"
	check readonly.daemon_exec.write "{\"id\":\"4\",\"ok\":false,\"error\":\"write $w/f: refused, WICKFS_READONLY is set\"}" \
		"$(raw rox "{\"id\":\"4\",\"op\":\"write\",\"args\":[$(jstr "$w/f")],\"stdin\":\"x\"}")"
fi
OUT=$(WICKFS_READONLY=maybe with_timeout 10 "$WICKFS" daemon --listen off --socket "$w/bad.sock" 2>/dev/null)
RC=$?
check readonly.daemon_bad "1 {\"ok\":false,\"error\":\"WICKFS_READONLY=maybe: not a boolean; use 1, true, yes, on or 0, false, no, off\"}" "$RC $OUT"

# ---- "timeout":1e999 (a float-to-integer overflow before) ----
if start tmo; then
	for t in 1e999 -1e999 1e300 0.5 1e18; do
		check "daemon.timeout.$t" '{"id":"t","stdout":"hi\n","stderr":"","exit_code":0}' \
			"$(raw tmo "{\"id\":\"t\",\"cmd\":\"echo hi\",\"timeout\":$t}")"
	done
	check_true daemon.timeout.alive "the daemon died" kill -0 "${PIDS[-1]}"
fi

# ---- a path over 4 KiB keeps its error's cause ----
long=$(printf 'a%.0s' $(seq 5000))
for a in read ls; do
	wf "$a" "$long"
	check_match "longpath.$a.cause" '{"ok":false,"error":"'"$a"' aaaa*...aaaa*: file*name too long"}'$'\n' "$OUT"
done
wf_in x write "$long/x"
check_match longpath.write.cause '*: file*name too long"}'$'\n' "$OUT"
deep=$(printf 'abcdefghi/%.0s' $(seq 500))
wf read "$deep"
check_match longpath.deep.cause '*: file*name too long"}'$'\n' "$OUT"
check_true longpath.fits_message "message of ${#OUT} bytes" test "${#OUT}" -lt 1100
