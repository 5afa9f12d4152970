# bench/lib.sh - helpers shared by the benchmark scripts (sourced, POSIX sh)
#
# The scripts run from the repository root. Nothing here exits non-zero on
# a missing tool: a benchmark that cannot run says so and is skipped.

BENCH_OUT=${BENCH_OUT:-build/bench}
mkdir -p "$BENCH_OUT"

say() { printf '%s\n' "$*" >&2; }

# The wickfs under test, as an absolute path so the scripts may cd.
bench_wickfs() {
	w=${WICKFS:-build/wickfs}
	case $w in /*) ;; *) w=$PWD/$w ;; esac
	printf '%s\n' "$w"
}

_apt_updated=
# apt_install PKG...: install Debian packages when we are root and apt works.
apt_install() {
	[ "$(id -u)" = 0 ] || { say "bench: not root, cannot install $*"; return 1; }
	command -v apt-get >/dev/null 2>&1 || { say "bench: no apt-get for $*"; return 1; }
	say "bench: apt-get install $*"
	if [ -z "$_apt_updated" ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "$@" >/dev/null 2>&1 && return 0
		apt-get update -q >/dev/null 2>&1
		_apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "$@" >/dev/null 2>&1
}

# need CMD PKG: make CMD available (installing PKG if needed); 1 if impossible.
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	apt_install "$2" || true
	command -v "$1" >/dev/null 2>&1 && return 0
	say "bench: $1 (Debian package $2) is not available"
	return 1
}

# need_file PATH PKG: same for a file such as /usr/bin/time (a shell keyword).
need_file() {
	[ -x "$1" ] && return 0
	apt_install "$2" || true
	[ -x "$1" ] && return 0
	say "bench: $1 (Debian package $2) is not available"
	return 1
}

# hf_stats JSON NAME: "mean stddev runs min" (seconds) of NAME in a hyperfine export.
hf_stats() {
	jq -r --arg n "$2" '.results[] | select(.command == $n) |
		"\(.mean) \(.stddev // 0) \(.times | length) \(.min)"' "$1" 2>/dev/null | head -n 1
}

# fmt_s SECONDS / fmt_ms SECONDS: table cells.
fmt_s() { awk -v t="$1" 'BEGIN { if (t == "") print "-"; else printf "%.3f s", t }'; }
fmt_ms() { awk -v t="$1" 'BEGIN { if (t == "") print "-"; else printf "%.2f ms", t * 1000 }'; }

# ratio A B: A/B with two decimals, "-" when either is missing.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

# machine_info: one markdown paragraph naming the machine and the date.
machine_info() {
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
	mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
	printf 'Machine: %s CPU(s) (%s), %s RAM, Linux %s, load average %s. Date: %s.\n' \
		"$(nproc 2>/dev/null)" "${cpu:-unknown CPU}" "${mem:-?}" \
		"$(uname -r)" "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" \
		"$(date -u '+%Y-%m-%d %H:%M UTC')"
}

# wickfs_info BIN: its version and the commit of the tree it was built from.
wickfs_info() {
	printf 'wickfs: %s, built from commit %s (%s bytes).\n' \
		"$("$1" --version 2>/dev/null | head -n 1)" \
		"$(git describe --always --dirty 2>/dev/null || echo unknown)" \
		"$(wc -c <"$1")"
}
