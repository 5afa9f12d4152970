#!/bin/sh
# tests/fuzz/campaign.sh - a fuzzing campaign: every TARGET for its wall
# time, LANES targets at once, each growing its own corpus, then a table of
# what each got and found.
#
#   sh tests/fuzz/campaign.sh [-j LANES] [-n NICE] [-t TIMEOUT] [-o TABLE] TARGET=SECONDS...
#
# Targets are `make fuzz`'s (build/fuzz/<target>). Each runs from
# build/fuzz/campaign/work-<target> (seeded from tests/fuzz/corpus/<target>
# the first time, kept between campaigns, so a second campaign goes on
# where the first stopped) with tests/fuzz/corpus/<target> read as well.
# A crash, leak, timeout or out-of-memory input ends that target's run; the
# input is kept in build/fuzz/campaign/art-<target>/<start time>/ and named
# in the table. TIMEOUT (libFuzzer's -timeout, seconds of wall time for one
# input) is 60 by default: a fuzzer at nice 19 that other work starves of
# the CPU reached 10 s on inputs that replay alone in 5 ms.
#
# The table (markdown, to TABLE, default build/fuzz/campaign/table.md) has
# per target: CPU seconds (user + sys of the fuzzer, from /usr/bin/time),
# wall seconds, libFuzzer's executed units, the corpus size at the end, and
# the findings. Logs: build/fuzz/campaign/<target>.log.
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
camp=$top/build/fuzz/campaign

# One target: the worker that the lanes below run.
if [ "${1:-}" = --one ]; then
	t=${2%%=*} secs=${2#*=} nice=$3 tmo=$4 table=$5
	bin=$top/build/fuzz/$t
	work=$camp/work-$t art=$camp/art-$t/$(date +%s) log=$camp/$t.log
	mkdir -p "$work" "$art"
	if [ ! -x "$bin" ]; then
		printf '| `%s` | - | - | - | - | not built (make fuzz) |\n' "$t" >>"$table"
		exit 1
	fi
	[ -n "$(ls -A "$work")" ] || cp "$top/tests/fuzz/corpus/$t"/* "$work"/
	rc=0
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		/usr/bin/time -f '%U %S %e' -o "$log.time" nice -n "$nice" \
		"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout="$tmo" \
		-rss_limit_mb=2048 -artifact_prefix="$art/" \
		"$work" "$top/tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
	# /usr/bin/time prefixes a line when the command failed.
	set -- $(tail -n 1 "$log.time")
	cpu=$(awk -v u="$1" -v s="$2" 'BEGIN { printf "%.0f", u + s }')
	wall=$(awk -v e="$3" 'BEGIN { printf "%.0f", e }')
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	corpus=$(ls "$work" | wc -l)
	found=$(ls "$art" 2>/dev/null | tr '\n' ' ')
	if [ "$rc" != 0 ] || [ -n "$found" ]; then
		why=$(grep -m 1 -E 'ERROR|runtime error|deadly signal|Timeout|out-of-memory' "$log" | cut -c1-120)
		what="exit $rc: ${why:-see $t.log}; ${found:-no input kept}"
	else
		what=none
	fi
	printf '| `%s` | %s | %s | %s | %s | %s |\n' "$t" "$cpu" "$wall" "${execs:-?}" "$corpus" "$what" >>"$table"
	exit 0
fi

lanes=2 nice=19 tmo=60 table=$camp/table.md
while getopts j:n:o:t: o; do
	case $o in
	j) lanes=$OPTARG ;;
	n) nice=$OPTARG ;;
	o) table=$OPTARG ;;
	t) tmo=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-j LANES] [-n NICE] [-t TIMEOUT] [-o TABLE] TARGET=SECONDS..." >&2; exit 2; }
for a; do
	case $a in
	*=*[!0-9]* | *= | =*) echo "campaign: '$a' is not TARGET=SECONDS" >&2; exit 2 ;;
	*=*) ;;
	*) echo "campaign: '$a' is not TARGET=SECONDS" >&2; exit 2 ;;
	esac
	[ -f "tests/fuzz/${a%%=*}.c" ] || { echo "campaign: no target ${a%%=*} (tests/fuzz/${a%%=*}.c)" >&2; exit 2; }
done
mkdir -p "$camp" "$(dirname "$table")"
case $table in /*) ;; *) table=$top/$table ;; esac
: >"$table.rows"
echo "campaign: $# targets, $lanes at a time, nice $nice, -timeout=$tmo; started $(date -u '+%F %T') UTC" >&2
# Longest first, so the lanes end close together.
printf '%s\n' "$@" | sort -t= -k2,2nr |
	xargs -P "$lanes" -I{} sh "$0" --one {} "$nice" "$tmo" "$table.rows"
{
	echo "| target | CPU s | wall s | executions | corpus | crashes, leaks, timeouts |"
	echo "|---|---:|---:|---:|---:|---|"
	sort "$table.rows"
} >"$table"
rm -f "$table.rows"
echo "campaign: ended $(date -u '+%F %T') UTC; $table" >&2
cat "$table"
