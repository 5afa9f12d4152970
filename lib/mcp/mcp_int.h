/* mcp_int.h - what the protocol (server.c) and the tools share */
#ifndef WFS_MCP_INT_H
#define WFS_MCP_INT_H

#include "json.h"
#include "mcp.h"
#include "wickfs.h"

/* One tools/call. A tool writes its text into text, returns 0, or -1
 * with the message in ctx->err (an isError result). data, when it holds
 * anything, is the structuredContent; else {"content":text} is. content,
 * when it holds anything, replaces the text block of the answer. */
struct mcp_call {
	struct mcp_server *s;
	struct wfs_ctx *ctx;
	struct arena *a;
	const char *tool;
	unsigned flags;              /* the tool's MCP_* */
	const struct json_val *args; /* an object (maybe empty) */
	struct buf text, data, content;
	int no_cap; /* the tool capped its own text */
};

#define MCP_RO 1u          /* readOnlyHint */
#define MCP_DESTRUCTIVE 2u /* destructiveHint */
#define MCP_IDEMPOTENT 4u  /* idempotentHint */
#define MCP_SPAWNS 8u      /* runs a command: hidden in read-only mode */
#define MCP_LONG 16u       /* may take long: a notifications/cancelled for
			      it is watched for while it runs */

struct mcp_tool {
	const char *name;
	unsigned flags;
	int (*run)(struct mcp_call *c);
};

extern const struct mcp_tool mcp_tools[];
extern const size_t mcp_tool_count;
/* What tools/list shows of a tool, from lib/mcp/tools.txt; input and
 * output are schemas in its short words. */
struct mcp_tool_text {
	const char *title, *desc, *input, *output;
};
/* Every tool's text, mcp_tools' order, pointing into text (inflated
 * there); free() it. NULL when it cannot be inflated or is out of order. */
struct mcp_tool_text *mcp_tool_texts(struct buf *text);
/* A schema in table.c's short words as JSON, appended to b. */
void mcp_put_schema(struct buf *b, const char *spec);

/* (args.c) The member key of obj exactly (JSON-RPC is case-sensitive), or NULL. */
const struct json_val *mcp_get(const struct json_val *obj, const char *key);

/* -1 with ctx->err: "Input validation error: ... field \"KEY\" NEED". */
int mcp_bad_arg(struct mcp_call *c, const char *key, const char *need);
/* Tool arguments: 0 with the value (*v untouched when absent and not
 * required), -1 with ctx->err naming the field and what it needs. */
int mcp_arg_str(struct mcp_call *c, const char *key, int required,
		const char **v, size_t *len);
int mcp_arg_int(struct mcp_call *c, const char *key, long long *v, int *given);
int mcp_arg_bool(struct mcp_call *c, const char *key, int *v);
/* An array of strings (NULL-free); *n 0 when absent. */
int mcp_arg_strs(struct mcp_call *c, const char *key, int required,
		 const char ***v, size_t *n);

/* The absolute, cleaned form of a tool's path, in an allowed directory:
 * ctx->root is set to that directory. NULL with ctx->err set. */
const char *mcp_path(struct mcp_call *c, const char *path);
/* The same for the string argument key (required). */
const char *mcp_path_arg(struct mcp_call *c, const char *key);

/* (args.c) "file:///a%20b" -> "/a b" in a; NULL for another scheme. */
char *mcp_uri_path(struct arena *a, const char *uri);

/* resources (resources.c): files by their file:// URI. */
#define MCP_FILE_TEMPLATE                                                                 \
	"{\"resourceTemplates\":[{\"uriTemplate\":\"file:///{+path}\",\"name\":\"file\"," \
	"\"title\":\"A file in the allowed directories\",\"description\":\"Its text, or " \
	"its bytes in base64 when it is not UTF-8\"}]}"
/* The {"contents":[...]} of resources/read appended to out: 0, or a
 * JSON-RPC error code with its message in err. */
/* The call of a resource method on uri, its path (from mcp_uri_path)
 * confined as a read-only tool's: 0, or the JSON-RPC error with err set. */
int mcp_resource_call(struct mcp_call *c, struct wfs_ctx *ctx, struct mcp_server *s,
		      struct arena *a, const char *method, const char *uri, const char **path,
		      char *err, size_t errlen);
int mcp_resource(struct mcp_server *s, struct arena *a, const char *uri, struct buf *out,
		 char *err, size_t errlen);

/* The reference's tools (tools.c) and ours (ours.c). */
int mcp_read_text_file(struct mcp_call *c);
int mcp_read_media_file(struct mcp_call *c);
int mcp_read_multiple_files(struct mcp_call *c);
int mcp_write_file(struct mcp_call *c);
int mcp_edit_file(struct mcp_call *c);
int mcp_create_directory(struct mcp_call *c);
int mcp_list_directory(struct mcp_call *c);
int mcp_list_directory_with_sizes(struct mcp_call *c);
int mcp_directory_tree(struct mcp_call *c);
int mcp_move_file(struct mcp_call *c);
int mcp_search_files(struct mcp_call *c);
int mcp_get_file_info(struct mcp_call *c);
int mcp_list_allowed_directories(struct mcp_call *c);
int mcp_grep(struct mcp_call *c);
int mcp_read_lines(struct mcp_call *c);
int mcp_apply_patch(struct mcp_call *c);
int mcp_run_command(struct mcp_call *c);
int mcp_stat(struct mcp_call *c);
int mcp_delete_file(struct mcp_call *c);
int mcp_copy_file(struct mcp_call *c);
int mcp_diff(struct mcp_call *c);
int mcp_snapshot(struct mcp_call *c);
int mcp_snapshots(struct mcp_call *c);
int mcp_restore(struct mcp_call *c);
int mcp_snapshot_diff(struct mcp_call *c);
int mcp_pack(struct mcp_call *c);
int mcp_unpack(struct mcp_call *c);
/* resources/subscribe (on) and unsubscribe of uri, through the daemon's
 * watch (procs.c): 0, or a JSON-RPC error code with the message in err.
 * updated (server.c's) sends notifications/resources/updated for uri,
 * from the subscription's thread. */
typedef void mcp_updated_fn(struct mcp_server *s, const char *uri);
int mcp_subscribe(struct mcp_server *s, struct arena *a, const char *uri, int on,
		  mcp_updated_fn *updated, char *err, size_t errlen);
/* Background processes, through a daemon of the server's own (procs.c). */
int mcp_start_process(struct mcp_call *c);
int mcp_list_processes(struct mcp_call *c);
int mcp_process_output(struct mcp_call *c);
int mcp_send_input(struct mcp_call *c);
int mcp_signal_process(struct mcp_call *c);
int mcp_wait_process(struct mcp_call *c);
int mcp_kill_process(struct mcp_call *c);
const char *mcp_mime_of(const char *path);

#endif
