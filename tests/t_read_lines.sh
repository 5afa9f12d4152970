#!/usr/bin/env bash
# read --lines / --bytes, and edit's agent extensions (--insert-line, the
# not-found hint, old_text == new_text), every flag and error; the
# reference forms stay as they were.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/read_lines
mkdir -p "$d"
cd "$d" || exit 1

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

# edit --insert-line
printf 'a\nb\n' >e
ok_edit() { printf '{"ok":true,"data":{"path":"%s","replacements":1}}' "$1"; }
expect_in edit.insert.top '{"new_text":"top"}' 0 "$(ok_edit e)" edit --insert-line 0 e
expect_in edit.insert.middle '{"new_text":"mid\n"}' 0 "$(ok_edit e)" edit --insert-line 2 e
expect_in edit.insert.end '{"new_text":"end"}' 0 "$(ok_edit e)" edit --insert-line 4 e
check edit.insert.content $'top\na\nmid\nb\nend' "$(cat e)"
printf 'x\r\ny\r\n' >ecrlf
expect_in edit.insert.crlf '{"new_text":"new"}' 0 "$(ok_edit ecrlf)" edit --insert-line 1 ecrlf
check_true edit.insert.crlf.content "got $(od -c ecrlf | head -2)" cmp -s ecrlf <(printf 'x\r\nnew\r\ny\r\n')
cp e e.orig
expect_error_in edit.insert.past_end '{"new_text":"z"}' "edit e: insert after line 9: the file has 5 lines" edit --insert-line 9 e
expect_error_in edit.insert.empty '{"new_text":""}' "edit e: new_text must not be empty to insert" edit --insert-line 0 e
expect_error_in edit.insert.old_text '{"old_text":"a","new_text":"z"}' "edit e: --insert-line takes new_text only, not old_text" edit --insert-line 0 e
expect_error_in edit.insert.negative '{"new_text":"z"}' "*insert-line*" edit --insert-line -1 e
expect_error_in edit.insert.with_all '{"new_text":"z"}' "*" edit --all --insert-line 0 e
expect_error_in edit.insert.missing '{"new_text":"z"}' "edit nope: no such file or directory" edit --insert-line 0 nope
check_true edit.insert.errors_untouched "changed" cmp -s e e.orig

# old_text == new_text; the not-found hint.
expect_error_in edit.same '{"old_text":"a","new_text":"a"}' "edit e: old_text and new_text are the same; nothing would change" edit e
printf '    if x:\n        y()\n' >py
expect_error_in edit.hint.closest '{"old_text":"if  x:\n  y()","new_text":"z"}' "edit py: old_text not found in file; closest match ignoring whitespace: lines 1-2" edit py
expect_error_in edit.hint.none '{"old_text":"nothing like it","new_text":"z"}' "edit py: old_text not found in file" edit py
check edit.hint.none.exact '{"ok":false,"error":"edit py: old_text not found in file"}' "${OUT%$'\n'}"
printf 'a\r\nb\r\n' >c2
expect_error_in edit.hint.crlf '{"old_text":"zz","new_text":"q"}' "edit c2: old_text not found in file; the file has CRLF line endings" edit c2
