#!/usr/bin/env bash
# read: PROTOCOL.md section 2, row read, and the FIFO/device fix.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/read
mkdir -p "$d"
cd "$d" || exit 1

b64() { base64 -w0 <"$1"; }

printf 'hello\nworld\n' >text
expect read.text 0 '{"ok":true,"data":"hello\nworld\n"}' read text
expect read.absolute 0 '{"ok":true,"data":"hello\nworld\n"}' read "$d/text"
: >empty
expect read.empty 0 '{"ok":true,"data":""}' read empty
printf 'no final newline' >nofinal
expect read.no_final_newline 0 '{"ok":true,"data":"no final newline"}' read nofinal
printf 'a\r\nb\r\n' >crlf
expect read.crlf 0 '{"ok":true,"data":"a\r\nb\r\n"}' read crlf
printf '"q" \\ \t \x01 \x1f \x7f' >esc
expect read.escapes 0 '{"ok":true,"data":"\"q\" \\ \t \u0001 \u001f '$'\x7f''"}' read esc

# NUL bytes are valid UTF-8: text, not base64.
printf 'a\0b\0' >nul
expect read.nul_is_text 0 '{"ok":true,"data":"a\u0000b\u0000"}' read nul

# Valid multi-byte UTF-8 stays text, BOM included.
printf '\xef\xbb\xbfh\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80' >utf8
expect read.utf8 0 '{"ok":true,"data":"'$'\xef\xbb\xbf''hé € 😀"}' read utf8

# Invalid UTF-8: "base64:" + standard base64 of the exact bytes.
for c in 'ff:a\xffb' 'cont:\x80' 'overlong:\xc0\xaf' 'surrogate:\xed\xa0\x80' \
	'above_max:\xf4\x90\x80\x80' 'truncated_end:abc\xe2\x82' 'latin1:caf\xe9\n'; do
	name=${c%%:*}
	printf "${c#*:}" >"bin_$name"
	expect "read.base64.$name" 0 '{"ok":true,"data":"base64:'"$(b64 "bin_$name")"'"}' read "bin_$name"
done
head -c 300000 /dev/urandom >random
printf '\xff' >>random
expect read.base64.large 0 '{"ok":true,"data":"base64:'"$(b64 random)"'"}' read random

# The whole file, however big.
yes 'abcdefghijklmnopqrstuvwxyz0123456789' | head -n 80000 >big
expect read.big_text 0 '{"ok":true,"data":"'"$(sed 's/$/\\n/' big | tr -d '\n')"'"}' read big

# Symlinks are followed.
ln -s text link
expect read.symlink 0 '{"ok":true,"data":"hello\nworld\n"}' read link

expect_error read.nonexistent "$d/nope: no such file or directory" read "$d/nope"
expect_error read.directory "$d" read "$d"
ln -s nowhere dangling
expect_error read.dangling_link "dangling" read dangling

# A FIFO is never opened for reading: no hang, an error naming the type.
mkfifo fifo
timeout -k 1 10 "$WICKFS" read fifo </dev/null >"$_wf_out" 2>"$_wf_err"
RC=$?
_wf_collect
if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
	fail read.fifo "blocked on the FIFO (killed after 10s)"
else
	_expect_error_result read.fifo "fifo"
	check_match read.fifo.names_path "*fifo*" "$(err_msg)"
fi
# Devices too (the reference reads /dev/null as an empty file; we refuse).
timeout -k 1 10 "$WICKFS" read /dev/zero </dev/null >"$_wf_out" 2>"$_wf_err"
RC=$?
_wf_collect
if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
	fail read.device "read /dev/zero did not return"
else
	_expect_error_result read.device "/dev/zero"
	check_match read.device.type "*device*" "$(err_msg)"
fi

# A file the reader may not open. Modes do not bind root: as root the
# check runs as nobody (setpriv, util-linux).
printf x >noperm
chmod 000 noperm
if [ "$(id -u)" != 0 ]; then
	expect_error read.permission "read noperm: permission denied" read noperm
elif command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$WICKFS" read noperm </dev/null >"$_wf_out" 2>"$_wf_err"
	RC=$?
	_wf_collect
	_expect_error_result read.permission "read noperm: permission denied"
else
	skip read.permission "root, and setpriv cannot drop to nobody here"
fi

# WICKFS_MAX_FILE bounds what read loads: over it an error naming the size
# and the limit; at it the file is read. A value that is not a positive
# number leaves the default (1 GiB).
printf '0123456789' >max.txt
WICKFS_MAX_FILE=9 expect read.max_file.over 1 \
	'{"ok":false,"error":"read max.txt: file is 10 bytes, over the 9-byte limit (WICKFS_MAX_FILE)"}' read max.txt
WICKFS_MAX_FILE=10 expect read.max_file.at_limit 0 '{"ok":true,"data":"0123456789"}' read max.txt
WICKFS_MAX_FILE=abc expect read.max_file.not_a_number 0 '{"ok":true,"data":"0123456789"}' read max.txt
WICKFS_MAX_FILE=0 expect read.max_file.zero 0 '{"ok":true,"data":"0123456789"}' read max.txt

# ---- --lines, --bytes (the checks of t_read_lines.sh, merged here) ----
mkdir -p "$TEST_TMP/read_lines"
cd "$TEST_TMP/read_lines" || exit 1
seq 1 2500 >n
# cat -n's bytes for a page, as a JSON string.
page() { jstr "$(awk -v a="$1" -v b="$2" 'NR>=a && NR<=b {printf "%6d\t%s\n", NR, $0}' n; echo .)"; }
want=$(page 1 3)
want=${want%.\"}\"
expect read.lines.limit 0 "{\"ok\":true,\"data\":{\"path\":\"n\",\"text\":$want,\"offset\":1,\"lines\":3,\"total_lines\":2500,\"truncated\":true}}" read --lines --limit 3 n
check_true read.lines.cat_n "differs from cat -n" cmp -s <(wf read --lines --limit 3 n; printf '%b' "$(sed 's/.*"text":"//; s/","offset".*//' "$_wf_out")") <(head -3 n | cat -n)
want=$(page 2499 2500)
want=${want%.\"}\"
expect read.lines.offset_end 0 "{\"ok\":true,\"data\":{\"path\":\"n\",\"text\":$want,\"offset\":2499,\"lines\":2,\"total_lines\":2500,\"truncated\":false}}" read --lines --offset 2499 n
wf read --lines n
check_match read.lines.default_2000 '*"offset":1,"lines":2000,"total_lines":2500,"truncated":true}}*' "$OUT"
expect read.lines.past_end 0 '{"ok":true,"data":{"path":"n","text":"","offset":0,"lines":0,"total_lines":2500,"truncated":false}}' read --lines --offset 3000 n
printf 'a\nb' >nonl
expect read.lines.no_final_newline 0 '{"ok":true,"data":{"path":"nonl","text":"     1\ta\n     2\tb","offset":1,"lines":2,"total_lines":2,"truncated":false}}' read --lines nonl
head -c 2500 /dev/zero | tr '\0' x >long
wf read --lines long
check_match read.lines.long_cut '*"lines":1,"total_lines":1,"truncated":true}}*' "$OUT"
check_match read.lines.long_marker '*x [[]... line cut: 2500 characters]*' "$OUT"
: >empty
expect read.lines.empty 0 '{"ok":true,"data":{"path":"empty","text":"","offset":0,"lines":0,"total_lines":0,"truncated":false}}' read --lines empty
expect_error read.lines.offset_zero "read n: --offset counts lines from 1" read --lines --offset 0 n
expect_error read.lines.limit_zero "*limit*" read --lines --limit 0 n
expect_error read.lines.not_number "*offset*" read --lines --offset x n
expect_error read.lines.missing "*nope: no such file or directory" read --lines nope
expect_error read.lines.and_bytes "*--lines*--bytes*" read --lines --bytes n

# --bytes
printf 'hello world' >h
expect read.bytes.range 0 '{"ok":true,"data":{"path":"h","content":"lo wo","offset":3,"bytes":5,"size":11,"eof":false}}' read --bytes --offset 3 --limit 5 h
expect read.bytes.default 0 '{"ok":true,"data":{"path":"h","content":"hello world","offset":0,"bytes":11,"size":11,"eof":true}}' read --bytes h
expect read.bytes.past_end 0 '{"ok":true,"data":{"path":"h","content":"","offset":20,"bytes":0,"size":11,"eof":true}}' read --bytes --offset 20 h
printf '\xff\x00\x01' >bin
expect read.bytes.base64 0 '{"ok":true,"data":{"path":"bin","content":"base64:/wAB","offset":0,"bytes":3,"size":3,"eof":true}}' read --bytes bin
printf '\xc3\xa9' >utf
expect read.bytes.split_utf8 0 '{"ok":true,"data":{"path":"utf","content":"base64:ww==","offset":0,"bytes":1,"size":2,"eof":false}}' read --bytes --limit 1 utf
expect_error read.bytes.negative "*offset*" read --bytes --offset -1 h
expect_error read.bytes.limit_too_big "*limit*" read --bytes --limit 99999999 h
expect_error read.bytes.fifo "*" read --bytes /dev/null
expect_error read.offset_alone "read h: --offset and --limit need --lines or --bytes" read --offset 1 h
mkfifo fifo
wf read --bytes fifo
check_match read.bytes.fifo_refused '*"ok":false*fifo*' "$OUT"

# The reference form is unchanged, and literal: one argument is a path.
expect read.reference 0 '{"ok":true,"data":"hello world"}' read h
printf 'dash\n' >./--lines
expect read.reference_literal 0 '{"ok":true,"data":"dash\n"}' read --lines

# The daemon's native op and cmd form give the CLI's bytes (the
# patch.daemon.* names of t_patch.sh, where this was).
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
dm=$TEST_TMP/read_daemon
mkdir -p "$dm"
if daemon_start "$dm/daemon.log" --listen off --socket "$dm/d.sock"; then
	printf 'one\ntwo\nthree\n' >"$dm/daemon_f.orig"
	reset="cp '$dm/daemon_f.orig' '$dm/daemon_f'"
	same_via_daemon "unix:$dm/d.sock" patch.daemon.read_lines "$reset" "" \
		read --lines --offset 2 "$dm/daemon_f"
	same_via_daemon "unix:$dm/d.sock" patch.daemon.read_bytes "$reset" "" \
		read --bytes --offset 1 --limit 3 "$dm/daemon_f"
	daemon_stop
else
	fail patch.daemon.start "$(cat "$dm/daemon.log")"
fi

# ---- --gzip (the read.gzip.* checks, once in t_transfer.sh) ----
mkdir -p "$TEST_TMP/read_gzip"
cd "$TEST_TMP/read_gzip" || exit 1
# A field of the last envelope: "key":number|bool or "key":"string".
field() { printf '%s' "$OUT" | sed -n 's/.*"'"$1"'":\("[^"]*"\|[0-9a-z]*\).*/\1/p' | tr -d '"'; }
seq 1 20000 >text.txt
wf read --gzip text.txt
printf '%s' "$OUT" | sed 's/.*"data":"\([^"]*\)".*/\1/' | base64 -d | gunzip >back.txt 2>/dev/null
check_true read.gzip.round_trip "gunzip of the data differs" cmp -s text.txt back.txt
check_true read.gzip.smaller "not smaller: ${#OUT}" test "${#OUT}" -lt 60000
wf read --gzip --bytes --offset 6 --limit 4 text.txt
check read.gzip.range "$(printf '4\n5\n')" "$(field content | base64 -d | gunzip)"
wf read --gzip --lines text.txt
check_match read.gzip.not_with_lines '{"ok":false,"error":"read: --lines cannot be combined with --gzip"}*' "$OUT"
