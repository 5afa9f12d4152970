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
