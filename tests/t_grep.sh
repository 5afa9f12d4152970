#!/usr/bin/env bash
# grep: PROTOCOL.md section 2, row grep, the walk rules, and the fixed
# defects (default root, symlinked root, long lines, binaries, FIFOs).
. "$(dirname "$0")/lib.sh"

w=$TEST_TMP/w
mkdir -p "$w/sub"
printf 'alpha\nneedle one\n' >"$w/a.txt"
printf 'needle two\nbeta\n' >"$w/sub/c.py"

# {"matches":[{"file","line","text"}],"truncated"}
m() { printf '{"file":"%s","line":%s,"text":"%s"}' "$1" "$2" "$3"; }
res() { # TRUNCATED MATCH...
	local t=$1 IFS=,
	shift
	printf '{"ok":true,"data":{"matches":[%s],"truncated":%s}}' "$*" "$t"
}

both_abs=$(res false "$(m "$w/a.txt" 2 'needle one')" "$(m "$w/sub/c.py" 1 'needle two')")
expect grep.absolute_root 0 "$both_abs" grep needle "$w"
expect grep.no_match 0 "$(res false)" grep zzz "$w"
expect grep.nonexistent_root 0 "$(res false)" grep needle "$w/nope"

# Paths: the root joined with the relative path, cleaned like Go's Join.
cd "$w" || exit 1
expect grep.default_root_dot 0 "$(res false "$(m a.txt 2 'needle one')" "$(m sub/c.py 1 'needle two')")" grep needle
expect grep.root_dot 0 "$(res false "$(m a.txt 2 'needle one')" "$(m sub/c.py 1 'needle two')")" grep needle .
expect grep.root_dot_slash_sub 0 "$(res false "$(m sub/c.py 1 'needle two')")" grep needle ./sub/
expect grep.root_relative 0 "$(res false "$(m sub/c.py 1 'needle two')")" grep needle sub
expect grep.root_unclean_abs 0 "$(res false "$(m "$w/sub/c.py" 1 'needle two')")" grep needle "$TEST_TMP//w/./sub/"
expect grep.root_file_as_given 0 "$(res false "$(m ./sub/c.py 1 'needle two')")" grep needle ./sub/c.py
expect grep.root_file_unclean 0 "$(res false "$(m "sub//c.py" 1 'needle two')")" grep needle sub//c.py
(cd sub && expect grep.root_dotdot 0 "$(res false "$(m ../a.txt 2 'needle one')" "$(m ../sub/c.py 1 'needle two')")" grep needle ..)
(cd sub && expect grep.root_dotdot_slash 0 "$(res false "$(m ../a.txt 2 'needle one')" "$(m ../sub/c.py 1 'needle two')")" grep needle ../)
cd "$TEST_TMP" || exit 1
expect grep.root_relative_deep 0 "$(res false "$(m w/a.txt 2 'needle one')" "$(m w/sub/c.py 1 'needle two')")" grep needle w

# Lexical order, directory by directory (a/z comes before a.b: the walk
# sorts each directory's entries, not whole paths).
o=$TEST_TMP/order
mkdir -p "$o/a" "$o/B"
for f in a/z a.b B/x _u c 'é'; do printf 'hit\n' >"$o/$f"; done
expect grep.lexical_order 0 "$(res false "$(m "$o/B/x" 1 hit)" "$(m "$o/_u" 1 hit)" "$(m "$o/a/z" 1 hit)" "$(m "$o/a.b" 1 hit)" "$(m "$o/c" 1 hit)" "$(m "$o/é" 1 hit)")" grep hit "$o"

# Skipped directories: node_modules, __pycache__, vendor, any ".name";
# other names (case matters) and hidden files are searched.
s=$TEST_TMP/skip
for dd in node_modules __pycache__ vendor .git .hidden sub/node_modules sub/.cache; do
	mkdir -p "$s/$dd"
	printf 'needle\n' >"$s/$dd/f.txt"
done
mkdir -p "$s/Vendor" "$s/node_modules2"
printf 'needle\n' >"$s/Vendor/f.txt"
printf 'needle\n' >"$s/node_modules2/f.txt"
printf 'needle\n' >"$s/.env"
printf 'needle\n' >"$s/vendor.txt"
expect grep.skip_dirs 0 "$(res false "$(m "$s/.env" 1 needle)" "$(m "$s/Vendor/f.txt" 1 needle)" "$(m "$s/node_modules2/f.txt" 1 needle)" "$(m "$s/vendor.txt" 1 needle)")" grep needle "$s"
# A hidden directory given as the root is searched (the reference skipped it).
expect grep.hidden_root 0 "$(res false "$(m "$s/.hidden/f.txt" 1 needle)")" grep needle "$s/.hidden"
(cd "$s/.hidden" && expect grep.hidden_root_dot 0 "$(res false "$(m f.txt 1 needle)")" grep needle)
expect grep.skipped_name_as_root 0 "$(res false "$(m "$s/node_modules/f.txt" 1 needle)")" grep needle "$s/node_modules"

# Skipped extensions, by lower-cased extension.
x=$TEST_TMP/ext
mkdir -p "$x"
exts="png jpg jpeg gif bmp ico webp zip tar gz bz2 xz 7z pdf doc docx xls xlsx so dylib dll exe o a wasm pyc class mp3 mp4 avi mov wav flac"
for e in $exts; do
	printf 'needle\n' >"$x/f.$e"
	printf 'needle\n' >"$x/G.$(printf '%s' "$e" | tr a-z A-Z)"
done
for f in f.txt f.pngx f.png.txt png f.svg f.tgz f.jsonl f.c f.h f.md; do printf 'needle\n' >"$x/$f"; done
expect grep.skip_extensions 0 "$(res false "$(m "$x/f.c" 1 needle)" "$(m "$x/f.h" 1 needle)" "$(m "$x/f.jsonl" 1 needle)" "$(m "$x/f.md" 1 needle)" "$(m "$x/f.png.txt" 1 needle)" "$(m "$x/f.pngx" 1 needle)" "$(m "$x/f.svg" 1 needle)" "$(m "$x/f.tgz" 1 needle)" "$(m "$x/f.txt" 1 needle)" "$(m "$x/png" 1 needle)")" grep needle "$x"
expect grep.skip_extension_upper 0 "$(res false)" grep needle "$x/G.PNG"

# Lines: numbered from 1, a trailing \r dropped, the last line without
# a newline searched, text JSON-escaped.
l=$TEST_TMP/lines
mkdir -p "$l"
printf 'x\r\nfoo\r\n\r\nzz foo\r' >"$l/crlf.txt"
expect grep.crlf 0 "$(res false "$(m "$l/crlf.txt" 2 foo)" "$(m "$l/crlf.txt" 4 'zz foo')")" grep foo "$l/crlf.txt"
expect grep.crlf_anchor 0 "$(res false "$(m "$l/crlf.txt" 2 foo)")" grep '^foo$' "$l/crlf.txt"
printf 'a "q" \\ \t tab\n' >"$l/esc.txt"
expect grep.escaped_text 0 "$(res false "$(m "$l/esc.txt" 1 'a \"q\" \\ \t tab')")" grep tab "$l/esc.txt"
printf 'caf\xe9 bad\n' >"$l/latin1.txt"
expect grep.invalid_utf8_text 0 "$(res false "$(m "$l/latin1.txt" 1 'caf\ufffd bad')")" grep bad "$l/latin1.txt"
printf 'one\ntwo\nthree' >"$l/nofinal.txt"
expect grep.no_final_newline 0 "$(res false "$(m "$l/nofinal.txt" 3 three)")" grep three "$l/nofinal.txt"
printf '\n\n\n' >"$l/empties.txt"
expect grep.empty_pattern_lines 0 "$(res false "$(m "$l/empties.txt" 1 '')" "$(m "$l/empties.txt" 2 '')" "$(m "$l/empties.txt" 3 '')")" grep '' "$l/empties.txt"

# A 200 KiB line is searched (the reference stopped at 64 KiB); its text
# is cut at 64 KiB and marked (tests/t_grep_long.sh has more).
long=$(head -c 204800 /dev/zero | tr '\0' a)
printf '%sneedle\nneedle after\n' "$long" >"$l/long.txt"
cut64=$(printf '{"file":"%s","line":1,"text":"%s","text_truncated":true}' "$l/long.txt" "${long:0:65536}")
expect grep.long_line 0 "$(res false "$cut64" "$(m "$l/long.txt" 2 'needle after')")" grep needle "$l/long.txt"

# Line numbers over many read blocks (the file is read 64 KiB at a time),
# on both sides of each block's edge and at the file's end, with and
# without CRLF line ends: the same numbers as grep -n.
awk 'BEGIN { for (i = 1; i <= 40000; i++) print (i % 3277 == 0 || i == 1 || i >= 39999) ? "hit " i : "line " i " of filler text" }' >"$l/blocks.txt"
sed 's/$/\r/' "$l/blocks.txt" >"$l/blocks_crlf.txt"
for f in blocks blocks_crlf; do
	check "grep.line_numbers_over_blocks.$f" "$(grep -n '^hit' "$l/$f.txt" | cut -d: -f1 | tr '\n' ' ')" \
		"$("$WICKFS" -t grep '^hit' "$l/$f.txt" | cut -d: -f1 | tr '\n' ' ')"
done

# Binary files (NUL in the first block) are skipped.
b=$TEST_TMP/bin
mkdir -p "$b"
printf 'needle\n\0\1\2 binary\n' >"$b/blob.dat"
printf 'needle text\n' >"$b/text.txt"
expect grep.binary_skipped 0 "$(res false "$(m "$b/text.txt" 1 'needle text')")" grep needle "$b"

# FIFOs (and other non-regular files) never block the walk.
f=$TEST_TMP/fifo
mkdir -p "$f"
mkfifo "$f/pipe"
printf 'needle\n' >"$f/z.txt"
timeout -k 1 20 "$WICKFS" grep needle "$f" </dev/null >"$_wf_out" 2>"$_wf_err"
RC=$?
_wf_collect
if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
	fail grep.fifo_in_tree "blocked on a FIFO (killed after 20s)"
else
	_expect_result grep.fifo_in_tree 0 "$(res false "$(m "$f/z.txt" 1 needle)")"
fi
timeout -k 1 20 "$WICKFS" grep needle "$f/pipe" </dev/null >"$_wf_out" 2>"$_wf_err"
RC=$?
_wf_collect
if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
	fail grep.fifo_root "blocked on a FIFO root (killed after 20s)"
else
	# Not read (it would block): no matches, and not an error.
	_expect_result grep.fifo_root 0 "$(res false)"
fi

# Symlinks: a symlinked root is followed; a symlinked directory inside is
# not descended; a symlink to a file is read as that file.
y=$TEST_TMP/sym
mkdir -p "$y/real/inner" "$y/other"
printf 'needle real\n' >"$y/real/r.txt"
printf 'needle inner\n' >"$y/real/inner/i.txt"
printf 'needle other\n' >"$y/other/o.txt"
printf 'needle target\n' >"$y/target.txt"
ln -s ../other "$y/real/dirlink"
ln -s ../target.txt "$y/real/filelink"
ln -s real "$y/rootlink"
ln -s nowhere "$y/real/dangling"
expect grep.symlinks 0 "$(res false "$(m "$y/real/filelink" 1 'needle target')" "$(m "$y/real/inner/i.txt" 1 'needle inner')" "$(m "$y/real/r.txt" 1 'needle real')")" grep needle "$y/real"
expect grep.symlinked_root 0 "$(res false "$(m "$y/rootlink/filelink" 1 'needle target')" "$(m "$y/rootlink/inner/i.txt" 1 'needle inner')" "$(m "$y/rootlink/r.txt" 1 'needle real')")" grep needle "$y/rootlink"
(cd "$y" && expect grep.symlinked_root_relative 0 "$(res false "$(m "rootlink/filelink" 1 'needle target')" "$(m "rootlink/inner/i.txt" 1 'needle inner')" "$(m "rootlink/r.txt" 1 'needle real')")" grep needle rootlink)

# RE2 syntax.
r=$TEST_TMP/re
mkdir -p "$r"
printf 'Hello World\nfoo123\nfoobar\nword wordy\nx.y\nxzy\n\xc3\xa9t\xc3\xa9\n' >"$r/t.txt"
expect grep.re2.case_insensitive 0 "$(res false "$(m "$r/t.txt" 1 'Hello World')")" grep '(?i)hello world' "$r/t.txt"
expect grep.re2.digits 0 "$(res false "$(m "$r/t.txt" 2 foo123)")" grep 'foo\d+$' "$r/t.txt"
expect grep.re2.word_boundary 0 "$(res false "$(m "$r/t.txt" 4 'word wordy')")" grep '\bwordy\b' "$r/t.txt"
expect grep.re2.alternation 0 "$(res false "$(m "$r/t.txt" 2 foo123)" "$(m "$r/t.txt" 3 foobar)")" grep '^foo(123|bar)$' "$r/t.txt"
expect grep.re2.escaped_dot 0 "$(res false "$(m "$r/t.txt" 5 x.y)")" grep 'x\.y' "$r/t.txt"
expect grep.re2.dot_any 0 "$(res false "$(m "$r/t.txt" 5 x.y)" "$(m "$r/t.txt" 6 xzy)")" grep '^x.y$' "$r/t.txt"
expect grep.re2.class 0 "$(res false "$(m "$r/t.txt" 6 xzy)")" grep '^x[a-z]y$' "$r/t.txt"
expect grep.re2.posix_class 0 "$(res false "$(m "$r/t.txt" 2 foo123)")" grep '[[:digit:]]{3}' "$r/t.txt"
expect grep.re2.unicode_dot 0 "$(res false "$(m "$r/t.txt" 7 'été')")" grep '^.t.$' "$r/t.txt"
expect grep.re2.dash_pattern 0 "$(res false)" grep '->' "$r/t.txt"

# Invalid patterns: "invalid regex: ...".
for c in 'paren:(' 'bracket:[a' 'star:*x' 'lookahead:(?=x)' 'backref:(a)\1' 'repeat:a{2,1}'; do
	expect_error "grep.invalid_regex.${c%%:*}" "" grep "${c#*:}" "$r"
	check_match "grep.invalid_regex.${c%%:*}.prefix" 'invalid regex: ?*' "$(err_msg)"
done
expect_error grep.usage "usage: wickfs grep" grep
check_match grep.usage.prefix 'usage: wickfs grep*' "$(err_msg)"

# At most 200 matches; truncated once the count reaches 200.
t=$TEST_TMP/trunc
mkdir -p "$t"
for n in 199 200 201; do
	seq 1 "$n" | sed 's/^/hit /' >"$t/f$n.txt"
	want=()
	for i in $(seq 1 $((n < 200 ? n : 200))); do want+=("$(m "$t/f$n.txt" "$i" "hit $i")"); done
	expect "grep.truncate.$n" 0 "$(res $([ "$n" -ge 200 ] && echo true || echo false) "${want[@]}")" grep hit "$t/f$n.txt"
done
# ... counted over files.
mkdir -p "$t/many"
want=()
for i in $(seq -w 1 150); do
	printf 'hit a\nhit b\n' >"$t/many/f$i"
done
for i in $(seq -w 1 100); do want+=("$(m "$t/many/f$i" 1 'hit a')" "$(m "$t/many/f$i" 2 'hit b')"); done
expect grep.truncate.across_files 0 "$(res true "${want[@]}")" grep hit "$t/many"

# What cannot be read is told, not skipped without a word: a bounded
# "errors" list beside the matches (absent when everything was read), and
# a named file that cannot be read is an error, as GNU grep says.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	ue=$TEST_TMP/unreadable
	mkdir -p "$ue/ok" "$ue/closed"
	for i in $(seq 1 30); do echo hit >"$ue/ok/f$i"; done
	echo hit >"$ue/closed/b"
	echo hit >"$ue/secret"
	chmod 000 "$ue/closed" "$ue/secret"
	chmod 755 "$TEST_TMP" "$ue"
	as_nobody() { (cd "$ue" && setpriv --reuid=65534 --regid=65534 --clear-groups "$WICKFS" "$@"); }
	for th in 1 4; do
		out=$(WICKFS_THREADS=$th as_nobody grep -c hit .)
		check "grep.errors.threads_$th" 'false,"errors":[{"path":"closed","error":"permission denied"},{"path":"secret","error":"permission denied"}],"errors_total":2}}' "${out#*\"truncated\":}"
		check "grep.errors.threads_$th.counts" 30 "$(printf '%s' "$out" | grep -o '"count":1' | wc -l)"
	done
	out=$(as_nobody grep hit secret)
	check grep.errors.named_file '{"ok":false,"error":"grep secret: permission denied"}' "$out"
	out=$(as_nobody grep hit ok)
	check_match grep.errors.none_when_all_read '*"truncated":false}}' "$out"
	chmod 755 "$ue/closed" && chmod 644 "$ue/secret"
else
	skip grep.errors "needs root and setpriv to run as a user who cannot read"
fi
