#!/bin/sh
# tests/fuzz/smoke.sh - run every fuzz target briefly on its seed corpus.
#
#   sh tests/fuzz/smoke.sh [TARGET...]
#
# Each target replays tests/fuzz/corpus/<target>/ (the seeds and every
# crash turned into a regression input) and then fuzzes FUZZ_SMOKE_RUNS
# inputs (default 20000) from a fixed seed (FUZZ_SMOKE_SEED, default 1),
# so a run is the same on every machine and a CI result can be replayed;
# longer, random campaigns are `make fuzz` and the targets by hand. It prints "ok fuzz.<target>" or
# "FAIL fuzz.<target>: ...", or a skip when the target is not built
# (`make fuzz` needs clang and its fuzzer runtime). New inputs found go to
# a scratch directory, never into the seed corpus.
cd "$(dirname "$0")/../.." || exit 1
runs=${FUZZ_SMOKE_RUNS:-20000}
seed=${FUZZ_SMOKE_SEED:-1}
targets=$*
[ -n "$targets" ] || targets=$(ls tests/fuzz/*.c | sed 's|.*/||; s|\.c$||')
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wickfs-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
bad=0
for t in $targets; do
	bin=build/fuzz/$t
	if [ ! -x "$bin" ]; then
		echo "skip fuzz.$t: $bin not built (make fuzz: clang with libFuzzer)"
		continue
	fi
	mkdir -p "$scratch/$t"
	n=$runs
	# A target that builds a workspace on disk per input: a tenth as
	# many runs keep its smoke pass to seconds.
	case $t in restore_journal) n=$((runs / 10)) ;; esac
	if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" -seed="$seed" -runs="$n" -timeout=10 -rss_limit_mb=1024 \
		-artifact_prefix="$scratch/$t/" "$scratch/$t" \
		"$PWD/tests/fuzz/corpus/$t" >"$scratch/$t.log" 2>&1; then
		echo "ok fuzz.$t ($(grep -o 'Done [0-9]* runs' "$scratch/$t.log" | tail -n 1))"
	else
		why=$(grep -m 1 -E 'ERROR|runtime error|deadly signal|Timeout|out-of-memory' \
			"$scratch/$t.log" | cut -c1-300)
		crash=$(ls "$scratch/$t"/crash-* "$scratch/$t"/timeout-* "$scratch/$t"/oom-* 2>/dev/null | head -n 1)
		[ -n "$crash" ] && cp "$crash" "build/fuzz/$t.$(basename "$crash")"
		echo "FAIL fuzz.$t: ${why:-exited non-zero}${crash:+; input kept as build/fuzz/$t.$(basename "$crash")}"
		bad=1
	fi
done
exit $bad
