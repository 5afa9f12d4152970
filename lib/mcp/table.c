/* table.c - the tools as tools/list shows them: names, schemas, hints.
 *
 * The reference's fourteen first, under its names and arguments (their
 * outputSchema is its {content: string}); then ours. A schema is written
 * here in short, "NAME:TYPE" words (s string, n number, b boolean, a
 * array of strings, "=" and the JSON of anything else; "!" after the type:
 * required), and spelt out as JSON when listed: a third of the bytes.
 */
#include <string.h>
#include "mcp_int.h"

#define READ_TEXT_DESC                                                                     \
	"Read a file as UTF-8 text (invalid bytes become U+FFFD). head: only its first N " \
	"lines; tail: only its last N. Only within the allowed directories."
#define SNAP_PATH "the directory (default: the first allowed one)"

const struct mcp_tool mcp_tools[] = {
	{"read_text_file", "Read Text File", READ_TEXT_DESC, "path:s! tail:n head:n", NULL,
	 MCP_RO, mcp_read_text_file},
	{"read_file", "Read File (Deprecated)", "Deprecated: use read_text_file. " READ_TEXT_DESC,
	 "path:s! tail:n head:n", NULL, MCP_RO, mcp_read_text_file},
	{"read_media_file", "Read Media File",
	 "Read an image or audio file as base64 with its MIME type; any other file comes back "
	 "as an embedded resource (a blob). Only within the allowed directories.",
	 "path:s!", "content:={\"type\":\"array\",\"items\":{\"type\":\"object\"}}!", MCP_RO,
	 mcp_read_media_file},
	{"read_multiple_files", "Read Multiple Files",
	 "Read several files (paths, at least one) at once; each comes back after its path, and "
	 "a file that cannot be read gives its error without failing the others.",
	 "paths:={\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1}!", NULL,
	 MCP_RO, mcp_read_multiple_files},
	{"write_file", "Write File",
	 "Create a file or replace it whole with content (atomically; parents made). "
	 "Overwrites without warning.",
	 "path:s! content:s!", NULL, MCP_DESTRUCTIVE | MCP_IDEMPOTENT, mcp_write_file},
	{"edit_file", "Edit File",
	 "Replace text in a file: each edit's oldText must occur exactly once (else nothing "
	 "changes and the error says why); lines match ignoring white space around them, and "
	 "newText takes the file's indentation. Returns a git-style diff; dryRun only shows it.",
	 "path:s! edits:={\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	 "\"oldText\":{\"type\":\"string\"},\"newText\":{\"type\":\"string\"}},\"required\":["
	 "\"oldText\",\"newText\"]}}! dryRun:={\"type\":\"boolean\",\"default\":false}",
	 NULL, MCP_DESTRUCTIVE, mcp_edit_file},
	{"create_directory", "Create Directory",
	 "Create a directory and its missing parents; one that exists is no error.", "path:s!",
	 NULL, MCP_IDEMPOTENT, mcp_create_directory},
	{"list_directory", "List Directory",
	 "List a directory's entries, one a line, each after [DIR] or [FILE].", "path:s!", NULL,
	 MCP_RO, mcp_list_directory},
	{"list_directory_with_sizes", "List Directory with Sizes",
	 "List a directory's entries with file sizes and totals, sorted by name or size.",
	 "path:s! sortBy:={\"type\":\"string\",\"enum\":[\"name\",\"size\"],\"default\":\"name\"}",
	 NULL, MCP_RO, mcp_list_directory_with_sizes},
	{"directory_tree", "Directory Tree",
	 "The tree under a directory as JSON: entries with name, type (file or directory) and "
	 "children for directories. excludePatterns: globs of paths to leave out.",
	 "path:s! excludePatterns:a", NULL, MCP_RO | MCP_LONG, mcp_directory_tree},
	{"move_file", "Move File",
	 "Move or rename a file or directory; fails when the destination exists.",
	 "source:s! destination:s!", NULL, MCP_DESTRUCTIVE, mcp_move_file},
	{"search_files", "Search Files",
	 "Find files and directories whose path relative to path matches a glob ('*.c' at the "
	 "top, '**/*.c' at any depth); returns full paths. excludePatterns: globs to leave out.",
	 "path:s! pattern:s! excludePatterns:a", NULL, MCP_RO | MCP_LONG, mcp_search_files},
	{"get_file_info", "Get File Info",
	 "A file's or directory's size, times, type and permissions.", "path:s!", NULL, MCP_RO,
	 mcp_get_file_info},
	{"list_allowed_directories", "List Allowed Directories",
	 "The directories this server may access (and everything beneath them).", "", NULL,
	 MCP_RO, mcp_list_allowed_directories},
	{"grep", "Search File Contents",
	 "Search file contents for a regular expression (or fixedStrings), as ripgrep does: "
	 "path:line:text lines, .gitignore honoured, binary files skipped. path: default the "
	 "first allowed directory; include: globs of files to search; context: lines around "
	 "each match; maxResults: 200 by default.",
	 "pattern:s! path:s include:a ignoreCase:b fixedStrings:b filesWithMatches:b context:n "
	 "maxResults:n",
	 "matches:={\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"file\":"
	 "{\"type\":\"string\"},\"line\":{\"type\":\"number\"},\"text\":{\"type\":\"string\"}}}}! "
	 "truncated:b!",
	 MCP_RO | MCP_LONG, mcp_grep},
	{"read_lines", "Read Lines",
	 "Read numbered lines of a text file from offset (1 = the first), at most limit (2000); "
	 "says where to continue when more follow.",
	 "path:s! offset:n limit:n", NULL, MCP_RO, mcp_read_lines},
	{"apply_patch", "Apply Patch",
	 "Apply a V4A patch (*** Begin Patch / *** Update File: / *** Add File: / *** Delete "
	 "File: / *** End Patch) to files; all change or none does.",
	 "patch:s!", NULL, MCP_DESTRUCTIVE, mcp_apply_patch},
	{"run_command", "Run Command",
	 "Run a shell command (sh -c) in cwd (default: the first allowed directory), killed "
	 "with its whole process tree after timeout seconds (60); returns stdout, stderr and "
	 "the exit code.",
	 "command:s! cwd:s stdin:s timeout:n",
	 "exitCode:n! timedOut:b stdout:s! stderr:s! stdoutTruncated:b stderrTruncated:b",
	 MCP_DESTRUCTIVE | MCP_SPAWNS | MCP_LONG, mcp_run_command},
	{"stat", "File Status",
	 "A path's metadata as JSON: type, size, mode, owner, times, link target (follow: "
	 "of what a link points to).",
	 "path:s! follow:b", "", MCP_RO, mcp_stat},
	{"diff", "Diff",
	 "A unified diff of a file against another file (otherPath) or against new content, "
	 "without changing anything.",
	 "path:s! otherPath:s content:s", "added:n removed:n", MCP_RO, mcp_diff},
	{"delete_file", "Delete File",
	 "Delete a file, a symlink (never what it points to) or, with recursive, a directory "
	 "and everything in it.",
	 "path:s! recursive:b", NULL, MCP_DESTRUCTIVE | MCP_IDEMPOTENT, mcp_delete_file},
	{"copy_file", "Copy File",
	 "Copy a file, or with recursive a directory (modes and times kept, links as links); "
	 "fails when the destination exists.",
	 "source:s! destination:s! recursive:b", NULL, 0, mcp_copy_file},
	{"snapshot", "Snapshot",
	 "Record the state of a directory tree so that restore can bring it back: an undo "
	 "point before risky changes. path: " SNAP_PATH "; tag names it.",
	 "path:s tag:s", "", 0, mcp_snapshot},
	{"snapshots", "List Snapshots",
	 "The snapshots of a directory tree, oldest first. path: " SNAP_PATH ".", "path:s", "",
	 MCP_RO, mcp_snapshots},
	{"snapshot_diff", "Changes Since Snapshot",
	 "The files added, removed and modified since a snapshot (its id or tag). path: " SNAP_PATH
	 ".",
	 "snapshot:s! path:s", "", MCP_RO | MCP_LONG, mcp_snapshot_diff},
	{"restore", "Restore Snapshot",
	 "Bring a directory tree back to a snapshot (its id or tag): files changed since are "
	 "reverted, added ones deleted, removed ones recreated. path: " SNAP_PATH ".",
	 "snapshot:s! path:s", "", MCP_DESTRUCTIVE, mcp_restore},
};

const size_t mcp_tool_count = sizeof(mcp_tools) / sizeof(*mcp_tools);

void mcp_put_schema(struct buf *b, const char *spec)
{
	static const char *const types[] = {"string", "number", "boolean"};
	struct buf req;
	const char *p = spec;

	buf_init(&req);
	buf_puts(b, "{\"type\":\"object\",\"properties\":{");
	while (*p) {
		size_t name = strcspn(p, ":"), len = strcspn(p, " ");
		const char *t = p + name + 1, *end = p + len;
		int required = end[-1] == '!';

		buf_printf(b, "%s\"%.*s\":", p == spec ? "" : ",", (int)name, p);
		if (*t == '=')
			buf_add(b, t + 1, (size_t)(end - t - 1 - required));
		else if (*t == 'a')
			buf_puts(b, "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}");
		else
			buf_printf(b, "{\"type\":\"%s\"}", types[*t == 'n' ? 1 : (*t == 'b' ? 2 : 0)]);
		if (required)
			buf_printf(&req, "%s\"%.*s\"", req.len ? "," : "", (int)name, p);
		p = *end ? end + 1 : end;
	}
	buf_putc(b, '}');
	if (req.len)
		buf_printf(b, ",\"required\":[%.*s]", (int)req.len, req.p);
	buf_putc(b, '}');
	buf_free(&req);
}
