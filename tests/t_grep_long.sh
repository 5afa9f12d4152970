#!/usr/bin/env bash
# grep and long lines (issue 11 section 4): memory does not follow the
# longest line, the text of a line is cut at 64 KiB and marked, and
# WICKFS_MAX_FILE applies to grep (a .gz by its decompressed size).
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/d
mkdir -p "$d"
# N bytes of the character C
fill() { head -c "$1" /dev/zero | tr '\0' "$2"; }
# The JSON field F of every match, one per line (python reads the JSON).
fields() {
	python3 -c 'import json,sys
d=json.load(sys.stdin)
for m in d["data"].get("matches",[]):
    print(m["line"], len(m["text"].encode()), m.get("text_truncated", False))
print("skipped", d["data"].get("skipped"))' <<<"$OUT"
}
if ! command -v python3 >/dev/null; then
	skip grep_long.all "python3 is needed to read the JSON"
	exit 0
fi

# ---- the 64 KiB cut ----
{ fill 100000 a; printf 'NEEDLE\n'; fill 65536 b; printf 'NEEDLE\n'; } >"$d/cut.txt"
wf grep NEEDLE "$d/cut.txt"
check grep_long.cut_at_64k "$(printf '1 65536 True\n2 65536 True\nskipped None')" "$(fields)"
{ fill 65530 b; printf 'NEEDLE\n'; } >"$d/exact.txt"
wf grep NEEDLE "$d/exact.txt"
check grep_long.not_cut_at_64k "$(printf '1 65536 False\nskipped None')" "$(fields)"
# The cut backs up to where a character starts: 65535 bytes, then é.
{ fill 65535 c; printf '\xc3\xa9NEEDLE\n'; } >"$d/utf8.txt"
wf grep NEEDLE "$d/utf8.txt"
check grep_long.cut_on_character "$(printf '1 65535 True\nskipped None')" "$(fields)"
# Context lines are cut too.
{ fill 70000 x; printf '\nNEEDLE\n'; } >"$d/ctx.txt"
wf grep -B 1 NEEDLE "$d/ctx.txt"
check grep_long.context_cut "$(printf '1 65536 True\n2 6 False\nskipped None')" "$(fields)"

# ---- lines longer than the 4 MiB window: what is found, and where ----
# 10 MB of 'a' then 'b'; a short line after it.
{ printf 'first\n'; fill 10000000 a; printf 'b\nlast a\n'; } >"$d/win.txt"
wf grep 'b$' "$d/win.txt"
check grep_long.window_dollar_at_line_end "$(printf '2 65536 True\nskipped None')" "$(fields)"
# Every window of line 2 ends in 'a': "a$" must not match at a cut.
wf grep 'a$' "$d/win.txt"
check grep_long.window_dollar_not_at_cut "$(printf '3 6 False\nskipped None')" "$(fields)"
wf grep '^a' "$d/win.txt"
check grep_long.window_caret "$(printf '2 65536 True\nskipped None')" "$(fields)"
wf grep '^b' "$d/win.txt"
check grep_long.window_caret_not_at_cut "$(printf 'skipped None')" "$(fields)"
# No word boundary inside "aa...ab": none may appear at a cut either.
wf grep 'a\b' "$d/win.txt"
check grep_long.window_word_boundary "$(printf '3 6 False\nskipped None')" "$(fields)"
# A needle across the first window's edge (4 MiB) and past several.
{ fill $((4 * 1048576 - 3)) a; printf 'NEEDLE'; fill 100 a; printf '\n'; } >"$d/edge.txt"
wf grep -c NEEDLE "$d/edge.txt"
check_match grep_long.match_across_window_edge '*"count":1*' "$OUT"
{ fill 9000000 a; printf 'NEEDLE\n'; } >"$d/far.txt"
wf grep NEEDLE "$d/far.txt"
check grep_long.match_windows_later "$(printf '1 65536 True\nskipped None')" "$(fields)"

# ---- memory: a 200 MB line, with and without a match ----
big=$d/big.txt
{ fill 100000000 a; printf 'NEEDLE'; fill 100000000 b; printf '\nNEEDLE\n'; } >"$big"
if [ ! -x /usr/bin/time ]; then
	skip grep_long.rss "no /usr/bin/time to measure the peak RSS"
elif [ "${WICKFS_SANITIZED:-0}" = 1 ]; then
	skip grep_long.rss "the sanitizer build's memory is not the binary's"
else
	# peak RSS in KiB of: wickfs ARGS (its stdout in $TEST_TMP/out)
	peak() {
		/usr/bin/time -f '%M' -o "$TEST_TMP/rss" "$WICKFS" "$@" >"$TEST_TMP/out"
		cat "$TEST_TMP/rss"
	}
	for pat in ZZZ 'b$' NEEDLE; do
		kb=$(peak grep "$pat" "$big")
		if [ "$kb" -lt 65536 ]; then
			pass "grep_long.rss_200MB_line[$pat]"
		else
			fail "grep_long.rss_200MB_line[$pat]" "peak RSS $kb KiB, over 64 MiB"
		fi
	done
	OUT=$(cat "$TEST_TMP/out")
	check grep_long.rss_200MB_line_output "$(printf '1 65536 True\n2 6 False\nskipped None')" "$(fields)"
	# A .gz of a 200 MB line (about 200 KB compressed), -z.
	gzip -1 -c "$big" >"$d/big.gz"
	kb=$(peak grep -z NEEDLE "$d/big.gz")
	if [ "$kb" -lt 65536 ]; then
		pass grep_long.rss_gz_line
	else
		fail grep_long.rss_gz_line "peak RSS $kb KiB, over 64 MiB"
	fi
	OUT=$(cat "$TEST_TMP/out")
	check grep_long.gz_line_output "$(printf '1 65536 True\n2 6 False\nskipped None')" "$(fields)"
fi
rm -f "$big"

# ---- WICKFS_MAX_FILE applies to grep ----
m=$d/max
mkdir -p "$m"
{ fill 3000 a; printf 'NEEDLE\n'; } >"$m/big.txt"
printf 'NEEDLE small\n' >"$m/small.txt"
WICKFS_MAX_FILE=2000 wf grep NEEDLE "$m"
check grep_long.max_file_skips "$(printf '1 12 False\nskipped [%s]' "'$m/big.txt'")" "$(fields)"
WICKFS_MAX_FILE=2000 wf grep -l NEEDLE "$m/big.txt"
check grep_long.max_file_single_file '{"ok":true,"data":{"files":[],"truncated":false,"skipped":["'"$m/big.txt"'"]}}' "$(printf %s "$OUT")"
wf grep -c NEEDLE "$m"
check_match grep_long.max_file_default "*big.txt*count\":1*small.txt*" "$OUT"
# A .gz counts its decompressed bytes: 30 KB compressed to a few hundred.
{ fill 30000 a; printf 'NEEDLE\n'; } | gzip -c >"$m/z.gz"
WICKFS_MAX_FILE=10000 wf grep -z NEEDLE "$m/z.gz"
check grep_long.max_file_gz_decompressed '{"ok":true,"data":{"matches":[],"truncated":false,"skipped":["'"$m/z.gz"'"]}}' "$(printf %s "$OUT")"
WICKFS_MAX_FILE=100000 wf grep -z -c NEEDLE "$m/z.gz"
check grep_long.max_file_gz_under '{"ok":true,"data":{"counts":[{"file":"'"$m/z.gz"'","count":1}],"truncated":false}}' "$(printf %s "$OUT")"
