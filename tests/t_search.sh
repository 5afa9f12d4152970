#!/usr/bin/env bash
# tests/t_search.sh - grep and glob beyond the reference: options, gitignore,
# .gz, multiline, context, and the parallel search keeping walk order.
. "$(dirname "$0")/lib.sh"

cd "$TEST_TMP" || exit 1
mkdir -p s/src/deep s/.dot s/vendor s/node_modules
printf 'alpha\nBeta\nfoo_bar foo\ngamma\n' >s/a.txt
printf 'one\ntwo foo\nthree\nfour\nfive foo\nsix\n' >s/src/b.c
printf 'foo in deep\n' >s/src/deep/c.h
printf 'foo hidden\n' >s/.dot/h.txt
printf 'foo vendored\n' >s/vendor/v.go
printf 'foo module\n' >s/node_modules/m.js
cd s || exit 1

# -i, -F, -w
expect grep_i 0 '{"ok":true,"data":{"matches":[{"file":"a.txt","line":2,"text":"Beta"}],"truncated":false}}' grep -i '^beta$' .
expect grep_F 0 '{"ok":true,"data":{"matches":[],"truncated":false}}' grep -F 'a.b' a.txt
printf 'x a.b y\n' >f.txt
expect grep_F_hit 0 '{"ok":true,"data":{"matches":[{"file":"f.txt","line":1,"text":"x a.b y"}],"truncated":false}}' grep -F 'a.b' f.txt
printf 'foobar\nfoo_x\nbar foo.\n' >w.txt
expect grep_w 0 '{"ok":true,"data":{"matches":[{"file":"w.txt","line":3,"text":"bar foo."}],"truncated":false}}' grep -w foo w.txt
rm -f f.txt w.txt

# context: -B/-A/-C, context lines flagged, no duplicates
expect grep_context_C1 0 '{"ok":true,"data":{"matches":[{"file":"src/b.c","line":1,"text":"one","context":true},{"file":"src/b.c","line":2,"text":"two foo"},{"file":"src/b.c","line":3,"text":"three","context":true},{"file":"src/b.c","line":4,"text":"four","context":true},{"file":"src/b.c","line":5,"text":"five foo"},{"file":"src/b.c","line":6,"text":"six","context":true}],"truncated":false}}' grep -C1 foo src/b.c
expect grep_context_A1 0 '{"ok":true,"data":{"matches":[{"file":"src/b.c","line":2,"text":"two foo"},{"file":"src/b.c","line":3,"text":"three","context":true},{"file":"src/b.c","line":5,"text":"five foo"},{"file":"src/b.c","line":6,"text":"six","context":true}],"truncated":false}}' grep -A 1 foo src/b.c
expect grep_context_B2 0 '{"ok":true,"data":{"matches":[{"file":"src/b.c","line":1,"text":"one","context":true},{"file":"src/b.c","line":2,"text":"two foo"},{"file":"src/b.c","line":3,"text":"three","context":true},{"file":"src/b.c","line":4,"text":"four","context":true},{"file":"src/b.c","line":5,"text":"five foo"}],"truncated":false}}' grep -B2 foo src/b.c

# --max, -l, -c
expect grep_max1 0 '{"ok":true,"data":{"matches":[{"file":"a.txt","line":3,"text":"foo_bar foo"}],"truncated":true}}' grep --max 1 foo
expect grep_l 0 '{"ok":true,"data":{"files":["a.txt","src/b.c","src/deep/c.h"],"truncated":false}}' grep -l foo .
expect grep_c 0 '{"ok":true,"data":{"counts":[{"file":"a.txt","count":1},{"file":"src/b.c","count":2},{"file":"src/deep/c.h","count":1}],"truncated":false}}' grep --count foo .

# --include/--exclude, --hidden, --no-skip
expect grep_include 0 '{"ok":true,"data":{"files":["src/b.c"],"truncated":false}}' grep -l --include '*.c' foo
expect grep_include_two 0 '{"ok":true,"data":{"files":["src/b.c","src/deep/c.h"],"truncated":false}}' grep -l --include '*.c' --include '*.h' foo
expect grep_exclude_dir 0 '{"ok":true,"data":{"files":["a.txt"],"truncated":false}}' grep -l --exclude src foo
expect grep_exclude_path 0 '{"ok":true,"data":{"files":["a.txt","src/b.c"],"truncated":false}}' grep -l --exclude 'src/**/*.h' foo
expect grep_hidden 0 '{"ok":true,"data":{"files":[".dot/h.txt","a.txt","src/b.c","src/deep/c.h"],"truncated":false}}' grep -l --hidden foo
expect grep_no_skip 0 '{"ok":true,"data":{"files":["a.txt","node_modules/m.js","src/b.c","src/deep/c.h","vendor/v.go"],"truncated":false}}' grep -l --no-skip foo

# --gitignore: nested files, negation, directory-only rules
printf '*.h\n!keep.h\nbuild/\n' >.gitignore
mkdir -p build src/deep
printf 'foo built\n' >build/out.txt
printf 'foo kept\n' >src/deep/keep.h
printf 'b.c\n' >src/.gitignore
expect grep_gitignore 0 '{"ok":true,"data":{"files":["a.txt","src/deep/keep.h"],"truncated":false}}' grep -l --gitignore foo
expect grep_no_gitignore 0 '{"ok":true,"data":{"files":["a.txt","build/out.txt","src/b.c","src/deep/c.h","src/deep/keep.h"],"truncated":false}}' grep -l foo .
expect glob_gitignore 0 '{"ok":true,"data":{"files":["a.txt"],"truncated":false}}' glob --gitignore '*.txt' .
rm -rf .gitignore src/.gitignore build src/deep/keep.h

# -z: inside .gz files (skipped by extension otherwise)
printf 'zipped foo line\nother\n' | gzip -c >z.txt.gz
expect grep_gz_skipped 0 '{"ok":true,"data":{"files":["a.txt","src/b.c","src/deep/c.h"],"truncated":false}}' grep -l foo .
expect grep_gz 0 '{"ok":true,"data":{"matches":[{"file":"z.txt.gz","line":1,"text":"zipped foo line"}],"truncated":false}}' grep -z zipped .
# members concatenated (pigz -i, cat a.gz b.gz) are one stream
printf 'second zipped member\n' | gzip -c >>z.txt.gz
expect grep_gz_members 0 '{"ok":true,"data":{"matches":[{"file":"z.txt.gz","line":1,"text":"zipped foo line"},{"file":"z.txt.gz","line":3,"text":"second zipped member"}],"truncated":false}}' grep -z zipped z.txt.gz
# a .gz that is not gzip is searched as it is
printf 'plain zipped text\n' >plain.gz
expect grep_gz_not_gzip 0 '{"ok":true,"data":{"matches":[{"file":"plain.gz","line":1,"text":"plain zipped text"}],"truncated":false}}' grep -z zipped plain.gz
rm -f z.txt.gz plain.gz

# -U: a match across lines reports its first line and the lines it spans
printf 'start\nfunc f(\n  x int) {\nend\n' >m.go
expect grep_multiline 0 '{"ok":true,"data":{"matches":[{"file":"m.go","line":2,"text":"func f(\n  x int) {"}],"truncated":false}}' grep -U 'f\(\s+x' m.go
expect grep_not_multiline 0 '{"ok":true,"data":{"matches":[],"truncated":false}}' grep 'f\(\s+x' m.go
rm -f m.go

expect_error grep_bad_count 'grep: --max' grep --max -3 foo
expect_error grep_U_context '-U cannot be combined' grep -U -C1 foo

# glob: ** and {a,b}, --type, --sort, --max
expect glob_star_star 0 '{"ok":true,"data":{"files":["src/b.c","src/deep/c.h"],"truncated":false}}' glob '**/*.{c,h}'
expect glob_path 0 '{"ok":true,"data":{"files":["src/deep/c.h"],"truncated":false}}' glob 'src/*/*.h'
expect glob_braces 0 '{"ok":true,"data":{"files":["a.txt","src/deep/c.h"],"truncated":false}}' glob '*.{txt,h}'
expect glob_type_d 0 '{"ok":true,"data":{"files":["src","src/deep"],"truncated":false}}' glob --type d '*'
ln -s a.txt lnk
expect glob_type_l 0 '{"ok":true,"data":{"files":["lnk"],"truncated":false}}' glob --type l '*'
rm -f lnk
touch -d '2020-01-01' a.txt
touch -d '2021-01-01' src/deep/c.h
touch -d '2022-01-01' src/b.c
expect glob_sort_mtime 0 '{"ok":true,"data":{"files":["src/b.c","src/deep/c.h","a.txt"],"truncated":false}}' glob --sort mtime '*'
expect glob_sort_mtime_max 0 '{"ok":true,"data":{"files":["src/b.c"],"truncated":true}}' glob --sort mtime --max 1 '*'
mkdir -p a
printf x >a/z
expect glob_sort_name 0 '{"ok":true,"data":{"files":["a.txt","a/z","src/b.c","src/deep/c.h"],"truncated":false}}' glob --sort name '*'
expect glob_walk_order 0 '{"ok":true,"data":{"files":["a/z","a.txt","src/b.c","src/deep/c.h"],"truncated":false}}' glob '*'
rm -rf a
expect_error glob_bad_sort '--sort takes name or mtime' glob --sort size '*'
expect_error glob_bad_pattern 'bad pattern' glob '[a'
# Pathological patterns end (the fuzzer's finds): 40 "**" over 13
# directories tried every split (billions), and eight {a,b} groups of ten
# alternatives 10^8 expansions. The bound only turns a hang into a failure.
mkdir -p deep/a/b/c/d/e/f/g/h/i/j/k/l
printf x >deep/a/b/c/d/e/f/g/h/i/j/k/l/x
stars=$(printf '**/%.0s' $(seq 40))
check glob_doublestar_chain_miss '{"ok":true,"data":{"files":[],"truncated":false}}' \
	"$(with_timeout 60 "$WICKFS" glob "${stars}y" deep 2>&1)"
check glob_doublestar_chain_hit '{"ok":true,"data":{"files":["deep/a/b/c/d/e/f/g/h/i/j/k/l/x"],"truncated":false}}' \
	"$(with_timeout 60 "$WICKFS" glob "${stars}x" deep 2>&1)"
check glob_doublestar_between '{"ok":true,"data":{"files":["deep/a/b/c/d/e/f/g/h/i/j/k/l/x"],"truncated":false}}' \
	"$(with_timeout 60 "$WICKFS" glob "**/b/**/**/f/**/l/**/x" deep 2>&1)"
rm -rf deep
braces=$(printf '{,,,,,,,,,}%.0s' $(seq 8))x
check_match glob_brace_expansions_bounded '*"ok":false*bad pattern*over 10000 {a,b} expansions*' \
	"$(with_timeout 60 "$WICKFS" glob "$braces" 2>&1)"

# The parallel search keeps the sequential walk's order and cap.
cd "$TEST_TMP" || exit 1
mkdir -p par
for d in 1 2 3 4 5 6 7 8 9 10 11 12; do
	mkdir -p "par/d$d/sub"
	for f in 1 2 3 4 5 6 7 8 9 10; do
		seq 1 $((f * 13 + d)) | sed "s/^/row $d $f /" >"par/d$d/f$f.txt"
		cp "par/d$d/f$f.txt" "par/d$d/sub/g$f.txt"
	done
done
for max in 0 200 37; do
	one=$(WICKFS_THREADS=1 "$WICKFS" grep --max $max 'row [0-9]+ [0-9]+ 1[0-9]$' par)
	four=$(WICKFS_THREADS=4 "$WICKFS" grep --max $max 'row [0-9]+ [0-9]+ 1[0-9]$' par)
	check "grep_parallel_order_max_$max" "$one" "$four"
done
n=$(WICKFS_THREADS=4 "$WICKFS" grep --max 0 -c 'row' par | grep -o '"count":[0-9]*' |
	cut -d: -f2 | awk '{s += $1} END {print s}')
want=$(cat par/*/*.txt par/*/sub/*.txt | wc -l)
check grep_parallel_counts_all "$want" "$n"

# Enough files to wrap the job ring many times over (64 jobs of 16 files).
mkdir -p wrap
for d in $(seq 1 40); do
	mkdir -p "wrap/d$d"
	for f in $(seq 1 40); do
		printf 'hit %s %s\nmiss\n' "$d" "$f" >"wrap/d$d/f$f.txt"
	done
done
for max in 0 1500; do
	one=$(WICKFS_THREADS=1 "$WICKFS" grep --max $max 'hit' wrap | md5sum)
	four=$(WICKFS_THREADS=4 "$WICKFS" grep --max $max 'hit' wrap | md5sum)
	check "grep_parallel_ring_wrap_max_$max" "$one" "$four"
done
n=$(WICKFS_THREADS=4 "$WICKFS" grep --max 0 -l hit wrap | grep -o '\.txt' | wc -l)
check grep_parallel_ring_wrap_files 1600 "$n"
