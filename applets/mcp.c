/* mcp.c - a Model Context Protocol server on stdin/stdout
 *
 * APPLET(mcp, "max-result#<1000=100000 no-commands mount* listen: token-file: allow-origin* max-body#<1024=67108864 max-memory#<1048576=268435456 max-conns#<1>100000=256", 0, -1, APPLET_CLI_ONLY)
 *
 * config APPLET_MCP
 *	bool "mcp: a Model Context Protocol server (stdio, HTTP)"
 *	default y
 *	help
 *	  usage: wickfs mcp [--max-result BYTES] [--no-commands] [--mount VPATH=DIR[:ro]]...
 *	                    [--listen HOST:PORT] [DIR...]
 *
 *	  A drop-in for the reference filesystem MCP server: JSON-RPC 2.0,
 *	  one message a line on stdin and stdout, logs on stderr; protocol
 *	  versions 2025-06-18 and 2025-11-25. Its fourteen tools under the
 *	  same names and arguments, with the same result text, and ours:
 *	  grep, read_lines, apply_patch, run_command, stat, diff,
 *	  delete_file, copy_file, snapshot, snapshots, snapshot_diff,
 *	  restore, pack, unpack. Files are resources too (file:///{+path}).
 *
 *	  Every path stays in the allowed directories (DIR..., else
 *	  WICKFS_ROOT), confined as --root confines; relative paths are
 *	  relative to the first. A client with roots replaces them by its
 *	  own (over HTTP for its session alone: roots/list goes out on the
 *	  session's GET stream). WICKFS_READONLY hides the tools that write
 *	  (and run_command unless WICKFS_READONLY_EXEC).
 *
 *	  --max-result BYTES  a tool's text beyond this is cut, and the cut
 *	                      said (default 100000)
 *	  --no-commands       no run_command: a model gets files only, as
 *	                      with the reference server
 *	  --mount VPATH=DIR[:ro]  paths under VPATH are DIR's (repeatable;
 *	                      an absolute, normalised VPATH other than /,
 *	                      none inside another); with :ro every write
 *	                      there is refused, naming the mount
 *	  --listen HOST:PORT  Streamable HTTP at http://HOST:PORT/mcp
 *	                      instead of stdio (port 0: any free one; the
 *	                      address is said on stderr)
 *	  --token-file FILE   require "Authorization: Bearer T", T being
 *	                      FILE's first line
 *	  --allow-origin O    a browser Origin allowed (repeatable); any
 *	                      other is 403, but localhost's when listening
 *	                      on loopback
 *	  --max-body BYTES    a larger POST is refused, 413 (default 64 MiB)
 *	  --max-memory BYTES  request bodies held at once (default 256 MiB)
 *	  --max-conns N       connections at once (default 256)
 *
 *	  Example: wickfs mcp /workspace
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#define FOR_mcp
#include "applet_opts.h"
#include "applet.h"
#include "mcp.h"
#include "mounts.h"
#include "bytes.h"

/* FILE's first line, the bearer token, into the arena: NULL (said on
 * err) when it cannot be read or is empty. */
static const char *read_token(struct req *r, const char *file)
{
	char b[4097];
	size_t n = 0, len;
	ssize_t k = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	const char *t = NULL;

	while (fd >= 0 && n < sizeof(b) - 1 &&
	       ((k = read(fd, b + n, sizeof(b) - 1 - n)) > 0 || (k < 0 && errno == EINTR)))
		n += k > 0 ? (size_t)k : 0;
	if (fd < 0 || k < 0)
		buf_printf(r->err, "wickfs mcp: token file %s: %s\n", file, strerror(errno));
	if (fd >= 0)
		close(fd);
	for (len = 0; len < n && b[len] && b[len] != '\n' && b[len] != '\r'; len++)
		;
	if (fd >= 0 && k >= 0 && (!len || len == sizeof(b) - 1))
		buf_printf(r->err, "wickfs mcp: token file %s: want one line of 1 to 4095 bytes\n",
			   file);
	else if (fd >= 0 && k >= 0)
		t = arena_strndup(r->arena, b, len);
	memset(b, 0, sizeof(b));
	return t;
}

/* A repeatable option's values, NULL-ended (the empty list when none). */
static const char *const *values(struct req *r, int opt)
{
	static const char *const none[] = {NULL};
	const char **list;

	return opt_list(r, opt, &list) ? list : none;
}

/* --listen: the same server over HTTP. */
static int serve_http(struct req *r, struct mcp_server *s)
{
	struct mcp_http_opts o = {0};
	const char *file = opt_str(r, OPT_token_file);
	struct buf err;
	int i;

	o.listen = opt_str(r, OPT_listen);
	if (file && !(o.token = read_token(r, file)))
		return 1;
	o.origins = values(r, OPT_allow_origin);
	o.max_body = (size_t)opt_num(r, OPT_max_body);
	o.max_memory = (size_t)opt_num(r, OPT_max_memory);
	o.max_conns = (int)opt_num(r, OPT_max_conns);
	buf_init(&err);
	i = mcp_http_serve(s, &o, &err);
	if (err.len) {
		buf_puts(r->err, "wickfs mcp: ");
		buf_add(r->err, err.p, err.len);
	}
	buf_free(&err);
	return i;
}

int mcp_main(struct req *r)
{
	struct mcp_server s = {0};
	const char *root = r->ctx->root;
	struct buf err;
	int rc = 0;

	buf_init(&err);
	s.readonly = r->ctx->readonly;
	s.set = r->ctx->set;
	s.readonly_exec = r->ctx->readonly_exec;
	s.max_result = (size_t)opt_num(r, OPT_max_result);
	s.no_commands = opt_has(r, OPT_no_commands);
	s.in_fd = 0;
	s.out_fd = 1;
	if (opt_has(r, OPT_mount) && mounts_check(s.mounts = values(r, OPT_mount), &err)) {
		rc = 2;
		goto out;
	}
	if (r->argc && mcp_set_dirs(&s, (const char *const *)r->argv, (size_t)r->argc, &err))
		buf_puts(&err, "none of the directories given is accessible\n");
	else if (!r->argc && (root || s.mounts))
		mcp_set_dirs(&s, root ? &root : NULL, root ? 1 : 0, &err);
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
	rc = opt_has(r, OPT_listen) ? serve_http(r, &s) : mcp_serve(&s);
	mcp_procs_stop();
out:
	if (err.len) {
		buf_puts(r->err, "wickfs mcp: ");
		buf_add(r->err, err.p, err.len);
	}
	buf_free(&err);
	mcp_free_dirs(&s);
	return rc;
}
