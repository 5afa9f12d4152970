#!/bin/sh
# bench/check.sh - wickfs check on a 200-assertion gossfile (issue 25's
# goal: under 20 ms wall) against the same assertions written as a shell
# script of wickfs calls with jq, as a pipeline without check would do.
#
# The gossfile: 200 assertions: 30 files of /usr/bin (exists, mode,
# filetype, owner), 20 users (exists, uid) and 20 groups (exists, gid),
# all read off this machine so that every assertion passes. The script
# asserts the same with one wickfs call and one jq each (the owner as its
# uid, which stat gives). Both timed with hyperfine, whole process
# (BENCH_RUNS runs, default 30).
#
#   sh bench/check.sh
. bench/lib.sh

W=$(bench_wickfs)
runs=${BENCH_RUNS:-30}
[ -x "$W" ] || { say "bench: no $W (make first)"; exit 0; }
need hyperfine hyperfine || exit 0
need jq jq || exit 0
dir=$BENCH_OUT/check
rm -rf "$dir" && mkdir -p "$dir"
g=$dir/goss.yaml
sh=$dir/checks.sh
n=0
{
	echo "file:"
	for f in $(ls /usr/bin); do
		p=/usr/bin/$f
		[ $n -lt 120 ] || break
		[ -f "$p" ] && [ ! -L "$p" ] || continue
		mode=$(stat -c %a "$p")
		owner=$(stat -c %U "$p")
		printf '  %s:\n    exists: true\n    mode: "%04d"\n    filetype: file\n    owner: %s\n' \
			"$p" "$mode" "$owner"
		printf '[ "$($W stat %s | jq -r .data.uid)" = %s ]\n' "$p" "$(stat -c %u "$p")" >>"$dir/uids"
		n=$((n + 4))
	done
	echo "user:"
	cut -d: -f1,3 /etc/passwd | head -n 20 | while IFS=: read -r u id; do
		printf '  %s:\n    exists: true\n    uid: %s\n' "$u" "$id"
	done
	echo "group:"
	cut -d: -f1,3 /etc/group | head -n 20 | while IFS=: read -r gr id; do
		printf '  %s:\n    exists: true\n    gid: %s\n' "$gr" "$id"
	done
} >"$g"
# the same assertions, one wickfs call and one jq a value
{
	echo "set -e"
	echo "W=$W"
	awk '
	/^file:/ {k="f"} /^user:/ {k="u"} /^group:/ {k="g"}
	/^  [^ ]/ {sub(/^  /, ""); sub(/:$/, ""); name=$0}
	k=="f" && /exists:/ {printf "$W -t exists %s >/dev/null\n", name}
	k=="f" && /mode:/ {gsub(/"/, "", $2); printf "[ \"$($W stat %s | jq -r .data.mode)\" = %s ]\n", name, $2}
	k=="f" && /filetype:/ {printf "[ \"$($W stat %s | jq -r .data.type)\" = file ]\n", name}
	k=="u" && /exists:/ {printf "[ \"$($W grep -c \"^%s:\" /etc/passwd | jq -r .data.counts[0].count)\" = 1 ]\n", name}
	k=="u" && /uid:/ {printf "[ \"$($W grep \"^%s:\" /etc/passwd | jq -r \".data.matches[0].text\" | cut -d: -f3)\" = %s ]\n", name, $2}
	k=="g" && /exists:/ {printf "[ \"$($W grep -c \"^%s:\" /etc/group | jq -r .data.counts[0].count)\" = 1 ]\n", name}
	k=="g" && /gid:/ {printf "[ \"$($W grep \"^%s:\" /etc/group | jq -r \".data.matches[0].text\" | cut -d: -f3)\" = %s ]\n", name, $2}
	' "$g"
	cat "$dir/uids"
} >"$sh"
asserts=$(grep -c -E '^    ' "$g")
if ! "$W" check -g "$g" -f silent; then
	say "bench: check: the gossfile does not pass here ($("$W" check -g "$g" -f tap | grep -c '^not ok') failures)"
	exit 0
fi
if ! sh "$sh" >/dev/null 2>&1; then
	say "bench: check: the shell version fails here"
	exit 0
fi
hyperfine -N -w 3 -r "$runs" --export-json "$dir/h.json" \
	"$W check -g $g -f silent" "sh $sh" >/dev/null 2>&1 ||
	hyperfine -w 3 -r "$runs" --export-json "$dir/h.json" \
		"$W check -g $g -f silent" "sh $sh" >/dev/null
echo "## wickfs check, $asserts assertions ($(nproc) CPUs; $(date -u +%Y-%m-%d))"
echo
echo "| what | median (ms) | ratio |"
echo "|---|---:|---:|"
python3 - "$dir/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["median"]
names = ["`wickfs check -f silent`", "the same as `sh` + wickfs + jq"]
for name, x in zip(names, r):
    print("| %s | %.2f | %.2fx |" % (name, x["median"] * 1000, x["median"] / base))
PY
