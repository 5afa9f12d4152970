/* mcp.c - a Model Context Protocol server on stdin/stdout
 *
 * APPLET(mcp, "max-result#<1000=100000 no-commands", 0, -1, APPLET_CLI_ONLY)
 *
 * config APPLET_MCP
 *	bool "mcp: a Model Context Protocol server (stdio)"
 *	default y
 *	help
 *	  usage: wickfs mcp [--max-result BYTES] [--no-commands] [DIR...]
 *
 *	  A drop-in for the reference filesystem MCP server: JSON-RPC 2.0,
 *	  one message a line on stdin and stdout, logs on stderr; protocol
 *	  versions 2025-06-18 and 2025-11-25. Its fourteen tools under the
 *	  same names and arguments, with the same result text, and ours:
 *	  grep, read_lines, apply_patch, run_command, stat, diff,
 *	  delete_file, copy_file, snapshot, snapshots, snapshot_diff,
 *	  restore. Files are resources too (file:///{+path}).
 *
 *	  Every path stays in the allowed directories (DIR..., else
 *	  WICKFS_ROOT), confined as --root confines; relative paths are
 *	  relative to the first. A client with roots replaces them by its
 *	  own. WICKFS_READONLY hides the tools that write (and run_command
 *	  unless WICKFS_READONLY_EXEC).
 *
 *	  --max-result BYTES  a tool's text beyond this is cut, and the cut
 *	                      said (default 100000)
 *	  --no-commands       no run_command: a model gets files only, as
 *	                      with the reference server
 *
 *	  Example: wickfs mcp /workspace
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#define FOR_mcp
#include "applet_opts.h"
#include "applet.h"
#include "mcp.h"
#include "bytes.h"

int mcp_main(struct req *r)
{
	struct mcp_server s = {0};
	const char *root = r->ctx->root;
	struct buf err;
	int rc = 0;

	buf_init(&err);
	s.readonly = r->ctx->readonly;
	s.readonly_exec = r->ctx->readonly_exec;
	s.max_result = (size_t)opt_num(r, OPT_max_result);
	s.no_commands = opt_has(r, OPT_no_commands);
	s.in_fd = 0;
	s.out_fd = 1;
	if (r->argc && mcp_set_dirs(&s, (const char *const *)r->argv, (size_t)r->argc, &err))
		buf_puts(&err, "none of the directories given is accessible\n");
	else if (!r->argc && root)
		mcp_set_dirs(&s, &root, 1, &err);
	if (r->argc && !s.ndirs) {
		rc = 1;
		goto out;
	}
	if (!s.ndirs)
		buf_puts(&err, "no directory given: waiting for the client's roots\n");
	if (err.len) {
		buf_add(r->err, "wickfs mcp: ", 12);
		buf_add(r->err, err.p, err.len);
		bytes_write_all(2, r->err->p, r->err->len); /* now: the session is long */
		buf_reset(r->err);
	}
	buf_reset(&err);
	/* a client that leaves mid-answer: a failed write, not a signal */
	signal(SIGPIPE, SIG_IGN);
	rc = mcp_serve(&s);
out:
	if (err.len) {
		buf_puts(r->err, "wickfs mcp: ");
		buf_add(r->err, err.p, err.len);
	}
	buf_free(&err);
	mcp_free_dirs(&s);
	return rc;
}
