/* table.c - the tools as tools/list shows them: names, schemas, hints.
 *
 * The reference's fourteen first, under its names and arguments (their
 * outputSchema is its {content: string}); then ours. Schemas are JSON
 * text, written once here, so that listing them costs no code.
 */
#include "mcp_int.h"

#define STR "{\"type\":\"string\"}"
#define NUM(d) "{\"type\":\"number\",\"description\":\"" d "\"}"
#define STRS(d) "{\"type\":\"array\",\"items\":" STR ",\"description\":\"" d "\"}"
#define PATH_ONLY "\"properties\":{\"path\":" STR "},\"required\":[\"path\"]"
#define HEAD_TAIL \
	"\"properties\":{\"path\":" STR ",\"tail\":" NUM("Only the last N lines") ",\"head\":" NUM("Only the first N lines") "},\"required\":[\"path\"]"
#define ANY "\"properties\":{}"
#define EXCLUDE STRS("Glob patterns of paths to leave out")

#define READ_TEXT_DESC                                                                     \
	"Read a file as UTF-8 text (invalid bytes become U+FFFD). head: only its first N " \
	"lines; tail: only its last N. Only within the allowed directories."

const struct mcp_tool mcp_tools[] = {
	{"read_text_file", "Read Text File", READ_TEXT_DESC, HEAD_TAIL, NULL, MCP_RO,
	 mcp_read_text_file},
	{"read_file", "Read File (Deprecated)", "Deprecated: use read_text_file. " READ_TEXT_DESC,
	 HEAD_TAIL, NULL, MCP_RO, mcp_read_text_file},
	{"read_media_file", "Read Media File",
	 "Read an image or audio file as base64 with its MIME type; any other file comes back "
	 "as an embedded resource (a blob). Only within the allowed directories.",
	 PATH_ONLY,
	 "\"properties\":{\"content\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}},"
	 "\"required\":[\"content\"]",
	 MCP_RO, mcp_read_media_file},
	{"read_multiple_files", "Read Multiple Files",
	 "Read several files at once; each comes back after its path, and a file that cannot "
	 "be read gives its error without failing the others.",
	 "\"properties\":{\"paths\":{\"type\":\"array\",\"items\":" STR ",\"minItems\":1}},"
	 "\"required\":[\"paths\"]",
	 NULL, MCP_RO, mcp_read_multiple_files},
	{"write_file", "Write File",
	 "Create a file or replace it whole with content (atomically; parents made). "
	 "Overwrites without warning.",
	 "\"properties\":{\"path\":" STR ",\"content\":" STR "},\"required\":[\"path\",\"content\"]",
	 NULL, MCP_DESTRUCTIVE | MCP_IDEMPOTENT, mcp_write_file},
	{"edit_file", "Edit File",
	 "Replace text in a file: each edit's oldText must occur exactly once (else nothing "
	 "changes and the error says why); lines match ignoring white space around them, and "
	 "newText takes the file's indentation. Returns a git-style diff; dryRun only shows it.",
	 "\"properties\":{\"path\":" STR ",\"edits\":{\"type\":\"array\",\"items\":{\"type\":"
	 "\"object\",\"properties\":{\"oldText\":" STR ",\"newText\":" STR "},\"required\":"
	 "[\"oldText\",\"newText\"]}},\"dryRun\":{\"type\":\"boolean\",\"default\":false}},"
	 "\"required\":[\"path\",\"edits\"]",
	 NULL, MCP_DESTRUCTIVE, mcp_edit_file},
	{"create_directory", "Create Directory",
	 "Create a directory and its missing parents; one that exists is no error.", PATH_ONLY,
	 NULL, MCP_IDEMPOTENT, mcp_create_directory},
	{"list_directory", "List Directory",
	 "List a directory's entries, one a line, each after [DIR] or [FILE].", PATH_ONLY, NULL,
	 MCP_RO, mcp_list_directory},
	{"list_directory_with_sizes", "List Directory with Sizes",
	 "List a directory's entries with file sizes and totals, sorted by name or size.",
	 "\"properties\":{\"path\":" STR ",\"sortBy\":{\"type\":\"string\",\"enum\":[\"name\","
	 "\"size\"],\"default\":\"name\"}},\"required\":[\"path\"]",
	 NULL, MCP_RO, mcp_list_directory_with_sizes},
	{"directory_tree", "Directory Tree",
	 "The tree under a directory as JSON: entries with name, type (file or directory) and "
	 "children for directories.",
	 "\"properties\":{\"path\":" STR ",\"excludePatterns\":" EXCLUDE "},\"required\":[\"path\"]",
	 NULL, MCP_RO | MCP_LONG, mcp_directory_tree},
	{"move_file", "Move File",
	 "Move or rename a file or directory; fails when the destination exists.",
	 "\"properties\":{\"source\":" STR ",\"destination\":" STR "},\"required\":[\"source\","
	 "\"destination\"]",
	 NULL, MCP_DESTRUCTIVE, mcp_move_file},
	{"search_files", "Search Files",
	 "Find files and directories whose path relative to path matches a glob ('*.c' at the "
	 "top, '**/*.c' at any depth); returns full paths.",
	 "\"properties\":{\"path\":" STR ",\"pattern\":" STR ",\"excludePatterns\":" EXCLUDE
	 "},\"required\":[\"path\",\"pattern\"]",
	 NULL, MCP_RO | MCP_LONG, mcp_search_files},
	{"get_file_info", "Get File Info",
	 "A file's or directory's size, times, type and permissions.", PATH_ONLY, NULL, MCP_RO,
	 mcp_get_file_info},
	{"list_allowed_directories", "List Allowed Directories",
	 "The directories this server may access (and everything beneath them).",
	 "\"properties\":{}", NULL, MCP_RO, mcp_list_allowed_directories},
	{"grep", "Search File Contents",
	 "Search file contents for a regular expression (or fixedStrings), as ripgrep does: "
	 "path:line:text lines, .gitignore honoured, binary files skipped. include: globs of "
	 "files to search; context: lines around each match.",
	 "\"properties\":{\"pattern\":" STR ",\"path\":" STR ",\"include\":" STRS("Globs of "
										  "files to "
										  "search") ",\"ignoreCase\":{\"type\":\"boolean\"},\"fixedStrings\":{\"type\":\"boolean\"},"
											    "\"filesWithMatches\":{\"type\":\"boolean\"},\"context\":" NUM("Lines around each match") ",\"maxResults\":" NUM("At most this many matches (200)") "},\"required\":[\"pattern\"]",
	 "\"properties\":{\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	 "\"properties\":{\"file\":" STR ",\"line\":{\"type\":\"number\"},\"text\":" STR "}}},"
	 "\"truncated\":{\"type\":\"boolean\"}},\"required\":[\"matches\",\"truncated\"]",
	 MCP_RO | MCP_LONG, mcp_grep},
	{"read_lines", "Read Lines",
	 "Read numbered lines of a text file from offset (1 = the first), at most limit (2000); "
	 "says where to continue when more follow.",
	 "\"properties\":{\"path\":" STR ",\"offset\":" NUM("First line, from 1") ",\"limit\":" NUM(
		 "Lines at most") "},\"required\":[\"path\"]",
	 NULL, MCP_RO, mcp_read_lines},
	{"apply_patch", "Apply Patch",
	 "Apply a V4A patch (*** Begin Patch / *** Update File: / *** Add File: / *** Delete "
	 "File: / *** End Patch) to files; all change or none does.",
	 "\"properties\":{\"patch\":" STR "},\"required\":[\"patch\"]", NULL, MCP_DESTRUCTIVE,
	 mcp_apply_patch},
	{"run_command", "Run Command",
	 "Run a shell command (sh -c) in cwd (default: the first allowed directory), killed "
	 "with its whole process tree after timeout seconds (60); returns stdout, stderr and "
	 "the exit code.",
	 "\"properties\":{\"command\":" STR ",\"cwd\":" STR ",\"stdin\":" STR ",\"timeout\":" NUM(
		 "Seconds") "},\"required\":[\"command\"]",
	 "\"properties\":{\"exitCode\":{\"type\":\"number\"},\"timedOut\":{\"type\":\"boolean\"},"
	 "\"stdout\":" STR ",\"stderr\":" STR "},\"required\":[\"exitCode\",\"stdout\",\"stderr\"]",
	 MCP_DESTRUCTIVE | MCP_SPAWNS | MCP_LONG, mcp_run_command},
	{"stat", "File Status",
	 "A path's metadata as JSON: type, size, mode, owner, times, link target (follow: "
	 "of what a link points to).",
	 "\"properties\":{\"path\":" STR ",\"follow\":{\"type\":\"boolean\"}},\"required\":[\"path\"]",
	 ANY, MCP_RO, mcp_stat},
	{"diff", "Diff",
	 "A unified diff of a file against another file (otherPath) or against new content, "
	 "without changing anything.",
	 "\"properties\":{\"path\":" STR ",\"otherPath\":" STR ",\"content\":" STR
	 "},\"required\":[\"path\"]",
	 ANY, MCP_RO, mcp_diff},
	{"delete_file", "Delete File",
	 "Delete a file, a symlink (never what it points to) or, with recursive, a directory "
	 "and everything in it.",
	 "\"properties\":{\"path\":" STR ",\"recursive\":{\"type\":\"boolean\"}},"
	 "\"required\":[\"path\"]",
	 NULL, MCP_DESTRUCTIVE | MCP_IDEMPOTENT, mcp_delete_file},
	{"copy_file", "Copy File",
	 "Copy a file, or with recursive a directory (modes and times kept, links as links); "
	 "fails when the destination exists.",
	 "\"properties\":{\"source\":" STR ",\"destination\":" STR ",\"recursive\":{\"type\":"
	 "\"boolean\"}},\"required\":[\"source\",\"destination\"]",
	 NULL, 0, mcp_copy_file},
	{"snapshot", "Snapshot",
	 "Record the state of a directory tree (default: the first allowed directory) so that "
	 "restore can bring it back: an undo point before risky changes. tag names it.",
	 "\"properties\":{\"path\":" STR ",\"tag\":" STR "}",
	 ANY, 0, mcp_snapshot},
	{"snapshots", "List Snapshots",
	 "The snapshots of a directory tree, oldest first.", "\"properties\":{\"path\":" STR "}",
	 ANY, MCP_RO, mcp_snapshots},
	{"snapshot_diff", "Changes Since Snapshot",
	 "The files added, removed and modified since a snapshot (its id or tag).",
	 "\"properties\":{\"snapshot\":" STR ",\"path\":" STR "},\"required\":[\"snapshot\"]",
	 ANY, MCP_RO | MCP_LONG, mcp_snapshot_diff},
	{"restore", "Restore Snapshot",
	 "Bring a directory tree back to a snapshot (its id or tag): files changed since are "
	 "reverted, added ones deleted, removed ones recreated.",
	 "\"properties\":{\"snapshot\":" STR ",\"path\":" STR "},\"required\":[\"snapshot\"]",
	 ANY, MCP_DESTRUCTIVE, mcp_restore},
};

const size_t mcp_tool_count = sizeof(mcp_tools) / sizeof(*mcp_tools);
