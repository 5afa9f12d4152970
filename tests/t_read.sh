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
