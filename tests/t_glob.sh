#!/usr/bin/env bash
# glob: PROTOCOL.md section 2, row glob (base-name matching, no
# directories, the walk and skips of grep, the 100 cap) and section 4's
# path patterns.
. "$(dirname "$0")/lib.sh"

# {"files":[...],"truncated"}
res() { # TRUNCATED PATH...
	local t=$1 f out=""
	shift
	for f in "$@"; do out+="${out:+,}\"$f\""; done
	printf '{"ok":true,"data":{"files":[%s],"truncated":%s}}' "$out" "$t"
}

g=$TEST_TMP/g
mkdir -p "$g/sub/deep" "$g/x.py" "$g/node_modules" "$g/.hid" "$g/vendor" "$g/__pycache__"
for f in a.py b.txt .e.py sub/c.py sub/deep/d.py x.py/inner.py node_modules/n.py .hid/h.py vendor/v.py __pycache__/c.py; do
	printf 'x\n' >"$g/$f"
done
ln -s sub "$g/l.py"       # a symlink to a directory: listed, not descended
ln -s a.py "$g/lf.py"     # a symlink to a file: listed
mkfifo "$g/p.py"          # other types: listed

all_py=(.e.py a.py l.py lf.py p.py sub/c.py sub/deep/d.py x.py/inner.py)
abs() { local f; for f in "$@"; do printf '%s\n' "$g/$f"; done; }
mapfile -t all_abs < <(abs "${all_py[@]}")

expect glob.basename 0 "$(res false "${all_abs[@]}")" glob '*.py' "$g"
expect glob.basename_exact 0 "$(res false "$g/sub/c.py")" glob 'c.py' "$g"
expect glob.no_match 0 "$(res false)" glob '*.rs' "$g"
expect glob.nonexistent_root 0 "$(res false)" glob '*.py' "$g/nope"
expect glob.question_class 0 "$(res false "$g/a.py" "$g/b.txt")" glob '[ab].??*' "$g"
expect glob.case_sensitive 0 "$(res false)" glob '*.PY' "$g"
mapfile -t star < <(abs .e.py a.py b.txt l.py lf.py p.py sub/c.py sub/deep/d.py x.py/inner.py)
expect glob.star_lists_no_dirs 0 "$(res false "${star[@]}")" glob '*' "$g"

cd "$g" || exit 1
expect glob.default_root_dot 0 "$(res false "${all_py[@]}")" glob '*.py'
expect glob.root_dot 0 "$(res false "${all_py[@]}")" glob '*.py' .
expect glob.root_dot_slash_sub 0 "$(res false sub/c.py sub/deep/d.py)" glob '*.py' ./sub/
expect glob.root_relative 0 "$(res false sub/c.py sub/deep/d.py)" glob '*.py' sub
expect glob.root_unclean_abs 0 "$(res false "$g/sub/c.py" "$g/sub/deep/d.py")" glob '*.py' "$TEST_TMP//g/./sub/"
expect glob.root_file_as_given 0 "$(res false ./sub/c.py)" glob '*.py' ./sub/c.py
(cd sub && expect glob.root_dotdot 0 "$(res false ../a.py ../b.txt)" glob '[ab].*' ..)
expect glob.hidden_root 0 "$(res false .hid/h.py)" glob '*.py' .hid
(cd .hid && expect glob.hidden_root_dot 0 "$(res false h.py)" glob '*.py')
ln -s "$g" "$TEST_TMP/glink"
expect glob.symlinked_root 0 "$(res false "$TEST_TMP/glink/sub/c.py" "$TEST_TMP/glink/sub/deep/d.py")" glob '?.py' "$TEST_TMP/glink/sub"
expect glob.symlinked_root_top 0 "$(res false "$TEST_TMP/glink/a.py" "$TEST_TMP/glink/sub/c.py" "$TEST_TMP/glink/sub/deep/d.py")" glob '[a-d].py' "$TEST_TMP/glink"

# Extensions grep skips are globbed like any name (the reference's glob
# skips directories only).
printf x >"$g/img.png"
expect glob.png_listed 0 "$(res false img.png)" glob '*.png' .
rm -f "$g/img.png"

# Path patterns (section 4): '/' or '**' match the path relative to the
# root; {a,b} alternation.
expect glob.doublestar 0 "$(res false "${all_py[@]}")" glob '**/*.py' .
expect glob.doublestar_abs 0 "$(res false "${all_abs[@]}")" glob '**/*.py' "$g"
expect glob.slash_pattern 0 "$(res false sub/c.py)" glob 'sub/*.py' .
expect glob.doublestar_middle 0 "$(res false sub/c.py sub/deep/d.py)" glob 'sub/**/*.py' .
expect glob.doublestar_prefix_match 0 "$(res false sub/deep/d.py)" glob '**/deep/*' .
expect glob.braces 0 "$(res false a.py b.txt)" glob '{a,b}.{py,txt}' .
expect glob.braces_basename 0 "$(res false .e.py a.py b.txt l.py lf.py p.py sub/c.py sub/deep/d.py x.py/inner.py)" glob '*.{py,txt}' .
expect glob.braces_with_path 0 "$(res false sub/c.py)" glob 'sub/{c,x}.py' .

# At most 100 files; truncated once the count reaches 100.
t=$TEST_TMP/trunc
for n in 99 100 101; do
	mkdir -p "$t/$n"
	want=()
	for i in $(seq -w 1 "$n"); do
		: >"$t/$n/f$i.txt"
	done
	for i in $(seq -w 1 "$n" | head -n 100); do want+=("$t/$n/f$i.txt"); done
	expect "glob.truncate.$n" 0 "$(res $([ "$n" -ge 100 ] && echo true || echo false) "${want[@]}")" glob '*.txt' "$t/$n"
done
# ... counted over directories, in walk order.
mkdir -p "$t/tree/a" "$t/tree/b"
want=()
for i in $(seq -w 1 60); do : >"$t/tree/a/f$i"; : >"$t/tree/b/f$i"; done
for i in $(seq -w 1 60); do want+=("$t/tree/a/f$i"); done
for i in $(seq -w 1 40); do want+=("$t/tree/b/f$i"); done
expect glob.truncate.across_dirs 0 "$(res true "${want[@]}")" glob 'f*' "$t/tree"

expect_error glob.usage "usage: wickfs glob" glob
check_match glob.usage.prefix 'usage: wickfs glob*' "$(err_msg)"

# A directory that cannot be read is told in "errors" (absent otherwise).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	ge=$TEST_TMP/unreadable
	mkdir -p "$ge/ok" "$ge/closed"
	: >"$ge/ok/a.txt"
	: >"$ge/closed/b.txt"
	chmod 000 "$ge/closed"
	chmod 755 "$TEST_TMP" "$ge"
	out=$(cd "$ge" && setpriv --reuid=65534 --regid=65534 --clear-groups "$WICKFS" glob '**/*.txt' .)
	check glob.errors.unreadable_dir '{"ok":true,"data":{"files":["ok/a.txt"],"truncated":false,"errors":[{"path":"closed","error":"permission denied"}],"errors_total":1}}' "$out"
	chmod 755 "$ge/closed"
	out=$(cd "$ge" && "$WICKFS" glob '**/*.txt' .)
	check glob.errors.none_when_all_read '{"ok":true,"data":{"files":["closed/b.txt","ok/a.txt"],"truncated":false}}' "$out"
else
	skip glob.errors "needs root and setpriv to run as a user who cannot read"
fi
