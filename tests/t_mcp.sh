#!/usr/bin/env bash
# wickfs mcp with raw JSON-RPC lines: initialize, tools/list, each tool on
# a fixture, escapes from the allowed directories through several tools,
# read-only mode, roots from the client, and bad input that gets an error
# while the server goes on. Requests go in as one file: the server answers
# them in order, one at a time, so no back-and-forth is needed (the
# answer to its roots/list request is in the file too: its id is known).
. "$(dirname "$0")/lib.sh"

w=$TEST_TMP/mcp
d=$w/d
outside=$w/outside
mkdir -p "$d/sub/deep" "$d/.hid" "$outside" "$w/other"
printf 'hello\nworld\n' >"$d/a.txt"
printf 'one\ntwo\nthree\nfour\nfive\n' >"$d/lines.txt"
printf '  def f():\n      return 1\n' >"$d/sub/b.py"
printf 'x = 1\nx = 1\n' >"$d/twice.txt"
printf 'a\r\nb\r\n' >"$d/crlf.txt"
printf 'fine\n' >"$d/sub/deep/c.md"
printf 'h\n' >"$d/.hid/h.txt"
printf '\x89PNG\r\n' >"$d/img.png"
printf 'secret\n' >"$outside/s.txt"
printf 'other\n' >"$w/other/o.txt"
ln -s "$outside" "$d/escape"
ln -s "$outside/s.txt" "$d/filelink"
head -c 5000 /dev/zero | tr '\0' a >"$d/big.txt"

REQ=$w/req
RESP=$w/resp
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# A python helper reads the answers: by id, a field of each.
cat >"$w/get.py" <<'EOF'
import json, sys
want, expr = sys.argv[2], sys.argv[3]
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        print("<not JSON: %s>" % line.strip()); sys.exit(0)
    if str(m.get("id")) == want:
        r = m.get("result", {}); e = m.get("error", {})
        v = eval(expr)
        print(v if isinstance(v, str) else json.dumps(v), end="")
        sys.exit(0)
print("<no answer %s>" % want, end="")
EOF
# Each answer's text and isError into files at once (one python run per
# session); get evaluates any other expression.
cat >"$w/split.py" <<'EOF'
import json, os, sys
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "id" not in m or "method" in m:
        continue
    r = m.get("result", {}); e = m.get("error", {})
    t = r["content"][0].get("text", "") if r.get("content") else "<error %s>" % e
    with open(os.path.join(sys.argv[2], "%s.t" % m["id"]), "w") as f:
        f.write(t)
    with open(os.path.join(sys.argv[2], "%s.e" % m["id"]), "w") as f:
        f.write(str(bool(r.get("isError"))))
EOF
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
get() { "$PY" "$w/get.py" "$RESP" "$1" "$2"; }
split() { rm -rf "$w/ans" && mkdir -p "$w/ans" && "$PY" "$w/split.py" "$RESP" "$w/ans"; }
text() { cat "$w/ans/$1.t" 2>/dev/null || printf '<no answer %s>' "$1"; }
iserr() { cat "$w/ans/$1.e" 2>/dev/null || printf '<no answer %s>' "$1"; }

start() { printf '%s\n%s\n' "$INIT" "$INITED" >"$REQ"; }
line() { printf '%s\n' "$1" >>"$REQ"; }
# call ID TOOL ARGS-JSON
call() { line "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":$3}}"; }
serve() {
	"$WICKFS" mcp "$@" <"$REQ" >"$RESP" 2>"$w/err"
	RC=$?
	split
}

if ! command -v python3 >/dev/null && [ ! -x /usr/bin/python3 ]; then
	skip mcp "python3 is missing (scripts/deps.sh installs it)"
	exit 0
fi

# ---- initialize, tools/list ----
start
line '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}'
line '{"jsonrpc":"2.0","id":2,"method":"ping"}'
serve "$d"
check mcp.init.version '"2025-06-18"' "$(get 0 'r["protocolVersion"]' | sed 's/.*/"&"/')"
check mcp.init.caps '{"tools": {"listChanged": false}, "logging": {}, "resources": {"subscribe": true}}' "$(get 0 'r["capabilities"]')"
check mcp.init.one_answer_each 3 "$(wc -l <"$RESP")"
names='read_text_file read_file read_media_file read_multiple_files write_file edit_file create_directory list_directory list_directory_with_sizes directory_tree move_file search_files get_file_info list_allowed_directories grep read_lines apply_patch run_command stat diff delete_file copy_file snapshot snapshots snapshot_diff restore pack unpack start_process list_processes process_output send_input signal_process wait_process kill_process'
check mcp.list.names "$names" "$(get 1 '" ".join(t["name"] for t in r["tools"])')"
check mcp.list.schemas "ok" "$(get 1 '"ok" if all(t["inputSchema"]["type"] == "object" and t["outputSchema"]["type"] == "object" and t["annotations"]["openWorldHint"] is False and "description" in t for t in r["tools"]) else "bad"')"
check mcp.list.read_only_hints "read_text_file read_file read_media_file read_multiple_files list_directory list_directory_with_sizes directory_tree search_files get_file_info list_allowed_directories grep read_lines stat diff snapshots snapshot_diff list_processes process_output wait_process" \
	"$(get 1 '" ".join(t["name"] for t in r["tools"] if t["annotations"]["readOnlyHint"])')"
check mcp.list.destructive "write_file edit_file move_file apply_patch run_command delete_file restore pack unpack start_process signal_process kill_process" \
	"$(get 1 '" ".join(t["name"] for t in r["tools"] if t["annotations"].get("destructiveHint"))')"
check mcp.list.required '["path", "edits"]' "$(get 1 '[t for t in r["tools"] if t["name"] == "edit_file"][0]["inputSchema"]["required"]')"
check mcp.ping '{}' "$(get 2 'r')"
check_match mcp.log_on_stderr '*serving the directories given*' "$(cat "$w/err")"

for v in 2025-11-25:2025-11-25 1999-01-01:2025-11-25; do
	printf '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{}}}\n' "${v%%:*}" >"$REQ"
	serve "$d"
	check "mcp.init.version.${v%%:*}" "${v##*:}" "$(get 0 'r["protocolVersion"]')"
done

# ---- each tool ----
start
call 10 read_text_file '{"path":"a.txt"}'
call 11 read_text_file '{"path":"lines.txt","head":2}'
call 12 read_text_file '{"path":"lines.txt","tail":2}'
call 13 read_file "{\"path\":\"$d/a.txt\"}"
call 14 read_multiple_files '{"paths":["a.txt","nope.txt"]}'
call 15 list_directory '{"path":"sub"}'
call 16 list_directory_with_sizes '{"path":"sub","sortBy":"name"}'
call 17 directory_tree '{"path":"sub"}'
call 18 search_files '{"path":".","pattern":"**/*.md"}'
call 19 search_files '{"path":".","pattern":"**/*.txt","excludePatterns":[".hid","sub"]}'
call 20 get_file_info '{"path":"lines.txt"}'
call 21 list_allowed_directories '{}'
call 22 edit_file '{"path":"sub/b.py","edits":[{"oldText":"def f():\n  return 1","newText":"def g():\n    return 2"}],"dryRun":true}'
call 23 read_text_file '{"path":"sub/b.py"}'
call 24 edit_file '{"path":"sub/b.py","edits":[{"oldText":"return 1","newText":"return 3"}]}'
call 25 read_text_file '{"path":"sub/b.py"}'
call 26 edit_file '{"path":"twice.txt","edits":[{"oldText":"x = 1","newText":"y"}]}'
call 27 edit_file '{"path":"a.txt","edits":[{"oldText":"absent","newText":"y"}]}'
call 39 edit_file '{"path":"crlf.txt","edits":[{"oldText":"b","newText":"c"}]}'
call 28 write_file '{"path":"new/n.txt","content":"made\n"}'
call 29 create_directory '{"path":"m/n/o"}'
call 30 move_file '{"source":"new/n.txt","destination":"m/n.txt"}'
call 31 move_file '{"source":"a.txt","destination":"lines.txt"}'
call 32 read_media_file '{"path":"img.png"}'
call 33 grep '{"pattern":"wor|fiv","path":"."}'
call 34 read_lines '{"path":"lines.txt","offset":2,"limit":2}'
call 35 run_command '{"command":"echo out; echo err >&2; exit 3"}'
call 36 apply_patch '{"patch":"*** Begin Patch\n*** Update File: lines.txt\n@@\n one\n-two\n+TWO\n*** End Patch"}'
call 37 read_text_file '{"path":"big.txt"}'
call 38 directory_tree '{"path":".","excludePatterns":["*.txt","*.png","escape","filelink",".hid","m","new","deep"]}'
serve --max-result 1000 "$d"
check mcp.read_text_file.x "hello"$'\n'"world"$'\n'x "$(text 10; printf x)"
check mcp.read_text_file.head "one"$'\n'"two" "$(text 11)"
check mcp.read_text_file.tail "five"$'\n'x "$(text 12; printf x)"
check mcp.read_file "hello"$'\n'"world"$'\n'x "$(text 13; printf x)"
check mcp.read_multiple_files "a.txt:"$'\n'"hello"$'\n'"world"$'\n\n\n'"---"$'\n'"nope.txt: Error - read $d/nope.txt: no such file or directory" "$(text 14)"
check mcp.list_directory "[FILE] b.py"$'\n'"[DIR] deep" "$(text 15)"
check mcp.list_directory_with_sizes "[FILE] b.py                                 26 B"$'\n'"[DIR] deep                           "$'\n\n'"Total: 1 files, 1 directories"$'\n'"Combined size: 26 B" "$(text 16)"
check mcp.directory_tree '[
  {
    "name": "b.py",
    "type": "file"
  },
  {
    "name": "deep",
    "type": "directory",
    "children": [
      {
        "name": "c.md",
        "type": "file"
      }
    ]
  }
]' "$(text 17)"
check mcp.search_files "$d/sub/deep/c.md" "$(text 18)"
check mcp.search_files.exclude "$d/a.txt"$'\n'"$d/big.txt"$'\n'"$d/crlf.txt"$'\n'"$d/lines.txt"$'\n'"$d/twice.txt" "$(text 19)"
check_match mcp.get_file_info "size: 24"$'\n'"created: * GMT+0000 (Coordinated Universal Time)"$'\n'"modified: *"$'\n'"isDirectory: false"$'\n'"isFile: true"$'\n'"permissions: 644" "$(text 20)"
check mcp.list_allowed_directories "Allowed directories:"$'\n'"$d" "$(text 21)"
diffhead="Index: $d/sub/b.py"$'\n'"==================================================================="$'\n'"--- $d/sub/b.py	original"$'\n'"+++ $d/sub/b.py	modified"
check mcp.edit_file.dry_run '```diff'$'\n'"$diffhead"$'\n''@@ -1,2 +1,2 @@
-  def f():
-      return 1
+  def g():
+    return 2
```' "$(text 22)"
check mcp.edit_file.dry_run_kept "  def f():"$'\n'"      return 1"$'\n'x "$(text 23; printf x)"
check_match mcp.edit_file.diff '```diff*-      return 1*+      return 3*```' "$(text 24)"
check mcp.edit_file.done "  def f():"$'\n'"      return 3"$'\n'x "$(text 25; printf x)"
check mcp.edit_file.twice "True edit_file $d/twice.txt: edit 1: oldText occurs 2 times; add surrounding lines to make it unique (nothing was changed)" "$(iserr 26) $(text 26)"
check mcp.edit_file.twice_kept "x = 1"$'\n'"x = 1" "$(cat "$d/twice.txt")"
check mcp.edit_file.absent "True Could not find exact match for edit:"$'\n'"absent" "$(iserr 27) $(text 27)"
check mcp.edit_file.crlf_kept "a\r c\r " "$(tr '\n' ' ' <"$d/crlf.txt" | sed 's/\r/\\r/g')"
check_match mcp.edit_file.crlf_diff '*'$'\n''-b'$'\n''+c'$'\n''*' "$(text 39)"
check mcp.write_file "Successfully wrote to new/n.txt" "$(text 28)"
check mcp.create_directory "Successfully created directory m/n/o" "$(text 29)"
check mcp.move_file "Successfully moved new/n.txt to m/n.txt made" "$(text 30) $(cat "$d/m/n.txt")"
check mcp.move_file.exists "True Destination already exists: $d/lines.txt" "$(iserr 31) $(text 31)"
check mcp.read_media_file '[{"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}]' "$(get 32 'r["content"]')"
check mcp.read_media_file.structured '[{"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}]' "$(get 32 'r["structuredContent"]["content"]')"
check mcp.grep "$d/a.txt:2:world"$'\n'"$d/lines.txt:5:five" "$(text 33)"
check mcp.grep.structured '[{"file": "'"$d"'/a.txt", "line": 2, "text": "world"}, {"file": "'"$d"'/lines.txt", "line": 5, "text": "five"}]' "$(get 33 'r["structuredContent"]["matches"]')"
check_match mcp.read_lines "     2	two"$'\n'"     3	three"$'\n'*"call read_lines with offset 4 for more]" "$(text 34)"
check mcp.run_command "out"$'\n\n'"[stderr]"$'\n'"err"$'\n\n'"[exit code 3] 3" "$(text 35) $(get 35 'r["structuredContent"]["exitCode"]')"
check mcp.apply_patch "Applied:"$'\n'"update lines.txt TWO" "$(text 36) $(sed -n 2p "$d/lines.txt")"
check_match mcp.cap "aaaa*[... result truncated: 1000 of 5000 bytes shown; *" "$(text 37)"
check mcp.directory_tree.exclude '[
  {
    "name": "sub",
    "type": "directory",
    "children": [
      {
        "name": "b.py",
        "type": "file"
      }
    ]
  }
]' "$(text 38)"
rm -rf "$d/m" "$d/new"

# ---- ours beyond the reference's: stat, diff, copy, delete, snapshots ----
start
call 140 stat '{"path":"a.txt"}'
call 141 diff '{"path":"a.txt","content":"hello\nthere\n"}'
call 142 diff '{"path":"a.txt","otherPath":"a.txt"}'
call 143 copy_file '{"source":"a.txt","destination":"c.txt"}'
call 144 copy_file '{"source":"a.txt","destination":"c.txt"}'
call 145 snapshot '{"tag":"t1"}'
call 146 delete_file '{"path":"c.txt"}'
call 147 snapshot_diff '{"snapshot":"t1"}'
call 148 restore '{"snapshot":"t1"}'
call 149 snapshots '{}'
call 150 diff '{"path":"a.txt"}'
serve "$d"
check mcp.stat "file 12" "$(get 140 'r["structuredContent"]["type"] + " " + str(r["structuredContent"]["size"])')"
check mcp.diff "--- a.txt"$'\n'"+++ content"$'\n'"@@ -1,2 +1,2 @@"$'\n'" hello"$'\n'"-world"$'\n'"+there" "$(text 141)"
check mcp.diff.none "No differences" "$(text 142)"
check mcp.copy_file "Successfully copied a.txt to c.txt (1 entry)" "$(text 143)"
check_match mcp.copy_file.exists "True cp $d/c.txt: *exists" "$(iserr 144) $(text 144)"
check mcp.snapshot t1 "$(get 145 'r["structuredContent"]["tag"]')"
check mcp.delete_file "Successfully deleted c.txt (1 entry)" "$(text 146)"
check mcp.snapshot_diff '["c.txt"]' "$(get 147 'r["structuredContent"]["removed"]')"
check mcp.restore '["c.txt"] hello' "$(get 148 'r["structuredContent"]["recreated"]') $(head -1 "$d/c.txt")"
check mcp.snapshots 1 "$(get 149 'len(r["structuredContent"]["snapshots"])')"
check_match mcp.diff.needs "True *\"otherPath\" or content is needed*" "$(iserr 150) $(text 150)"
rm -rf "$d/c.txt" "$d/.wickfs"

# ---- pack and unpack: a tree to an archive file and back ----
mkdir -p "$d/pk/sub" && printf 'one\n' >"$d/pk/sub/1.txt" && printf 'two\n' >"$d/pk/2.log"
start
call 160 pack '{"path":"pk","output":"pk.tgz","exclude":["*.log"]}'
call 161 unpack '{"archive":"pk.tgz","destination":"out"}'
call 162 pack "{\"path\":\"pk\",\"output\":\"$outside/x.tgz\"}"
call 163 unpack '{"archive":"a.txt","destination":"out2"}'
call 164 pack '{"path":"pk","output":"pk2.tgz","level":10}'
serve "$d"
check mcp.pack "1 1" "$(get 160 'str(r["structuredContent"]["files"]) + " " + str(r["structuredContent"]["dirs"])')"
check mcp.pack.gzip "1f8b" "$(od -An -tx1 -N2 "$d/pk.tgz" | tr -d ' ')"
check mcp.unpack "one|" "$(cat "$d/out/sub/1.txt")|$(cat "$d/out/2.log" 2>/dev/null)"
check mcp.unpack.count 1 "$(get 161 'r["structuredContent"]["files"]')"
check_match mcp.pack.outside "True *$outside/x.tgz*" "$(iserr 162) $(text 162)"
check_true mcp.pack.outside_nothing "an archive was written outside" test ! -e "$outside/x.tgz"
check_match mcp.unpack.not_archive "True unpack*" "$(iserr 163) $(text 163)"
check mcp.pack.bad_level 'True Input validation error: Invalid arguments for tool pack: field "level" is a gzip level, 0 to 9' "$(iserr 164) $(text 164)"
rm -rf "$d/pk" "$d/pk.tgz" "$d/out" "$d/out2"

# ---- the ways out, through several tools ----
start
call 40 read_text_file '{"path":"../outside/s.txt"}'
call 41 read_text_file "{\"path\":\"$outside/s.txt\"}"
call 42 read_text_file '{"path":"escape/s.txt"}'
call 43 read_text_file '{"path":"filelink"}'
call 44 write_file '{"path":"escape/w.txt","content":"x"}'
call 45 write_file '{"path":"../outside/w.txt","content":"x"}'
call 46 list_directory '{"path":"escape"}'
call 47 create_directory '{"path":"escape/dir"}'
call 48 move_file '{"source":"a.txt","destination":"escape/a.txt"}'
call 49 edit_file '{"path":"filelink","edits":[{"oldText":"secret","newText":"x"}]}'
call 50 get_file_info '{"path":"escape"}'
call 51 search_files '{"path":".","pattern":"**/s.txt"}'
call 52 search_files '{"path":"escape","pattern":"*"}'
call 53 directory_tree '{"path":"/"}'
call 54 run_command "{\"command\":\"pwd\",\"cwd\":\"$outside\"}"
call 55 read_multiple_files '{"paths":["escape/s.txt","/etc/passwd"]}'
call 56 grep '{"pattern":"secret","path":"escape"}'
call 57 read_lines '{"path":"filelink"}'
call 59 delete_file '{"path":"escape/s.txt"}'
call 61 copy_file '{"source":"escape/s.txt","destination":"copied"}'
call 62 diff "{\"path\":\"a.txt\",\"otherPath\":\"$outside/s.txt\"}"
call 63 stat '{"path":"escape/s.txt"}'
call 58 read_text_file '{"path":"a.txt\u0000/../../outside/s.txt"}'
serve "$d"
for id in 40 41 42 43 44 45 46 47 48 49 50 52 53 54 56 57 58 59 61 62 63; do
	r="$(iserr $id) $(text $id)"
	case $r in
	"True "*outside*|"True Access denied"*|"True "*NUL*) pass "mcp.escape.$id" ;;
	*) fail "mcp.escape.$id" "not refused: $(show "$r")" ;;
	esac
done
check_match mcp.escape.42.names "True read $d/escape/s.txt: *symlink*" "$(iserr 42) $(text 42)"
check_match mcp.escape.41.names "True Access denied - path outside allowed directories: $outside/s.txt not in $d" "$(iserr 41) $(text 41)"
check mcp.escape.search_not_listed "No matches found" "$(text 51)"
check_match mcp.escape.multiple "escape/s.txt: Error - *outside*---*/etc/passwd: Error - Access denied*" "$(text 55)"
check mcp.escape.nothing_written "s.txt secret" "$(ls "$outside") $(cat "$outside/s.txt")"
check_true mcp.escape.a_kept "a.txt was moved" test -f "$d/a.txt"

# ---- every path a tool takes, by every way out ----
# Each tool that names a path, with each of its path arguments given one
# way out: up and out, an absolute path outside, a directory symlink, a
# file symlink, a climb through a subdirectory, /proc's view of the root,
# an absolute path that climbs out of the allowed one. Every call is
# refused, nothing outside changes, the secret is never in an answer.
# The tools that act on a name itself (move, delete, copy over) come
# last: on "filelink" they may move, delete, copy or replace the link
# itself (as rename, unlink and cp -P do, never its target: a copy is a
# link too), which changes what the later calls find there.
ways=("../outside/s.txt" "$outside/s.txt" "escape/s.txt" "filelink" "sub/../../outside/s.txt"
	"/proc/self/root$outside/s.txt" "$d/../outside/s.txt")
# tool|argument|the other arguments (JSON members, may be empty)
tools=('read_text_file|path|' 'read_file|path|' 'read_media_file|path|'
	'write_file|path|,"content":"x"' 'edit_file|path|,"edits":[{"oldText":"secret","newText":"x"}]'
	'create_directory|path|' 'list_directory|path|' 'list_directory_with_sizes|path|'
	'directory_tree|path|' 'search_files|path|,"pattern":"*"' 'get_file_info|path|'
	'grep|path|,"pattern":"secret"' 'read_lines|path|' 'diff|path|,"otherPath":"a.txt"'
	'diff|otherPath|,"path":"a.txt"'
	'copy_file|source|,"destination":"copied"' 'move_file|source|,"destination":"moved"'
	'move_file|destination|,"source":"lines.txt"' 'copy_file|destination|,"source":"a.txt"'
	'delete_file|path|')
start
id=400
declare -A what
for t in "${tools[@]}"; do
	IFS='|' read -r tool arg more <<<"$t"
	for way in "${ways[@]}"; do
		call $id "$tool" "{\"$arg\":$(jstr "$way")$more}"
		what[$id]="$tool $arg=$way"
		id=$((id + 1))
	done
done
serve "$d"
refused=0 linkops=0 leaked=""
for ((i = 400; i < id; i++)); do
	r="$(iserr $i) $(text $i)"
	case $r,${what[$i]} in
	"True "*) refused=$((refused + 1)) ;;
	*,"move_file "*=filelink | *,"copy_file "*=filelink | *,"delete_file path=filelink")
		linkops=$((linkops + 1)) ;;
	*) leaked+="${what[$i]} -> $(show "${r:0:80}"); " ;;
	esac
	case $(text $i) in
	*secret*) leaked+="${what[$i]} told the secret; " ;;
	esac
done
check mcp.escape_matrix.all_refused "$((id - 400 - linkops)) refused" "$refused refused${leaked:+: $leaked}"
check mcp.escape_matrix.outside_unchanged "s.txt secret" "$(ls "$outside") $(cat "$outside/s.txt")"
rm -rf "$d/moved" "$d/copied" "$d/filelink"
[ -f "$d/lines.txt" ] || printf 'one\ntwo\nthree\nfour\nfive\n' >"$d/lines.txt"
ln -s "$outside/s.txt" "$d/filelink"

# ---- resources: files by file:// URI ----
start
line '{"jsonrpc":"2.0","id":120,"method":"resources/templates/list"}'
line '{"jsonrpc":"2.0","id":121,"method":"resources/list"}'
line "{\"jsonrpc\":\"2.0\",\"id\":122,\"method\":\"resources/read\",\"params\":{\"uri\":\"file://$d/a.txt\"}}"
line "{\"jsonrpc\":\"2.0\",\"id\":123,\"method\":\"resources/read\",\"params\":{\"uri\":\"file://$d/img.png\"}}"
line "{\"jsonrpc\":\"2.0\",\"id\":124,\"method\":\"resources/read\",\"params\":{\"uri\":\"file://$d/escape/s.txt\"}}"
line '{"jsonrpc":"2.0","id":125,"method":"resources/read","params":{"uri":"http://example.com/"}}'
line "{\"jsonrpc\":\"2.0\",\"id\":126,\"method\":\"resources/read\",\"params\":{\"uri\":\"file://${d// /%20}/%61.txt\"}}"
serve "$d"
check mcp.resources.caps '{"subscribe": true}' "$(get 0 'r["capabilities"]["resources"]')"
check mcp.resources.template 'file:///{+path}' "$(get 120 'r["resourceTemplates"][0]["uriTemplate"]')"
check mcp.resources.list '[]' "$(get 121 'r["resources"]')"
check mcp.resources.text "text/plain hello"$'\n'"world"$'\n'x "$(get 122 'r["contents"][0]["mimeType"] + " " + r["contents"][0]["text"]'; printf x)"
check mcp.resources.blob "image/png iVBORw0K" "$(get 123 'r["contents"][0]["mimeType"] + " " + r["contents"][0]["blob"]')"
check_match mcp.resources.escape "-32002 Resource not found: read $d/escape/s.txt: *symlink*" "$(get 124 'str(e["code"]) + " " + e["message"]')"
check_match mcp.resources.scheme "-32602 *file:// URI*" "$(get 125 'str(e["code"]) + " " + e["message"]')"
check mcp.resources.percent "hello"$'\n'"world"$'\n'x "$(get 126 'r["contents"][0]["text"]'; printf x)"

# ---- several allowed directories ----
start
call 60 read_text_file "{\"path\":\"$w/other/o.txt\"}"
call 61 read_text_file '{"path":"a.txt"}'
call 62 list_allowed_directories '{}'
call 63 move_file "{\"source\":\"a.txt\",\"destination\":\"$w/other/a.txt\"}"
serve "$d" "$w/other"
check mcp.dirs.second "other"$'\n'x "$(text 60; printf x)"
check mcp.dirs.relative_first "hello"$'\n'"world"$'\n'x "$(text 61; printf x)"
check mcp.dirs.list "Allowed directories:"$'\n'"$d"$'\n'"$w/other" "$(text 62)"
check_match mcp.dirs.move_across "True *different allowed directories*" "$(iserr 63) $(text 63)"
ln -s d "$w/dlink"
start
call 64 list_allowed_directories '{}'
call 65 read_text_file "{\"path\":\"$w/dlink/a.txt\"}"
call 66 search_files "{\"path\":\"$w/dlink\",\"pattern\":\"a.*\"}"
call 67 read_text_file "{\"path\":\"$w/dlink/../outside/s.txt\"}"
serve "$w/dlink"
check mcp.dirs.link_listed "Allowed directories:"$'\n'"$w/dlink"$'\n'"$d" "$(text 64)"
check mcp.dirs.link_given "hello"$'\n'"world"$'\n'x "$(text 65; printf x)"
check mcp.dirs.link_search "$d/a.txt" "$(text 66)"
check mcp.dirs.link_dotdot True "$(iserr 67)"

# ---- roots from the client replace the arguments ----
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}}}}' \
	'{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}' "$INITED" \
	"{\"jsonrpc\":\"2.0\",\"id\":\"wickfs-roots-1\",\"result\":{\"roots\":[{\"uri\":\"file://$w/other\",\"name\":\"o\"},{\"uri\":\"file:///nonexistent-dir\"}]}}" >"$REQ"
call 70 list_allowed_directories '{}'
call 71 read_text_file '{"path":"o.txt"}'
call 72 read_text_file "{\"path\":\"$d/a.txt\"}"
serve "$d"
check mcp.roots.asked '"roots/list"' "$(grep -o '"method":"roots/list"' "$RESP" | head -1 | sed 's/"method"://')"
check mcp.roots.replaced "Allowed directories:"$'\n'"$w/other" "$(text 70)"
check mcp.roots.relative "other"$'\n'x "$(text 71; printf x)"
check mcp.roots.old_refused True "$(iserr 72)"
check_match mcp.roots.logged '*"method":"notifications/message","params":{"level":"info","logger":"wickfs","data":"allowed directories from the client'"'"'s roots: 1"}}*' "$(cat "$RESP")"
check_match mcp.roots.skipped_said '*/nonexistent-dir*' "$(cat "$w/err")"
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}' >"$REQ"
serve
check_match mcp.roots.none "*no allowed directories*" "$(get 0 'e["message"]')"

# ---- background processes (through the server's own daemon) ----
start
call 140 start_process '{"command":"echo hello; read x; echo got $x; echo e >&2; exit 3","tag":"p1"}'
call 141 send_input '{"tag":"p1","input":"abc\n","eof":true}'
call 142 wait_process '{"tag":"p1","timeout":20}'
call 143 process_output '{"tag":"p1"}'
call 144 process_output '{"handle":1,"offset":6}'
call 145 list_processes '{}'
call 146 start_process '{"command":"sleep 300","tag":"long"}'
call 147 kill_process '{"tag":"long"}'
call 148 wait_process '{"tag":"long","timeout":20}'
call 149 signal_process '{"handle":99,"signal":"TERM"}'
call 150 kill_process '{}'
call 151 start_process "{\"command\":\"pwd\",\"cwd\":\"$outside\"}"
call 152 start_process '{"command":"sleep 300","tag":"left"}'
call 153 start_process '{"command":"sleep 1; echo detached","detach":true,"log":"det.log"}'
call 154 start_process '{"command":"true","detach":true,"log":"../escape.log"}'
call 155 wait_process '{"tag":"p1","timeout":-1}'
# a log through a symlink that leads out: checked by name it is inside,
# the daemon opens it beneath the allowed directory and refuses
ln -sfn "$outside" "$d/lnk"
call 156 start_process '{"command":"echo out","detach":true,"log":"lnk/esc.log"}'
serve "$d"
check_match mcp.proc.log_symlink_out "True *log*lnk/esc.log*symlink leads outside*" "$(iserr 156) $(text 156)"
check_true mcp.proc.log_symlink_nothing "a file was made outside: $outside/esc.log" test ! -e "$outside/esc.log"
check mcp.proc.start "1 true p1" "$(get 140 'r["structuredContent"]["handle"]') $(get 140 'r["structuredContent"]["running"]') $(get 140 'r["structuredContent"]["tag"]')"
check mcp.proc.input "4" "$(get 141 'r["structuredContent"]["written"]')"
check mcp.proc.wait "false 3" "$(get 142 'r["structuredContent"]["running"]') $(get 142 'r["structuredContent"]["exit_code"]')"
check mcp.proc.output "hello
got abc
|e" "$(get 143 'r["structuredContent"]["stdout"] + "|" + r["structuredContent"]["stderr"]')"
check mcp.proc.output_offset "got abc
 6" "$(get 144 'r["structuredContent"]["stdout"] + " " + str(r["structuredContent"]["stdout_offset"])')"
check mcp.proc.list "p1" "$(get 145 '" ".join(p["tag"] for p in r["structuredContent"]["processes"])')"
check mcp.proc.kill "false true" "$(get 148 'r["structuredContent"]["running"]') $(get 148 'r["structuredContent"]["signal"] != 0')"
check mcp.proc.unknown "True signal_process: no such process (its \"handle\" or \"tag\")" "$(iserr 149) $(text 149)"
check_match mcp.proc.no_handle "True Input validation error:*field \"handle\" is required*" "$(iserr 150) $(text 150)"
check_match mcp.proc.cwd_outside "True *outside*" "$(iserr 151) $(text 151)"
check_match mcp.proc.log_outside "True *" "$(iserr 154) $(text 154)"
check_match mcp.proc.bad_timeout "True *\"timeout\" must be 0 to 3600 seconds*" "$(iserr 155) $(text 155)"
# the server's end stops its daemon, which ends its processes but the
# detached one; its directory is removed
left=$(get 152 'r["structuredContent"]["pid"]')
i=0
while [ $i -lt 50 ] && kill -0 "$left" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
check_true mcp.proc.end_kills "process $left outlived the server" sh -c "! kill -0 $left 2>/dev/null"
i=0
while [ $i -lt 50 ] && ! grep -q detached "$d/det.log" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
check mcp.proc.detached "detached" "$(cat "$d/det.log" 2>/dev/null)"
pdir=$(sed -n 's|.*listening on unix \(/tmp/wickfs-mcp\.[^/]*\)/sock.*|\1|p' "$w/err")
check_true mcp.proc.dir_removed "the daemon's directory '$pdir' is left" sh -c "[ -n '$pdir' ] && [ ! -e '$pdir' ]"
rm -f "$d/det.log"

# ---- resource subscriptions: notifications/resources/updated ----
mkdir -p "$d/watched"
printf 'one\n' >"$d/wf.txt"
rm -f "$w/sub.in"
mkfifo "$w/sub.in"
"$WICKFS" mcp "$d" <"$w/sub.in" >"$w/sub.out" 2>"$w/sub.err" &
SPID=$!
exec 8>"$w/sub.in"
# until N lines of the answer file match PATTERN (bounded: 20 s)
await() {
	local i=0
	while [ $i -lt 400 ] && [ "$(grep -c -- "$2" "$w/sub.out")" -lt "$1" ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
printf '%s\n%s\n' "$INIT" "$INITED" >&8
printf '{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file://%s/wf.txt"}}\n' "$d" >&8
printf '{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"file://%s/watched"}}\n' "$d" >&8
printf '{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"file://%s/nope"}}\n' "$d" >&8
printf '{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"file://%s/s.txt"}}\n' "$outside" >&8
printf '{"jsonrpc":"2.0","id":9,"method":"resources/subscribe","params":{"uri":"file://%s/lnk"}}\n' "$d" >&8
await 1 '"id":9'
check_match mcp.sub.symlink_out '*"id":9,"error":{"code":-32002,"message":"Resource not found: *symlink leads outside*' "$(grep '"id":9' "$w/sub.out")"
check_match mcp.sub.caps '*"resources":{"subscribe":true}*' "$(grep '"id":0' "$w/sub.out")"
check mcp.sub.answers '{"jsonrpc":"2.0","id":2,"result":{}} {"jsonrpc":"2.0","id":3,"result":{}}' "$(grep -E '"id":(2|3),' "$w/sub.out" | tr '\n' ' ' | sed 's/ $//')"
check_match mcp.sub.missing '*"id":4,"error":{"code":-32002,"message":"Resource not found: *nope*No such file*' "$(grep '"id":4' "$w/sub.out")"
check_match mcp.sub.outside '*"id":5,"error":{"code":-32002,"message":"Resource not found: *outside allowed directories*' "$(grep '"id":5' "$w/sub.out")"
count() { grep -c "\"notifications/resources/updated\",\"params\":{\"uri\":\"file://$d/$1\"}" "$w/sub.out"; }
printf 'two\n' >>"$d/wf.txt"
await 1 "resources/updated.*wf.txt"
f1=$(count wf.txt)
check_true mcp.sub.file_updated "no notification for wf.txt: $(cat "$w/sub.out")" test "$f1" -ge 1
printf 'x\n' >"$d/watched/new.txt"
await 1 "resources/updated.*watched"
t1=$(count watched)
check_true mcp.sub.tree_updated "no notification for watched/new.txt" test "$t1" -ge 1
printf '{"jsonrpc":"2.0","id":6,"method":"resources/unsubscribe","params":{"uri":"file://%s/wf.txt"}}\n' "$d" >&8
await 1 '"id":6'
printf 'three\n' >>"$d/wf.txt"
printf 'y\n' >"$d/watched/new2.txt"
await $((t1 + 1)) "resources/updated.*watched"
check_true mcp.sub.tree_again "no notification for watched/new2.txt" test "$(count watched)" -gt "$t1"
check mcp.sub.unsubscribed "$f1" "$(count wf.txt)"
exec 8>&-
wait "$SPID"
check mcp.sub.exit 0 "$?"
rm -rf "$d/watched" "$d/wf.txt" "$d/lnk"

# ---- read-only ----
start
line '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
call 80 write_file '{"path":"ro.txt","content":"x"}'
call 81 read_text_file '{"path":"a.txt"}'
call 82 run_command '{"command":"touch ro2"}'
WICKFS_READONLY=1 serve "$d"
check mcp.readonly.list "read_text_file read_file read_media_file read_multiple_files list_directory list_directory_with_sizes directory_tree search_files get_file_info list_allowed_directories grep read_lines stat diff snapshots snapshot_diff" \
	"$(get 1 '" ".join(t["name"] for t in r["tools"])')"
check mcp.readonly.write "True write_file: refused, WICKFS_READONLY is set" "$(iserr 80) $(text 80)"
check mcp.readonly.read "False" "$(iserr 81)"
check_match mcp.readonly.run "True run_command: refused*" "$(iserr 82) $(text 82)"
check_true mcp.readonly.nothing "a file was made" test ! -e "$d/ro.txt" -a ! -e "$d/ro2"
WICKFS_READONLY=1 WICKFS_READONLY_EXEC=1 serve "$d"
check_match mcp.readonly.exec_allowed "* run_command *" "$(get 1 '" ".join(t["name"] for t in r["tools"])')"

# the front end's settings reach the tools: the file size limit
start
call 84 read_text_file '{"path":"a.txt"}'
WICKFS_MAX_FILE=2 serve "$d"
check_match mcp.settings.max_file "True read *a.txt: file is * bytes, over the 2-byte limit (WICKFS_MAX_FILE)" "$(iserr 84) $(text 84)"

start
line '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
call 83 run_command '{"command":"touch ro3"}'
serve --no-commands "$d"
check mcp.no_commands.list "" "$(get 1 '" ".join(t["name"] for t in r["tools"] if t["name"] == "run_command")')"
check mcp.no_commands.call "True run_command: refused, the server runs with --no-commands" "$(iserr 83) $(text 83)"
check_true mcp.no_commands.nothing "the command ran" test ! -e "$d/ro3"

# ---- --mount VPATH=DIR[:ro]: paths under VPATH are DIR's ----
mkdir -p "$w/mdata" "$w/mro"
printf 'data\n' >"$w/mdata/x.txt"
printf 'ro\n' >"$w/mro/r.txt"
start
call 170 read_text_file '{"path":"/data/x.txt"}'
call 171 write_file '{"path":"/data/new.txt","content":"n"}'
call 172 read_text_file '{"path":"/docs/r.txt"}'
call 173 write_file '{"path":"/docs/new.txt","content":"n"}'
call 174 delete_file '{"path":"/docs/r.txt"}'
call 175 write_file "{\"path\":\"$w/mro/new.txt\",\"content\":\"n\"}"
call 176 read_text_file '{"path":"/data/../mro/r.txt"}'
call 177 read_text_file '{"path":"a.txt"}'
serve --mount /data="$w/mdata" --mount /docs="$w/mro:ro" "$d"
check mcp.mount.read "data" "$(text 170 | head -1)"
check mcp.mount.write "n" "$(cat "$w/mdata/new.txt" 2>/dev/null)"
check mcp.mount.ro_read "ro" "$(text 172 | head -1)"
check mcp.mount.ro_write "True write_file /docs/new.txt: refused, /docs is a read-only mount (--mount)" "$(iserr 173) $(text 173)"
check mcp.mount.ro_delete "True delete_file /docs/r.txt: refused, /docs is a read-only mount (--mount)" "$(iserr 174) $(text 174)"
check_match mcp.mount.ro_by_real_path "True write_file $w/mro/new.txt: refused, /docs is a read-only mount*" "$(iserr 175) $(text 175)"
check_true mcp.mount.ro_nothing_written "a file appeared in the read-only mount" test ! -e "$w/mro/new.txt" -a -e "$w/mro/r.txt"
check_match mcp.mount.no_way_out "True Access denied*" "$(iserr 176) $(text 176)"
check mcp.mount.dirs_stay "hello" "$(text 177 | head -1)"
for m in x /=/tmp data="$w/mdata" /data/="$w/mdata" /a//b="$w/mdata" /data="$w/nonexistent"; do
	"$WICKFS" mcp --mount "$m" "$d" </dev/null >/dev/null 2>"$w/merr"
	echo "$? $(cat "$w/merr")"
done >"$w/mounts.out"
check mcp.mount.bad "2 wickfs mcp: --mount x: not VPATH=DIR or VPATH=DIR:ro
2 wickfs mcp: --mount /=/tmp: VPATH must be an absolute path other than /
2 wickfs mcp: --mount data=$w/mdata: VPATH must be an absolute path other than /
2 wickfs mcp: --mount /data/=$w/mdata: VPATH must be normalised (no //, . or .., no trailing /)
2 wickfs mcp: --mount /a//b=$w/mdata: VPATH must be normalised (no //, . or .., no trailing /)
2 wickfs mcp: --mount /data=$w/nonexistent: DIR is not a directory" "$(cat "$w/mounts.out")"
"$WICKFS" mcp --mount /data="$w/mdata" --mount /data/sub="$w/mro" "$d" </dev/null >/dev/null 2>"$w/merr"
check mcp.mount.overlap "2 wickfs mcp: --mount /data/sub=$w/mro: it overlaps an earlier mount" "$? $(cat "$w/merr")"
"$WICKFS" mcp --mount /da="$w/mdata" --mount /data="$w/mro" "$d" </dev/null >/dev/null 2>"$w/merr"
check mcp.mount.prefix_not_overlap "0 " "$? $(grep -v serving "$w/merr")"

# ---- bad input: an error naming what is wrong, and the server goes on ----
start
line 'not json'
line '[{"jsonrpc":"2.0","id":90,"method":"ping"}]'
line '{"jsonrpc":"2.0","id":91}'
line '{"jsonrpc":"1.0","id":92,"method":"ping"}'
line '{"jsonrpc":"2.0","id":93,"method":"no/such"}'
line '{"jsonrpc":"2.0","id":94,"method":"tools/call","params":{"arguments":{}}}'
line '{"jsonrpc":"2.0","id":95,"method":"tools/call","params":{"name":"nope"}}'
call 96 read_text_file '{"path":7}'
call 97 read_text_file '{"path":"a.txt","head":"x"}'
call 98 edit_file '{"path":"a.txt"}'
line '{"jsonrpc":"2.0","id":99,"method":"logging/setLevel","params":{"level":"loud"}}'
line '{"jsonrpc":"2.0","id":100,"method":"tools/call","params":"x"}'
line '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":96}}'
line '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'
line '{"jsonrpc":"2.0","id":101,"method":"logging/setLevel","params":{"level":"info"}}'
line '{"jsonrpc":"2.0","id":102,"method":"ping"}'
serve "$d"
check mcp.bad.json_rc 0 "$RC"
check_match mcp.bad.parse '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: *' "$(sed -n 2p "$RESP")"
check_match mcp.bad.batch '*"code":-32600,"message":"Invalid Request: batches are not supported"*' "$(sed -n 3p "$RESP")"
check mcp.bad.no_method '-32600 Invalid Request: method is missing' "$(get 91 'str(e["code"]) + " " + e["message"]')"
check mcp.bad.jsonrpc '-32600 Invalid Request: jsonrpc must be "2.0"' "$(get 92 'str(e["code"]) + " " + e["message"]')"
check mcp.bad.method '-32601 Method not found: no/such' "$(get 93 'str(e["code"]) + " " + e["message"]')"
check mcp.bad.no_name '-32602 Invalid params: name must be a string' "$(get 94 'str(e["code"]) + " " + e["message"]')"
check mcp.bad.tool '-32602 Unknown tool: nope' "$(get 95 'str(e["code"]) + " " + e["message"]')"
check mcp.bad.path_type 'True Input validation error: Invalid arguments for tool read_text_file: field "path" must be a string' "$(iserr 96) $(text 96)"
check mcp.bad.head_type 'True Input validation error: Invalid arguments for tool read_text_file: field "head" must be a number' "$(iserr 97) $(text 97)"
check_match mcp.bad.edits_missing 'True *field "edits" is required*' "$(iserr 98) $(text 98)"
check_match mcp.bad.level '-32602 *level must be one of*' "$(get 99 'str(e["code"]) + " " + e["message"]')"
check_match mcp.bad.params '-32602 *params must be an object' "$(get 100 'str(e["code"]) + " " + e["message"]')"
check_match mcp.bad.id_type '*"id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}*' "$(cat "$RESP")"
check mcp.bad.cancelled_unanswered 0 "$(grep -c '"requestId"' "$RESP")"
check mcp.bad.goes_on '{}' "$(get 102 'r')"
check mcp.bad.answers 16 "$(grep -c '"jsonrpc":"2.0"' "$RESP")"

# a cancelled request stops its work and gets no answer; what came
# meanwhile is handled after it, in order
# (the cancel comes a second later, while the command runs, or at worst
# before it starts: either way it must not run to its end)
start
call 110 run_command '{"command":"sleep 60; echo late >done"}'
cp "$REQ" "$w/req1"
: >"$REQ"
line '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}'
line '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":110,"reason":"t"}}'
line '{"jsonrpc":"2.0","id":111,"method":"ping"}'
call 112 grep '{"pattern":"world"}'
{ cat "$w/req1"; sleep 1; cat "$REQ"; } | "$WICKFS" mcp "$d" >"$RESP" 2>"$w/err"
split
check mcp.cancel.no_answer "<no answer 110>" "$(get 110 'r')"
check mcp.cancel.goes_on '{}' "$(get 111 'r')"
check mcp.cancel.next_tool "False" "$(iserr 112)"
check mcp.cancel.order "0 111 112" "$(grep -o '"id":[0-9]*' "$RESP" | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
check_true mcp.cancel.killed "the cancelled command ran on" test ! -e "$d/done"

# a long tool with a progressToken: progress notifications, counting up
start
line '{"jsonrpc":"2.0","id":130,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 3"},"_meta":{"progressToken":"p1"}}}'
serve "$d"
check_match mcp.progress '*"method":"notifications/progress","params":{"progressToken":"p1","progress":1,"message":"run_command: running for 1 s"}}*' "$(cat "$RESP")"
check mcp.progress.answered False "$(iserr 130)"

# a client that stops reading mid-session: the server ends, with status 0
{
	printf '%s\n' "$INIT"
	sleep 1
	for i in 1 2 3 4 5 6 7 8 9 10; do
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"big.txt"}}}\n' "$i"
	done
} | { "$WICKFS" mcp "$d" 2>/dev/null; echo "rc=$?" >"$w/gone.rc"; } | head -c 10 >/dev/null
check mcp.client_gone "rc=0" "$(cat "$w/gone.rc")"

# a line past the size bound is refused, and the next one is read
{
	printf '%s\n' "$INIT"
	head -c $((65 << 20)) /dev/zero | tr '\0' ' '
	printf '\n{"jsonrpc":"2.0","id":5,"method":"ping"}\n'
} >"$REQ"
serve "$d"
check_match mcp.bad.huge_line '*"code":-32700,"message":"Parse error: a line over *' "$(cat "$RESP")"
check mcp.bad.huge_line_then '{}' "$(get 5 'r')"
rm -f "$REQ"
