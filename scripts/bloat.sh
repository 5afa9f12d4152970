#!/bin/sh
# scripts/bloat.sh - what a change costs, symbol by symbol (as BusyBox's
# scripts/bloat-o-meter):
#
#   scripts/bloat.sh [REV]      build REV (default HEAD) and the working tree,
#                               both unstripped, and compare them
#   scripts/bloat.sh OLD NEW    compare two unstripped ELF files
#
# Prints every symbol whose size changed (old, new, delta; the largest
# change first; "-" where it does not exist), the count and sum of the
# changes, `size`'s text/data/bss of both files, and both files' sizes once
# stripped (what a release ships). A growth note quotes the last lines.
#
# Symbols are nm's (--size-sort -S) of types t, d, r, b, v, w; names that
# appear more than once (static functions of the same name) are summed, and
# the compiler's ".NUMBER" suffixes dropped, so that a renumbered
# foo.constprop.0 is the same symbol.
#
# The builds: the working tree into build/bloat/new, REV's sources (git
# archive) into build/bloat/rev-SHA/ and built there; both with the working
# tree's .config and build/zlib (scripts/deps.sh), with STRIP=0 (or, for a
# revision whose Makefile predates it, a compiler wrapper that drops -s).
# JOBS sets make's -j (default 2).
set -eu
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}

die() {
	echo "bloat: $*" >&2
	exit 2
}

# build DIR B: `make all` in DIR into DIR/B, unstripped.
build() {
	dir=$1
	b=$2
	set -- -C "$dir" --no-print-directory -j"$jobs" B="$b" ZLIB="$top/build/zlib" STRIP=0
	if ! grep -q '^STRIP ?=' "$dir/Makefile"; then
		mkdir -p "$dir/$b"
		cat >"$dir/$b/cc-nostrip" <<-'EOF'
		#!/bin/sh
		# musl-gcc without -s: this revision's Makefile always strips.
		for a; do
			shift
			[ "$a" = -s ] || set -- "$@" "$a"
		done
		exec musl-gcc "$@"
		EOF
		chmod +x "$dir/$b/cc-nostrip"
		set -- "$@" CC="$dir/$b/cc-nostrip"
	fi
	# Run from make, our MAKEFLAGS must not reach the builds.
	(unset MAKEFLAGS MFLAGS MAKELEVEL; make "$@" all >&2) ||
		die "the build in $dir failed"
}

case $#:${1:-} in
*:-h | *:--help | *:-*)
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
0:* | 1:*)
	rev=${1:-HEAD}
	sha=$(git -C "$top" rev-parse --verify -q "$rev^{commit}") ||
		die "$rev: not a revision of $top"
	[ -f "$top/build/zlib/lib/libz.a" ] ||
		die "build/zlib missing: run scripts/deps.sh"
	old=$top/build/bloat/rev-$sha
	if [ ! -f "$old/Makefile" ]; then
		rm -rf "$old"
		mkdir -p "$old"
		git -C "$top" archive --format=tar "$sha" | tar -xf - -C "$old"
	fi
	# Both builds with the same configuration; copied only when it
	# changed, so that make does not rebuild for nothing.
	if [ -f "$top/.config" ]; then
		cmp -s "$top/.config" "$old/.config" 2>/dev/null ||
			cp "$top/.config" "$old/.config"
	fi
	echo "bloat: building $rev ($sha) in $old" >&2
	build "$old" build
	echo "bloat: building the working tree in $top/build/bloat/new" >&2
	build "$top" build/bloat/new
	set -- "$old/build/wickfs" "$top/build/bloat/new/wickfs"
	echo "bloat: old $rev, new the working tree"
	;;
2:*) ;;
*)
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac

old=$1
new=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bloat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# syms FILE OUT: "name size" per symbol, same names summed (sizes in
# decimal: awk reads no hexadecimal).
syms() {
	[ -f "$1" ] || die "$1: no such file"
	nm --size-sort -S -t d "$1" >"$tmp/nm" 2>"$tmp/nm.err" ||
		die "$1: $(cat "$tmp/nm.err")"
	awk '
		NF == 4 && $3 ~ /^[tTdDrRbBvVwW]$/ {
			name = $4
			gsub(/\.[0-9]+/, "", name)
			size[name] += $2
		}
		END { for (n in size) print n, size[n] }
	' "$tmp/nm" >"$2"
	[ -s "$2" ] || die "$1: no symbols (stripped? build it with make STRIP=0)"
}

syms "$old" "$tmp/old"
syms "$new" "$tmp/new"

# One line per changed symbol: |delta| name old new delta, then sorted.
awk '
	FNR == NR { o[$1] = $2; next }
	{ n[$1] = $2 }
	END {
		for (s in o) if (!(s in n)) print o[s], s, o[s], "-", -o[s]
		for (s in n) {
			d = n[s] - (s in o ? o[s] : 0)
			if (d != 0) print (d < 0 ? -d : d), s, (s in o ? o[s] : "-"), n[s], d
		}
	}
' "$tmp/old" "$tmp/new" | sort -k1,1nr -k2,2 >"$tmp/changes"

awk '
	BEGIN { printf "%-40s %9s %9s %9s\n", "symbol", "old", "new", "delta" }
	{
		printf "%-40s %9s %9s %+9d\n", $2, $3, $4, $5
		if ($3 == "-") add++; else if ($4 == "-") del++
		else if ($5 > 0) grow++; else shrink++
		if ($5 > 0) up += $5; else down += $5
	}
	END {
		printf "add/remove: %d/%d grow/shrink: %d/%d up/down: %d/%d (%+d)\n",
			add, del, grow, shrink, up, down, up + down
	}
' "$tmp/changes"

# sizes FILE: text data bss (Berkeley format).
sizes() {
	size -B "$1" 2>/dev/null | awk 'NR == 2 { print $1, $2, $3; ok = 1 }
		END { if (!ok) print "? ? ?" }'
}
stripped() {
	strip -o "$tmp/s" "$1" 2>/dev/null && wc -c <"$tmp/s" | tr -d ' ' || echo '?'
}
# shellcheck disable=SC2046
set -- $(sizes "$old") $(sizes "$new") \
	$(awk '{ t += $2 } END { print t + 0 }' "$tmp/old") \
	$(awk '{ t += $2 } END { print t + 0 }' "$tmp/new") \
	"$(stripped "$old")" "$(stripped "$new")"
echo
printf '%-40s %9s %9s %9s\n' "section" "old" "new" "delta"
line() {
	case $2$3 in
	*'?'*) printf '%-40s %9s %9s %9s\n' "$1" "$2" "$3" "?" ;;
	*) printf '%-40s %9s %9s %+9d\n' "$1" "$2" "$3" $(($3 - $2)) ;;
	esac
}
line text "$1" "$4"
line data "$2" "$5"
line bss "$3" "$6"
line "symbols (sum)" "$7" "$8"
line "stripped file" "$9" "${10}"
