#!/usr/bin/env bash
# Text mode (-t, --text, WICKFS_OUTPUT=text): each applet's answer as a
# person or a CI log expects it, byte for byte, with the exit codes that
# assert (grep 1 when nothing matched and 2 on trouble, diff 1 when the
# files differ, exists 1 when the path is missing, exec the command's own
# status); errors on stderr as "wickfs APPLET: PATH: cause". JSON stays
# the default. Also the options outside the reference's form: -h is
# --help, an unknown option is named.
. "$(dirname "$0")/lib.sh"

d=$TEST_TMP/text
mkdir -p "$d/src/sub"
cd "$d" || exit 1
printf 'alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n' >src/a.txt
printf 'beta\n' >src/sub/b.txt
printf 'alpha\nBETA\ngamma\n' >other.txt
printf '\xff\xfe raw \x00 bytes\n' >bin.dat
chmod 644 src/a.txt src/sub/b.txt other.txt
chmod 755 src src/sub
touch -d '2021-03-04 05:06:07.5' src/a.txt src/sub/b.txt src/sub src
uid=$(id -u)
gid=$(id -g)

# tx NAME RC STDOUT STDERR ARGS...: `wickfs -t ARGS` gives exactly these.
tx() {
	local name=$1 rc=$2 out=$3 err=$4
	shift 4
	wf -t "$@"
	if [ "$RC" == "$rc" ] && [ "$OUT" == "$out" ] && [ "$ERR" == "$err" ]; then
		pass "$name"
	else
		fail "$name" "exit $RC (want $rc); stdout $(show "$OUT") want $(show "$out"); stderr $(show "$ERR") want $(show "$err")"
	fi
}

# ---- read: the bytes as they are ----
tx text.read.bytes 0 $'alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n' "" read src/a.txt
"$WICKFS" -t read bin.dat >"$TEST_TMP/bin.out"
check_true text.read.raw_bytes "not the file's bytes" cmp -s bin.dat "$TEST_TMP/bin.out"
tx text.read.bytes_range 0 $'gamma' "" read --bytes --offset 11 --limit 5 src/a.txt
wf -t read --lines --offset 2 --limit 2 src/a.txt
check_match text.read.lines "*beta*gamma*" "$OUT"
tx text.read.missing 1 "" "wickfs read: nope: no such file or directory" read nope

# ---- ls: ls -l's columns, directories with a slash ----
sz=$(stat -c %s src/sub)
want=$(printf -- "-rw-r--r-- %${#sz}s 2021-03-04 05:06 a.txt\ndrwxr-xr-x %s 2021-03-04 05:06 sub/" 36 "$sz")
wf -t ls src
check text.ls.columns "$want"$'\n' "$OUT"
check text.ls.columns_rc 0 "$RC"

# ---- glob: one path a line ----
tx text.glob.lines 0 $'src/a.txt\nsrc/sub/b.txt\n' "" glob --sort name '*.txt' src
tx text.glob.truncated 0 $'src/a.txt\n' "wickfs glob: stopped at 1 paths (--max N for more, 0 for all)" glob --sort name --max 1 '*.txt' src

# ---- grep: file:line:text, context with - and -- between groups ----
tx text.grep.lines 0 $'src/a.txt:2:beta\nsrc/sub/b.txt:1:beta\n' "" grep beta src
tx text.grep.one_file 0 $'2:beta\n' "" grep beta src/a.txt
tx text.grep.context 0 $'src/a.txt-1-alpha\nsrc/a.txt:2:beta\nsrc/a.txt-3-gamma\n--\nsrc/a.txt-5-epsilon\nsrc/a.txt:6:zeta\n--\nsrc/sub/b.txt:1:beta\n' "" grep -C1 'beta|zeta' src
tx text.grep.files 0 $'src/a.txt\nsrc/sub/b.txt\n' "" grep -l beta src
tx text.grep.counts 0 $'src/a.txt:2\nsrc/sub/b.txt:1\n' "" grep -c 'beta|alpha' src
tx text.grep.no_match 1 "" "" grep nothing-here src
tx text.grep.missing 2 "" "wickfs grep: nope: no such file or directory" grep beta nope
tx text.grep.bad_pattern 2 "" 'wickfs grep: invalid regex: missing closing ): at position 1 in "("' grep '(' src
tx text.grep.truncated 0 $'src/a.txt:1:alpha\n' "wickfs grep: stopped at 1 matches (--max N for more, 0 for all)" grep --max 1 a src
# JSON, the default, is unchanged and keeps the reference's codes.
expect text.grep.json_default 0 '{"ok":true,"data":{"matches":[],"truncated":false}}' grep nothing-here src

# ---- diff: a plain unified diff, diff's codes ----
tx text.diff.differ 1 $'--- src/a.txt\n+++ other.txt\n@@ -1,6 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n-delta\n-epsilon\n-zeta\n' "" diff src/a.txt other.txt
tx text.diff.same 0 "" "" diff src/a.txt src/a.txt
wf -t diff nope src/a.txt
check text.diff.trouble_rc 2 "$RC"
check_match text.diff.trouble "wickfs diff: *nope: no such file or directory" "$ERR"

# ---- exists: an assertion ----
tx text.exists.yes 0 $'src/a.txt: file\n' "" exists src/a.txt
tx text.exists.dir 0 $'src: dir\n' "" exists src
tx text.exists.no 1 "" "wickfs exists: nope: no such file or directory" exists nope

# ---- stat: as stat(1) prints it ----
tx text.stat.file 0 "  File: src/a.txt
  Size: 36         Links: 1     Type: file
Access: (0644/-rw-r--r--)  Uid: $uid  Gid: $gid
Access: $(date -u -d "@$(stat -c %X src/a.txt)" '+%Y-%m-%d %H:%M:%S').$(stat -c %x src/a.txt | sed 's/.*\.\([0-9]*\) .*/\1/') +0000
Modify: 2021-03-04 05:06:07.500000000 +0000
Change: $(date -u -d "@$(stat -c %Z src/a.txt)" '+%Y-%m-%d %H:%M:%S').$(stat -c %z src/a.txt | sed 's/.*\.\([0-9]*\) .*/\1/') +0000
" "" stat src/a.txt

# ---- exec: the command's own output and status ----
tx text.exec.output 0 $'out\n' $'err' exec 'echo out; echo err >&2'
tx text.exec.status 3 $'x\n' "" exec 'echo x; exit 3'
tx text.exec.signal 137 "" "" exec 'kill -9 $$'
tx text.exec.timeout 124 "" "wickfs exec: timed out after 1 s, killed" exec --timeout 1 'sleep 5'

# ---- the generic form: key: value ----
tx text.generic.mkdir 0 $'path: made\ncreated: true\n' "" mkdir made
wf -t rm made
check text.generic.rm $'path: made\nremoved: 1\n' "$OUT"

# ---- the ways to ask for it ----
WICKFS_OUTPUT=text wf exists src/a.txt
check text.env.text "src/a.txt: file"$'\n' "$OUT"
wf --text exists nope
check text.long_option 1 "$RC"
WICKFS_OUTPUT=json wf exists src/a.txt
check text.env.json '{"ok":true,"data":{"path":"src/a.txt","exists":true,"type":"file"}}'$'\n' "$OUT"
WICKFS_OUTPUT=yaml wf exists src/a.txt
check_match text.env.bad '*WICKFS_OUTPUT=yaml: not an output form (json or text)*' "$OUT"
check text.env.bad_rc 1 "$RC"
wf -t --root "$d" read src/sub/b.txt
check text.with_root $'beta\n' "$OUT"
# help is text already: left as it is
wf -t grep --help
check_match text.help "usage: wickfs grep*" "$OUT"

# ---- options outside the reference's form ----
wf grep -h
want=$("$WICKFS" help grep; echo .)
check cli.dash_h_is_help "${want%.}" "$OUT"
expect cli.unknown_option 1 '{"ok":false,"error":"ls: unknown option --bogus (wickfs help ls)"}' ls --bogus src
expect cli.unknown_short 1 '{"ok":false,"error":"grep: unknown option -Q (wickfs help grep)"}' grep -Q x src
# the reference's form stays literal: one argument to ls is its path
expect cli.ref_form_literal 1 '{"ok":false,"error":"ls --bogus: no such file or directory"}' ls --bogus
# after -- a dash-led argument is a positional
expect cli.after_dashdash 0 '{"ok":true,"data":{"matches":[],"truncated":false}}' grep -- -Q src

# ---- the generic form of the applets that change files ----
g=$TEST_TMP/generic
mkdir -p "$g"
cd "$g" || exit 1
echo hi >f
tx text.generic.cp 0 $'src: f\ndst: g\ncopied: 1\n' "" cp f g
tx text.generic.mv 0 $'src: g\ndst: h\ncopied: false\n' "" mv g h
tx text.generic.chmod 0 $'path: h\nmode: 0600\n' "" chmod 600 h
tx text.generic.symlink 0 $'path: l\ntarget: h\n' "" symlink h l
tx text.generic.readlink 0 $'path: l\ntarget: h\n' "" readlink l
wf_in $'x\n' -t write w
check text.generic.write $'path: w\nbytes_written: 2\n' "$OUT"
wf_in $'y\n' -t append w
check text.generic.append $'path: w\nbytes_written: 2\n' "$OUT"
wf_in '{"old_text":"x","new_text":"z"}' -t edit w
check text.generic.edit $'path: w\nreplacements: 1\n' "$OUT"
wf_in '{"old_text":"nope","new_text":"z"}' -t edit w
check text.generic.edit_error_rc 1 "$RC"
check_match text.generic.edit_error "wickfs edit: w: old_text not found*" "$ERR"
