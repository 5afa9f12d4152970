#!/usr/bin/env bash
# edit: PROTOCOL.md section 2, row edit, its errors, and the fixes
# (modes, symlinks, concurrent edits, bytes kept).
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/edit
mkdir -p "$d"
cd "$d" || exit 1

ok_edit() { printf '{"ok":true,"data":{"path":"%s","replacements":1}}' "$1"; }

printf 'hello world\n' >f
expect_in edit.basic '{"old_text":"world","new_text":"there"}' 0 "$(ok_edit f)" edit f
check edit.basic.content 'hello there' "$(cat f)"
expect_in edit.absolute '{"old_text":"there","new_text":"abs"}' 0 "$(ok_edit "$d/f")" edit "$d/f"
expect_in edit.path_as_given '{"old_text":"abs","new_text":"given"}' 0 "$(ok_edit ./f)" edit ./f
check edit.path_as_given.content 'hello given' "$(cat f)"

# The first occurrence only, "replacements":1.
printf 'aXbXcX\n' >first
expect_in edit.first_only '{"old_text":"X","new_text":"YY"}' 0 "$(ok_edit first)" edit first
check edit.first_only.content 'aYYbXcX' "$(cat first)"
printf 'a\n' >grow
expect_in edit.new_contains_old '{"old_text":"a","new_text":"aa"}' 0 "$(ok_edit grow)" edit grow
check edit.new_contains_old.content 'aa' "$(cat grow)"

# Keys match case-insensitively; unknown keys are ignored.
printf 'one two\n' >keys
expect_in edit.keys_upper '{"OLD_TEXT":"one","NEW_TEXT":"1"}' 0 "$(ok_edit keys)" edit keys
expect_in edit.keys_mixed '{"Old_Text":"two","New_text":"2"}' 0 "$(ok_edit keys)" edit keys
check edit.keys.content '1 2' "$(cat keys)"
expect_in edit.unknown_keys '{"comment":"x","old_text":"1","extra":[1,{"a":null}],"new_text":"one","n":3.5}' 0 "$(ok_edit keys)" edit keys
check edit.unknown_keys.content 'one 2' "$(cat keys)"
# A missing new_text deletes.
expect_in edit.no_new_text '{"old_text":" 2"}' 0 "$(ok_edit keys)" edit keys
check edit.no_new_text.content 'one' "$(cat keys)"
# JSON escapes in both texts; multi-line old_text.
printf 'line1\nline2\n"q"\n' >esc
expect_in edit.escapes '{"old_text":"line1\nline2","new_text":"\u00e9\t\"\\\n\ud83d\ude00"}' 0 "$(ok_edit esc)" edit esc
check_true edit.escapes.content "got $(od -c esc | head -3)" cmp -s esc <(printf '\xc3\xa9\t"\\\n\xf0\x9f\x98\x80\n"q"\n')
printf 'a\0b zap\n' >nulf
expect_in edit.nul_old_text '{"old_text":"\u0000b","new_text":"B"}' 0 "$(ok_edit nulf)" edit nulf
check_true edit.nul_old_text.content "got $(od -c nulf | head -2)" cmp -s nulf <(printf 'aB zap\n')

# Errors. Invalid JSON:
printf 'keep\n' >untouched
for c in 'garbage:not json' 'truncated:{"old_text":"a"' 'empty:' 'trailing:{"old_text":"keep","new_text":"x"} x' \
	'array:["keep","x"]' 'number_type:{"old_text":1,"new_text":"x"}' 'string_top:"keep"'; do
	expect_error_in "edit.invalid_json.${c%%:*}" "${c#*:}" "" edit untouched
	check_match "edit.invalid_json.${c%%:*}.message" 'invalid JSON input: ?*' "$(err_msg)"
done
check edit.invalid_json.untouched keep "$(cat untouched)"

# An empty old_text, checked before the file is touched: even a missing
# file gives this error.
ino=$(stat -c %i untouched)
touch -d '2001-01-01 00:00:00' untouched
mt=$(stat -c %Y untouched)
for c in 'empty:{"old_text":"","new_text":"x"}' 'missing:{"new_text":"x"}' 'null:null' 'object:{}'; do
	expect_error_in "edit.empty_old_text.${c%%:*}" "${c#*:}" "old_text must not be empty" edit untouched
done
check edit.empty_old_text.untouched "keep $ino $mt" "$(cat untouched) $(stat -c '%i %Y' untouched)"
expect_error_in edit.empty_old_text.before_open '{"old_text":"","new_text":"x"}' "old_text must not be empty" edit nonexistent
check_true edit.empty_old_text.before_open.no_file "nonexistent was created" test ! -e nonexistent

# Not found: the file stays as it was.
expect_error_in edit.not_found '{"old_text":"absent","new_text":"x"}' "old_text not found" edit untouched
check edit.not_found.untouched "keep $ino $mt" "$(cat untouched) $(stat -c '%i %Y' untouched)"
# Case matters in the text.
expect_error_in edit.not_found.case '{"old_text":"KEEP","new_text":"x"}' "old_text not found" edit untouched
# The open error names the path.
expect_error_in edit.nonexistent '{"old_text":"a","new_text":"b"}' "$d/nope" edit "$d/nope"
check_match edit.nonexistent.cause "*no such file or directory*" "$(err_msg)"
mkdir -p adir
expect_error_in edit.directory '{"old_text":"a","new_text":"b"}' "adir" edit adir
expect_error edit.usage "usage: wickfs edit" edit
check_match edit.usage.prefix 'usage: wickfs edit*' "$(err_msg)"

# Bytes that were not asked to change survive: CRLF, no final newline,
# a BOM, invalid UTF-8.
printf '\xef\xbb\xbfl1\r\nl2\r\nl3' >crlf
expect_in edit.crlf_bom '{"old_text":"l2","new_text":"L2"}' 0 "$(ok_edit crlf)" edit crlf
check_true edit.crlf_bom.bytes "got $(od -c crlf | head -2)" cmp -s crlf <(printf '\xef\xbb\xbfl1\r\nL2\r\nl3')
printf '\xff\xfe hello \x80\n' >latin
expect_in edit.invalid_utf8_kept '{"old_text":"hello","new_text":"bye"}' 0 "$(ok_edit latin)" edit latin
check_true edit.invalid_utf8_kept.bytes "got $(od -c latin | head -2)" cmp -s latin <(printf '\xff\xfe bye \x80\n')

# Mode, owner, symlinks, temp files.
printf 'mode\n' >m640
chmod 640 m640
expect_in edit.keeps_mode '{"old_text":"mode","new_text":"MODE"}' 0 "$(ok_edit m640)" edit m640
check edit.keeps_mode.mode 640 "$(mode_of m640)"
printf 'exe\n' >m755
chmod 755 m755
wf_in '{"old_text":"exe","new_text":"EXE"}' edit m755
check edit.keeps_mode_755 "755 EXE" "$(mode_of m755) $(cat m755)"
if [ "$(id -u)" = 0 ]; then
	printf 'own\n' >owned
	chown 65534:65534 owned
	wf_in '{"old_text":"own","new_text":"OWN"}' edit owned
	check edit.keeps_owner "65534:65534 OWN" "$(stat -c %u:%g owned) $(cat owned)"
else
	skip edit.keeps_owner "not root"
fi
mkdir -p t l
printf 'target text\n' >t/target
chmod 600 t/target
ln -s ../t/target l/link
expect_in edit.symlink '{"old_text":"target","new_text":"edited"}' 0 "$(ok_edit l/link)" edit l/link
check_true edit.symlink.still_link "l/link is no longer a symlink" test -L l/link
check edit.symlink.target ../t/target "$(readlink l/link)"
check edit.symlink.content 'edited text' "$(cat t/target)"
check edit.symlink.target_mode 600 "$(mode_of t/target)"
check edit.no_temp_files "link target" "$(ls -A l) $(ls -A t)"

# Concurrent edits of one file: none is lost.
c=conc
: >"$c"
for i in $(seq -w 0 19); do printf 'marker_%s\n' "$i" >>"$c"; done
for i in $(seq -w 0 19); do
	printf '{"old_text":"marker_%s","new_text":"done_%s"}' "$i" "$i" >"in_$i"
	"$WICKFS" edit "$c" <"in_$i" >"out_$i" 2>&1 &
done
wait
bad=""
for i in $(seq -w 0 19); do
	[ "$(cat "out_$i")" == "$(ok_edit "$c")" ] || bad="$bad $i:$(cat "out_$i")"
done
check edit.concurrent.replies "" "$bad"
check edit.concurrent.all_applied "$(for i in $(seq -w 0 19); do printf 'done_%s\n' "$i"; done)" "$(cat "$c")"
check edit.concurrent.no_temp_files 0 "$(ls -A | grep -c -v -e '^in_' -e '^out_' -e '^[a-z0-9]*$')"

# --all: every occurrence, counted; matches do not overlap.
edit_n() { printf '{"ok":true,"data":{"path":"%s","replacements":%s}}' "$1" "$2"; }
printf 'aXbX\ncX\nd\n' >all
expect_in edit.all.count '{"old_text":"X","new_text":"YY"}' 0 "$(edit_n all 3)" edit --all all
check edit.all.content $'aYYbYY\ncYY\nd' "$(cat all)"
printf 'aaaaa' >overlap
expect_in edit.all.no_overlap '{"old_text":"aa","new_text":"b"}' 0 "$(edit_n overlap 2)" edit --all overlap
check edit.all.no_overlap.content 'bba' "$(cat overlap)"
expect_in edit.all.one '{"old_text":"d","new_text":"D"}' 0 "$(edit_n all 1)" edit --all all
expect_error_in edit.all.not_found '{"old_text":"Q","new_text":"Z"}' "edit all: old_text not found in file" edit --all all
check edit.all.not_found.untouched $'aYYbYY\ncYY\nD' "$(cat all)"

# --unique: more than one occurrence is an error that lists their lines
# (a line once per occurrence), and the file is left as it was.
printf 'aXbX\ncX\nd\n' >uniq
expect_error_in edit.unique.lines '{"old_text":"X","new_text":"Y"}' \
	"edit uniq: old_text matches 3 times (lines 1, 1, 2); add context to make it unique or pass --all" edit --unique uniq
check edit.unique.untouched $'aXbX\ncX\nd' "$(cat uniq)"
expect_in edit.unique.once '{"old_text":"cX","new_text":"C"}' 0 "$(edit_n uniq 1)" edit --unique uniq
check edit.unique.once.content $'aXbX\nC\nd' "$(cat uniq)"
expect_error_in edit.unique.not_found '{"old_text":"cX","new_text":"C"}' "edit uniq: old_text not found in file" edit --unique uniq

# CRLF files: bytes as they are; "\n" alone does not match "\r\n", and the
# line numbers of --unique count CRLF lines.
printf 'a\r\nX\r\nb X\r\n' >crlf
expect_error_in edit.crlf.unique_lines '{"old_text":"X","new_text":"Z"}' \
	"edit crlf: old_text matches 2 times (lines 2, 3); add context to make it unique or pass --all" edit --unique crlf
expect_error_in edit.crlf.lf_not_crlf '{"old_text":"X\n","new_text":"Z\n"}' "edit crlf: old_text not found in file" edit --all crlf
expect_in edit.crlf.all '{"old_text":"X\r\n","new_text":"Z\r\n"}' 0 "$(edit_n crlf 2)" edit --all crlf
check_true edit.crlf.all.content "got $(od -c crlf | head -2)" cmp -s crlf <(printf 'a\r\nZ\r\nb Z\r\n')

# WICKFS_MAX_FILE bounds what edit loads: over it, an error naming the
# size and the limit, and the file untouched; at it, the edit is made.
printf '0123456789' >max
WICKFS_MAX_FILE=9 expect_in edit.max_file.over '{"old_text":"0","new_text":"x"}' 1 \
	'{"ok":false,"error":"edit max: file is 10 bytes, over the 9-byte limit (WICKFS_MAX_FILE)"}' edit max
check edit.max_file.untouched 0123456789 "$(cat max)"
WICKFS_MAX_FILE=10 expect_in edit.max_file.at_limit '{"old_text":"0","new_text":"x"}' 0 "$(ok_edit max)" edit max
check edit.max_file.at_limit.content x123456789 "$(cat max)"

# ---- --insert-line, old_text == new_text, the not-found hint (once in
# t_read_lines.sh) ----
mkdir -p "$TEST_TMP/edit_insert"
cd "$TEST_TMP/edit_insert" || exit 1
# edit --insert-line
printf 'a\nb\n' >e
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

# WICKFS_READONLY refuses an insert too (patch.readonly.insert, once in
# t_patch.sh).
printf 'a\n' >ro
WICKFS_READONLY=1 wf_in '{"new_text":"y"}' edit --insert-line 0 ro
check_match patch.readonly.insert '*refused, WICKFS_READONLY is set*' "$OUT"

# The daemon's native op and cmd form give the CLI's bytes (the
# patch.daemon.* names of t_patch.sh, where this was).
trap 'kill_pids; chmod -R u+rwx "$TEST_TMP" 2>/dev/null' EXIT
dm=$TEST_TMP/edit_daemon
mkdir -p "$dm"
if daemon_start "$dm/daemon.log" --listen off --socket "$dm/d.sock"; then
	printf 'one\ntwo\nthree\n' >"$dm/daemon_f.orig"
	reset="cp '$dm/daemon_f.orig' '$dm/daemon_f'"
	same_via_daemon "unix:$dm/d.sock" patch.daemon.insert "$reset" \
		'{"new_text":"zero"}' edit --insert-line 0 "$dm/daemon_f"
	daemon_stop
else
	fail patch.daemon.start "$(cat "$dm/daemon.log")"
fi
