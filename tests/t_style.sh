#!/usr/bin/env bash
# The C sources are as .clang-format has them (docs/style.md): clang-format
# --dry-run -Werror over lib/, applets/, include/ and tests/unit/; a
# failure names each file that differs and how many of its lines would
# change. Generated files ("do not edit" in their opening lines) are left
# out. `clang-format -i FILE` fixes one.
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
	skip style.clang_format "clang-format missing (Debian: apt-get install clang-format)"
	exit 0
fi

files=()
while IFS= read -r f; do
	head -n 5 "$f" | grep -q 'do not edit' && continue
	files+=("$f")
done < <(find lib applets include tests/unit -name '*.[ch]' | sort)

# One clang-format for every file; each place that differs is reported
# as "FILE:LINE:COL: error: code should be clang-formatted".
"$cf" --style=file --dry-run -Werror "${files[@]}" >/dev/null 2>"$TEST_TMP/style.err"
rc=$?
differ=$(grep -o '^[^ :]*:[0-9]*:[0-9]*: error: code should be clang-formatted' "$TEST_TMP/style.err" | cut -d: -f1 | sort -u)
if [ "$rc" != 0 ] && [ -z "$differ" ]; then
	fail style.clang_format "$cf failed: $(head -n 3 "$TEST_TMP/style.err" | tr '\n' ' ' | cut -c1-400)"
	exit 0
fi
bad=()
for f in $differ; do
	# The size of the change, for the message: lines removed plus added.
	n=$("$cf" --style=file "$f" 2>/dev/null | diff "$f" - | grep -c '^[<>]')
	bad+=("$f ($n)")
done
if [ ${#bad[@]} = 0 ]; then
	pass style.clang_format
else
	# Other clang-format versions format a little differently: say which.
	ver=$("$cf" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p')
	fail style.clang_format "${#bad[@]} of ${#files[@]} files differ from .clang-format (clang-format $ver; in parentheses the lines that would change): ${bad[*]}; fix with: $cf -i FILE"
fi
