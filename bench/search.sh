#!/bin/sh
# bench/search.sh - wickfs grep and glob against ripgrep, GNU grep, fd, find
#
# usage: sh bench/search.sh [--quick]
#
# Corpus: the Linux kernel source from Debian's linux-source package,
# unpacked once under build/bench/linux/; BENCH_CORPUS=DIR searches DIR
# instead, --quick (or BENCH_QUICK=1) a small generated tree.
# Every tool searches everything (hidden directories, vendor, ...) and skips
# binary files: wickfs --hidden --no-skip, rg -uu, grep -rI. Each cell is run
# once to count its output (the counts must agree, see the check column),
# then timed by hyperfine with its output going through a pipe.
# Env: WICKFS (default build/wickfs), WICKFS_REF (reference binary),
# BENCH_RUNS (runs per fast cell, default 5), BENCH_TIMEOUT (s, default 300),
# BENCH_SAVE=1 (copy the tables and chart into bench/results/).
# Beside them, the read floor (bench/read_floor.c): the tree walked and every
# file read, nothing matched.
set -u
cd "$(dirname "$0")/.." || exit 0
. bench/lib.sh

LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
QUICK=${BENCH_QUICK:-0}
[ "${1:-}" = --quick ] && QUICK=1
RUNS=${BENCH_RUNS:-5}
TIMEOUT=${BENCH_TIMEOUT:-300}
REPO=$PWD
OUT=$REPO/$BENCH_OUT
W=$(bench_wickfs)
REF=${WICKFS_REF:-}

[ -x "$W" ] || { say "search: $W not built (make)"; exit 0; }
HAVE_GREP=1
if ! "$W" grep --help >/dev/null 2>&1; then
	say "search: $W has no grep applet: glob only"
	HAVE_GREP=0
fi
[ -z "$REF" ] || [ -x "$REF" ] || { say "search: WICKFS_REF=$REF is not executable"; REF=; }
for t in "hyperfine hyperfine" "jq jq" "rg ripgrep" "timeout coreutils"; do
	need $t || exit 0
done
FD=$(command -v fdfind || command -v fd) || { need fdfind fd-find && FD=$(command -v fdfind); }
[ -n "${FD:-}" ] || FD=
TIME=/usr/bin/time
need_file $TIME time || TIME=
# Byte semantics for GNU grep and find, like RE2's ASCII \w and \d.
LC_ALL=C
export LC_ALL

# The wickfs under test is called `wickfs` in every command shown: a copy,
# so that a rebuild during the run cannot change or remove it.
mkdir -p "$OUT/bin"
cp "$W" "$OUT/bin/wickfs.new" && mv -f "$OUT/bin/wickfs.new" "$OUT/bin/wickfs" || exit 0
PATH=$OUT/bin:$PATH
export PATH

# ---- corpus ----

linux_corpus() {
	dir=$OUT/linux
	if [ ! -f "$dir/.unpacked" ]; then
		tarball() {
			ls /usr/src/linux-source-*.tar.* /usr/share/linux-source*/*.tar.* \
				2>/dev/null | sort -V | tail -n 1
		}
		tb=$(tarball)
		[ -n "$tb" ] || { apt_install linux-source; tb=$(tarball); }
		[ -n "$tb" ] || { say "search: no linux-source tarball"; return 1; }
		command -v xz >/dev/null 2>&1 || apt_install xz-utils
		say "search: unpacking $tb into $BENCH_OUT/linux"
		rm -rf "$dir" && mkdir -p "$dir" &&
			tar -xf "$tb" -C "$dir" && touch "$dir/.unpacked" ||
			{ say "search: unpacking failed"; return 1; }
	fi
	CORPUS=$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -n "$CORPUS" ]
}

# A deterministic tree of C-like text with every pattern in it, plus a
# hidden directory, a vendor directory, a binary file and a skipped extension.
quick_corpus() {
	CORPUS=$OUT/synth/tree
	# Bump the version when the generator changes, to rebuild old trees.
	[ "$(cat "$OUT/synth/.done" 2>/dev/null)" = 2 ] && return 0
	rm -rf "$OUT/synth" && mkdir -p "$CORPUS/.hidden" "$CORPUS/vendor/lib"
	awk -v root="$CORPUS" 'BEGIN {
		srand(7)
		n = split("static int void struct return if else for while unsigned " \
			"long const char dev ret err size_t buf len i j k x y (ptr) {} ; = " \
			"+ - * && || 0 1 0x1f 42 /* */ short_name some_function(arg)", w, " ")
		m = split("EXPORT_SYMBOL_GPL(dev_open); export_symbol_gpl kmalloc " \
			"kfree mutex_lock(&lock); spin_lock(&s); printk(KERN_INFO " \
			"PM_SUSPEND ACPI_STATE_SUSPEND a_very_long_identifier_name_7", r, " ")
		for (d = 0; d < 40; d++) {
			dir = root "/dir" d
			if (d == 38) dir = root "/.hidden"
			if (d == 39) dir = root "/vendor/lib"
			system("mkdir -p " dir)
			for (f = 0; f < 40; f++) {
				file = sprintf("%s/file%02d.%s", dir, f, f % 4 ? "c" : "h")
				for (l = 0; l < 300; l++) {
					line = "\t"
					k = 2 + int(rand() * 10)
					for (i = 0; i < k; i++)
						line = line (rand() < 0.01 ? r[1 + int(rand() * m)] \
							: w[1 + int(rand() * n)]) " "
					print line > file
				}
				close(file)
			}
		}
	}'
	printf 'EXPORT_SYMBOL_GPL(x);\n' >"$CORPUS/dir0/notes.doc"
	printf 'EXPORT_SYMBOL_GPL\000binary\n' >"$CORPUS/dir0/blob.bin"
	ln -s ../dir1/file01.c "$CORPUS/dir0/link.c"
	echo 2 >"$OUT/synth/.done"
}

if [ -n "${BENCH_CORPUS:-}" ]; then
	CORPUS=$(cd "$BENCH_CORPUS" && pwd) || exit 0
	KIND="BENCH_CORPUS tree"
elif [ "$QUICK" = 1 ]; then
	quick_corpus || exit 0
	KIND="synthetic tree (--quick)"
else
	linux_corpus || exit 0
	KIND="Linux kernel source (Debian linux-source)"
fi
# Tools are run from the corpus' parent on its base name, so every tool
# prints the same relative paths (and the reference, which skips ".", works).
PARENT=$(dirname "$CORPUS")
NAME=$(basename "$CORPUS")
cd "$PARENT" || exit 0
NFILES=$(find "$NAME" -type f | wc -l)
SIZE=$(du -sh "$NAME" | cut -f1)
find "$NAME" -type l -xtype f >"$OUT/symfiles.txt"
say "search: corpus $KIND: $NFILES files, $SIZE"

# ---- running one cell ----

# run_cell ID NAME KIND CMD: count once (KIND lines|matches|files), then time.
# Sets COUNT and MEAN; records "ID NAME COUNT MEAN SD RUNS MIN" in cells.txt.
run_cell() {
	id=$1 tool=$2 kind=$3 cmd=$4
	tmp=$OUT/out.tmp
	t0=$(date +%s.%N)
	eval "timeout $TIMEOUT $cmd" >"$tmp" 2>"$OUT/err.tmp"
	rc=$?
	t1=$(date +%s.%N)
	el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	if [ $rc = 124 ]; then
		say "search: $id/$tool timed out after ${TIMEOUT}s: $cmd"
		COUNT=timeout MEAN='' SD='' N=0 MIN=
	else
		case $kind in
		lines) COUNT=$(wc -l <"$tmp") ;;
		*) COUNT=$(jq ".data.$kind | length" <"$tmp" 2>/dev/null) ||
			COUNT=error
			trunc=$(jq -r '.data.truncated' <"$tmp" 2>/dev/null)
			[ "$trunc" = true ] && COUNT="$COUNT (truncated)" ;;
		esac
		[ -s "$OUT/err.tmp" ] &&
			say "search: $id/$tool stderr: $(head -c 300 "$OUT/err.tmp")"
		if awk -v e="$el" 'BEGIN { exit !(e > 30) }'; then
			set -- --runs 1
		elif awk -v e="$el" 'BEGIN { exit !(e > 5) }'; then
			set -- --warmup 1 --runs 3
		else
			set -- --warmup 1 --runs "$RUNS"
		fi
		json=$OUT/search-$id-$(printf %s "$tool" | tr -c 'a-zA-Z0-9\n' _).json
		hyperfine -N -i "$@" --style basic --output pipe -n "$tool" \
			--export-json "$json" "$cmd" >>"$OUT/search.log" 2>&1
		# shellcheck disable=SC2046 # split "mean sd runs"
		set -- $(hf_stats "$json" "$tool")
		MEAN=${1:-} SD=${2:-} N=${3:-0} MIN=${4:-}
	fi
	rm -f "$tmp"
	say "search: $id/$tool: count $COUNT, $(fmt_s "$MEAN") ($N runs," \
		"first $(awk -v e="$el" 'BEGIN { printf "%.2f", e }') s)"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$tool" "$COUNT" "$MEAN" "$SD" "$N" "$MIN" \
		>>"$OUT/cells.txt"
	printf '%s\t%s\t%s\n' "$id" "$tool" "$cmd" >>"$OUT/commands.txt"
}

# peak_rss CMD: maximum resident set size in KiB.
peak_rss() {
	[ -n "$TIME" ] || { echo; return; }
	eval "$TIME -f %M -o '$OUT/rss.tmp' $1" >/dev/null 2>&1
	tail -n 1 "$OUT/rss.tmp"
}

# sum_counts: add up `rg -c` output.
sum_counts() { awk -F: '{ s += $NF } END { print s + 0 }'; }

SKIPPED_EXT='png,jpg,jpeg,gif,bmp,ico,webp,zip,tar,gz,bz2,xz,7z,pdf,doc,docx,xls,xlsx,so,dylib,dll,exe,o,a,wasm,pyc,class,mp3,mp4,avi,mov,wav,flac'

: >"$OUT/cells.txt"
: >"$OUT/commands.txt"
: >"$OUT/search.log"
: >"$OUT/checks.txt"
: >"$OUT/rss.txt"

# ---- grep ----
# grep_pattern ID LABEL WICKFS_ARGS RG_ARGS GREP_ARGS REF_PATTERN
grep_pattern() {
	[ "$HAVE_GREP" = 1 ] || return 0
	id=$1 label=$2 wa=$3 ra=$4 ga=$5 refp=$6
	printf '%s\t%s\n' "$id" "$label" >>"$OUT/labels.txt"
	run_cell "$id" wickfs matches "wickfs grep --max 0 --hidden --no-skip $wa $NAME"
	wc_=$COUNT
	run_cell "$id" rg lines "rg --no-config -uu -n $ra $NAME"
	rc_=$COUNT
	run_cell "$id" grep lines "grep -rnI $ga $NAME"
	gc_=$COUNT
	if [ -n "$REF" ]; then
		# The reference has no options: default skips, at most 200 matches.
		run_cell "$id" ref matches "'$REF' grep $refp $NAME"
		run_cell "$id" "wickfs cap" matches "wickfs grep $wa $NAME"
	fi
	# What wickfs should find that rg does not: files reached through a
	# symlink (rg and grep -r do not follow them); what it should not:
	# files with an extension it skips.
	sym=0
	[ -s "$OUT/symfiles.txt" ] && sym=$(eval "xargs -d '\n' rg --no-config -c \
		--no-filename $ra" <"$OUT/symfiles.txt" 2>/dev/null | sum_counts)
	ext=$(eval "rg --no-config -uu -c --no-filename --iglob '*.{$SKIPPED_EXT}' \
		$ra $NAME" 2>/dev/null | sum_counts)
	# File by file: each file whose count differs from rg's, and why.
	tab=$(printf '\t')
	eval "wickfs -t grep -c --max 0 --hidden --no-skip $wa $NAME" 2>/dev/null |
		sed 's/:\([0-9]*\)$/\t\1/' | sort -t"$tab" -k1,1 >"$OUT/pf-w.txt"
	eval "rg --no-config -uu -c $ra $NAME" 2>/dev/null |
		sed 's/:\([0-9]*\)$/\t\1/' | sort -t"$tab" -k1,1 >"$OUT/pf-r.txt"
	join -t"$tab" -a1 -a2 -e0 -o0,1.2,2.2 "$OUT/pf-w.txt" "$OUT/pf-r.txt" |
		awk -F'\t' '$2 != $3' | while IFS="$tab" read -r f wn rn; do
		why=unexplained
		if [ "$(readlink -f -- "$f")" != "$(cd "$(dirname -- "$f")" 2>/dev/null &&
			pwd -P)/$(basename -- "$f")" ] || [ -L "$f" ]; then
			why="reached through a symlink"
		else
			case ",$SKIPPED_EXT," in *",${f##*.},"*) why="skipped extension" ;; esac
		fi
		printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$f" "$wn" "$rn" "$why"
	done >>"$OUT/filediff.txt"
	expect=$((rc_ + sym - ext))
	verdict=ok
	[ "$wc_" = "$expect" ] || verdict="wickfs differs"
	[ "$gc_" = "$rc_" ] || verdict="$verdict; grep differs"
	verdict=${verdict#ok; }
	printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$sym" "$ext" "$expect" "$verdict" >>"$OUT/checks.txt"
	printf '%s\t%s\t%s\n' "$id" "$(peak_rss "wickfs grep --max 0 --hidden --no-skip $wa $NAME")" \
		"$(peak_rss "rg --no-config -uu -n $ra $NAME")" >>"$OUT/rss.txt"
}

# ---- glob ----
glob_pattern() {
	id=$1 label=$2 pat=$3 fda=$4 finda=$5
	printf '%s\t%s\n' "$id" "$label" >>"$OUT/labels.txt"
	run_cell "$id" wickfs files "wickfs glob --max 0 --hidden --no-skip '$pat' $NAME"
	[ -z "$FD" ] || run_cell "$id" fd lines "$(basename "$FD") -u -t f -t l $fda $NAME"
	run_cell "$id" find lines "find $NAME ! -type d $finda"
	[ -z "$REF" ] || run_cell "$id" ref files "'$REF' glob '$pat' $NAME"
}

: >"$OUT/labels.txt"
: >"$OUT/filediff.txt"
grep_pattern literal 'EXPORT_SYMBOL_GPL' \
	"'EXPORT_SYMBOL_GPL'" "'EXPORT_SYMBOL_GPL'" "'EXPORT_SYMBOL_GPL'" \
	"'EXPORT_SYMBOL_GPL'"
grep_pattern icase '-i export_symbol_gpl' \
	"-i 'export_symbol_gpl'" "-i 'export_symbol_gpl'" "-i 'export_symbol_gpl'" \
	"'(?i)export_symbol_gpl'"
grep_pattern class '[A-Z]+_SUSPEND' \
	"'[A-Z]+_SUSPEND'" "'[A-Z]+_SUSPEND'" "-E '[A-Z]+_SUSPEND'" \
	"'[A-Z]+_SUSPEND'"
ALT='kmalloc|kfree|mutex_lock|spin_lock|printk'
grep_pattern alt "$ALT" "'$ALT'" "'$ALT'" "-E '$ALT'" "'$ALT'"
# RE2's \w and \d are ASCII: rg gets (?-u) for the same meaning.
grep_pattern noliteral '\w{20}\d' \
	"'\\w{20}\\d'" "'(?-u)\\w{20}\\d'" "-E '[[:alnum:]_]{20}[0-9]'" \
	"'\\w{20}\\d'"
# The floor of every grep above: the tree walked and each file read to
# its end (64 KiB reads, a thread a CPU), nothing matched.
: >"$OUT/floor.txt"
if [ "$HAVE_GREP" = 1 ] && ${BENCH_CC:-cc} -O2 -o "$OUT/bin/read_floor" "$REPO/bench/read_floor.c" \
	-lpthread 2>>"$OUT/search.log"; then
	hyperfine -N --warmup 1 --runs "$RUNS" --style basic --export-json "$OUT/floor.json" \
		-n floor "read_floor $NAME" >>"$OUT/search.log" 2>&1
	# shellcheck disable=SC2046 # split "mean sd runs min"
	set -- $(hf_stats "$OUT/floor.json" floor)
	printf '%s\t%s\t%s\t%s\n' "${1:-}" "${2:-}" "${4:-}" "$(read_floor "$NAME")" >"$OUT/floor.txt"
	say "search: read floor $(fmt_s "${1:-}")"
fi
glob_pattern glob_c '*.c' '*.c' "-g '*.c'" "-name '*.c'"
glob_pattern glob_h '**/*.h' '**/*.h' "-p -g '**/*.h'" "-path '*.h'"

cd "$REPO" || exit 0
CORPUS_DESC="$KIND: $NFILES files, $SIZE"
WICKFS_INFO=$(wickfs_info "$OUT/bin/wickfs")
export CORPUS_DESC QUICK LOAD_AT_START WICKFS_INFO
sh bench/report.sh
exit 0
