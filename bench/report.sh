#!/bin/sh
# bench/report.sh - render the tables of bench/search.sh (run by it)
#
# Reads the tab-separated records search.sh leaves in build/bench/
# (labels, cells, checks, rss, commands) and writes search.md, search.dat
# (the chart's data) and, through bench/chart.sh, search.svg.
set -u
cd "$(dirname "$0")/.." || exit 0
. bench/lib.sh
O=$BENCH_OUT
[ -s "$O/cells.txt" ] || { say "report: no results in $O"; exit 0; }


# awk shared by the two tables: keep() stores one cell record; cell, cellesc
# and r format a mean ± sd, escape a pipe, give a ratio.
AWK_LIB='
	function keep() {
		if (!seen[$1]++) ids[++n] = $1
		if (!tseen[$2]++) tools[++nt] = $2
		count[$1, $2] = $3; mean[$1, $2] = $4; sd[$1, $2] = $5; min[$1, $2] = $7
	}
	function cell(m, s) {
		if (m == "") return "-"
		return m < 1 ? sprintf("%.1f ± %.1f ms", m * 1000, s * 1000) : sprintf("%.2f ± %.2f s", m, s)
	}
	function cellesc(s) { gsub(/\|/, "\\|", s); return s }
	function r(a, b) { return (a == "" || b == "" || b == 0) ? "-" : sprintf("%.2f", a / b) }
'

md=$O/search.md
{
	echo "### Search: wickfs grep and glob against rg, GNU grep, fd, find"
	echo
	machine_info
	echo "Load average when the run started: ${LOAD_AT_START:-?} (the machine line above gives it at the end)."
	echo "Corpus: ${CORPUS_DESC:-?}."
	echo "${WICKFS_INFO:-}"
	echo "Versions: $(rg --version 2>/dev/null | head -n 1), $(grep --version | head -n 1)," \
		"$( (fdfind --version || fd --version) 2>/dev/null | head -n 1)," \
		"$(find --version | head -n 1), $(hyperfine --version)."
	echo
	awk -F'\t' -v ratio_base=rg -v kind=grep "$AWK_LIB"'
	FILENAME ~ /labels/ { label[$1] = $2; next }
	FILENAME ~ /checks/ { sym[$1] = $2; ext[$1] = $3; exp_[$1] = $4; verdict[$1] = $5; next }
	FILENAME ~ /rss/ { rssw[$1] = $2; rssr[$1] = $3; next }
	{
		if (!($1 in verdict)) next
		keep()
	}
	END {
		if (n == 0) exit
		hdr = "| pattern |"; sep = "|---|"
		for (t = 1; t <= nt; t++) { hdr = hdr " " tools[t] " |"; sep = sep "---:|" }
		hdr = hdr " wickfs/rg | grep/rg | wickfs/rg by min | matching lines wickfs / rg / grep | check | peak RSS wickfs / rg |"
		sep = sep "---:|---:|---:|---:|---|---:|"
		print hdr; print sep
		for (i = 1; i <= n; i++) {
			id = ids[i]
			if (!(id in verdict)) continue
			line = "| `" cellesc(label[id]) "` |"
			for (t = 1; t <= nt; t++) line = line " " cell(mean[id, tools[t]], sd[id, tools[t]]) " |"
			line = line " " r(mean[id, "wickfs"], mean[id, "rg"]) " | " r(mean[id, "grep"], mean[id, "rg"]) " |"
			line = line " " r(min[id, "wickfs"], min[id, "rg"]) " |"
			line = line " " count[id, "wickfs"] " / " count[id, "rg"] " / " count[id, "grep"] " |"
			line = line " " verdict[id] " |"
			rw = rssw[id] == "" ? "-" : sprintf("%.1f MiB", rssw[id] / 1024)
			rr = rssr[id] == "" ? "-" : sprintf("%.1f MiB", rssr[id] / 1024)
			print line " " rw " / " rr " |"
		}
		print ""
		print "Check: wickfs must find rg'"'"'s lines, plus those in files reached through"
		print "a symlink (wickfs reads them, rg and grep -r do not), minus those in files"
		print "with an extension wickfs skips; grep must find exactly rg'"'"'s lines:"
		print ""
		for (i = 1; i <= n; i++) {
			id = ids[i]
			if (!(id in verdict)) continue
			printf "- `%s`: rg %s + %s via symlinks - %s in skipped extensions = %s expected, wickfs %s, grep %s", \
				label[id], count[id, "rg"], sym[id], ext[id], exp_[id], count[id, "wickfs"], count[id, "grep"]
			if ((id, "ref") in count)
				printf "; reference %s, wickfs with its defaults %s (time ratio wickfs/reference %s)", \
					count[id, "ref"], count[id, "wickfs cap"], r(mean[id, "wickfs cap"], mean[id, "ref"])
			print "."
		}
	}' "$O/labels.txt" "$O/checks.txt" "$O/rss.txt" "$O/cells.txt"
	if [ -s "$O/floor.txt" ]; then
		echo
		awk -F'\t' 'FILENAME ~ /floor/ { fm = $1; fs = $2; fmin = $3; what = $4; next }
		$1 == "literal" { m[$2] = $4; mn[$2] = $7 }
		END {
			printf "The read floor (bench/read_floor.c: the tree walked, every file read to its end in 64 KiB reads, a thread a CPU, nothing matched; %s): %.3f ± %.3f s, ", what, fm, fs
			printf "%.2f of rg'"'"'s literal search and %.2f of wickfs'"'"'s (by min %.2f and %.2f): ", fm / m["rg"], fm / m["wickfs"], fmin / mn["rg"], fmin / mn["wickfs"]
			print "what is left above it is the matching and the output."
		}' "$O/floor.txt" "$O/cells.txt"
	fi
	if [ -s "$O/filediff.txt" ]; then
		echo
		# shellcheck disable=SC2016
		echo 'File by file, every file whose count differs from rg'"'"'s (`wickfs -t grep -c` against `rg -c`), and why:'
		echo
		echo "| pattern | file | wickfs | rg | why |"
		echo "|---|---|---:|---:|---|"
		awk -F'\t' 'FILENAME ~ /labels/ { label[$1] = $2; next }
		{ l = label[$1]; gsub(/\|/, "\\|", l)
		  printf "| `%s` | `%s` | %s | %s | %s |\n", l, $2, $3, $4, $5 }' \
			"$O/labels.txt" "$O/filediff.txt" | head -n 60
	fi
	echo
	awk -F'\t' "$AWK_LIB"'
	FILENAME ~ /labels/ { label[$1] = $2; next }
	FILENAME ~ /checks/ { isgrep[$1] = 1; next }
	{
		if (!($1 in label) || ($1 in isgrep)) next
		keep()
	}
	END {
		if (n == 0) exit
		hdr = "| glob |"; sep = "|---|"
		for (t = 1; t <= nt; t++) { hdr = hdr " " tools[t] " |"; sep = sep "---:|" }
		print hdr " wickfs/fd | find/fd | wickfs/fd by min | files wickfs / fd / find | check |"
		print sep "---:|---:|---:|---:|---|"
		for (i = 1; i <= n; i++) {
			id = ids[i]
			line = "| `" cellesc(label[id]) "` |"
			for (t = 1; t <= nt; t++) line = line " " cell(mean[id, tools[t]], sd[id, tools[t]]) " |"
			ok = (count[id, "wickfs"] == count[id, "fd"] && count[id, "fd"] == count[id, "find"]) ? "ok" : "differs"
			print line " " r(mean[id, "wickfs"], mean[id, "fd"]) " | " r(mean[id, "find"], mean[id, "fd"]) \
				" | " r(min[id, "wickfs"], min[id, "fd"]) " | " count[id, "wickfs"] " / " count[id, "fd"] " / " count[id, "find"] " | " ok " |"
		}
	}' "$O/labels.txt" "$O/checks.txt" "$O/cells.txt"
	echo
	echo "Commands (run from the corpus' parent directory; \`wickfs\` is build/wickfs):"
	echo
	echo '```'
	# shellcheck disable=SC2016
	awk -F'\t' -v ref="${WICKFS_REF:-}" '{
		c = $3
		if (ref != "") { q = "'"'"'" ref "'"'"'"; i = index(c, q); if (i) c = substr(c, 1, i - 1) "$WICKFS_REF" substr(c, i + length(q)) }
		print c
	}' "$O/commands.txt"
	echo '```'
} >"$md"

# Chart data: one row per grep pattern, the mean of each tool in seconds.
awk -F'\t' '
FILENAME ~ /labels/ { label[$1] = $2; next }
FILENAME ~ /checks/ { isgrep[$1] = 1; ids[++n] = $1; next }
{ mean[$1, $2] = $4 }
END {
	print "# pattern wickfs rg grep"
	for (i = 1; i <= n; i++) {
		id = ids[i]; l = label[id]; gsub(/"/, "", l)
		# Long alternations would overlap their neighbours on the x axis.
		if (length(l) > 24 && index(l, "|")) { sub(/\|.*\|/, "|...|", l) }
		printf "\"%s\" %s %s %s\n", l, v(mean[id, "wickfs"]), v(mean[id, "rg"]), v(mean[id, "grep"])
	}
}
function v(x) { return x == "" ? "NaN" : x }' "$O/labels.txt" "$O/checks.txt" "$O/cells.txt" |
	sed 's/\\/\\\\/g' >"$O/search.dat"  # gnuplot reads escapes in quoted data

cat "$md"
grep -q '^"' "$O/search.dat" && { sh bench/chart.sh "$O/search.dat" "$O/search.svg" \
	"${CORPUS_DESC:-}" ||
	say "report: no chart"; }
if [ "${BENCH_SAVE:-0}" = 1 ] && [ "${QUICK:-0}" != 1 ] && [ -z "${BENCH_CORPUS:-}" ]; then
	mkdir -p bench/results
	cp "$md" bench/results/search.md
	[ -s "$O/search.svg" ] && cp "$O/search.svg" bench/results/search.svg
	say "report: saved bench/results/search.md and search.svg"
fi
exit 0
