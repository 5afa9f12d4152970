/* table.c - the tools: names, what they may do, what runs them.
 *
 * The reference's fourteen first, under its names and arguments; then
 * ours. What tools/list shows of each (title, description, input and
 * output schemas) is lib/mcp/tools.txt, in this order, gzip'ed into the
 * binary (scripts/gzblob.sh): 5.6 KB of text, 2.2 KB so, and only
 * tools/list inflates it. A schema is written there in short words and
 * spelt out as JSON when listed (mcp_put_schema).
 */
#include <stdlib.h>
#include <string.h>
#include "gzpar.h"
#include "mcp_int.h"

extern const size_t mcp_text_size, mcp_text_gz_size;
extern const unsigned char mcp_text_gz[];

const struct mcp_tool mcp_tools[] = {
	{"read_text_file", MCP_RO, mcp_read_text_file},
	{"read_file", MCP_RO, mcp_read_text_file},
	{"read_media_file", MCP_RO, mcp_read_media_file},
	{"read_multiple_files", MCP_RO, mcp_read_multiple_files},
	{"write_file", MCP_DESTRUCTIVE | MCP_IDEMPOTENT, mcp_write_file},
	{"edit_file", MCP_DESTRUCTIVE, mcp_edit_file},
	{"create_directory", MCP_IDEMPOTENT, mcp_create_directory},
	{"list_directory", MCP_RO, mcp_list_directory},
	{"list_directory_with_sizes", MCP_RO, mcp_list_directory_with_sizes},
	{"directory_tree", MCP_RO | MCP_LONG, mcp_directory_tree},
	{"move_file", MCP_DESTRUCTIVE, mcp_move_file},
	{"search_files", MCP_RO | MCP_LONG, mcp_search_files},
	{"get_file_info", MCP_RO, mcp_get_file_info},
	{"list_allowed_directories", MCP_RO, mcp_list_allowed_directories},
	{"grep", MCP_RO | MCP_LONG, mcp_grep},
	{"read_lines", MCP_RO, mcp_read_lines},
	{"apply_patch", MCP_DESTRUCTIVE, mcp_apply_patch},
	{"run_command", MCP_DESTRUCTIVE | MCP_SPAWNS | MCP_LONG, mcp_run_command},
	{"stat", MCP_RO, mcp_stat},
	{"diff", MCP_RO, mcp_diff},
	{"delete_file", MCP_DESTRUCTIVE | MCP_IDEMPOTENT, mcp_delete_file},
	{"copy_file", 0, mcp_copy_file},
	{"snapshot", 0, mcp_snapshot},
	{"snapshots", MCP_RO, mcp_snapshots},
	{"snapshot_diff", MCP_RO | MCP_LONG, mcp_snapshot_diff},
	{"restore", MCP_DESTRUCTIVE, mcp_restore},
	{"pack", MCP_DESTRUCTIVE | MCP_LONG, mcp_pack},
	{"unpack", MCP_DESTRUCTIVE | MCP_LONG, mcp_unpack},
	{"start_process", MCP_DESTRUCTIVE | MCP_SPAWNS, mcp_start_process},
	{"list_processes", MCP_RO | MCP_SPAWNS, mcp_list_processes},
	{"process_output", MCP_RO | MCP_SPAWNS, mcp_process_output},
	{"send_input", MCP_SPAWNS, mcp_send_input},
	{"signal_process", MCP_DESTRUCTIVE | MCP_SPAWNS, mcp_signal_process},
	{"wait_process", MCP_RO | MCP_SPAWNS | MCP_LONG, mcp_wait_process},
	{"kill_process", MCP_DESTRUCTIVE | MCP_IDEMPOTENT | MCP_SPAWNS, mcp_kill_process},
};

const size_t mcp_tool_count = sizeof(mcp_tools) / sizeof(*mcp_tools);

struct mcp_tool_text *mcp_tool_texts(struct buf *text)
{
	struct mcp_tool_text *t;
	char err[128], *p, *end;
	size_t i;

	if (gzpar_gunzip_buf(mcp_text_gz, mcp_text_gz_size, mcp_text_size, text, err,
			     sizeof(err)) ||
	    !(t = calloc(mcp_tool_count, sizeof(*t))))
		return NULL;
	p = text->p;
	end = p + text->len;
	for (i = 0; i < mcp_tool_count; i++) {
		const char **f[] = {NULL, &t[i].title, &t[i].desc, &t[i].input, &t[i].output};
		size_t k, n = strlen(mcp_tools[i].name);

		for (k = 0; k < 5; k++) {
			char *nl = memchr(p, '\n', (size_t)(end - p));

			if (!nl || (!k && ((size_t)(nl - p) != n + 2 || memcmp(p, "@ ", 2) ||
					   memcmp(p + 2, mcp_tools[i].name, n)))) {
				free(t);
				return NULL; /* tools.txt is not in table.c's order */
			}
			*nl = 0;
			if (k)
				*f[k] = p;
			p = nl + 1;
		}
	}
	return t;
}

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
