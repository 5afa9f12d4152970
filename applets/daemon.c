/* daemon.c - serve applets and commands over NDJSON
 *
 * APPLET(daemon, "listen: socket: token: max-line# max-output# max-buffered# line-timeout# workers# max-conns# max-procs# poll-us# root: v|verbose", 0, 0, APPLET_CLI_ONLY|APPLET_OUTSIDE_ROOT)
 *
 * config APPLET_DAEMON
 *	bool "daemon: the wick-daemon NDJSON server"
 *	default y
 *	help
 *	  usage: wickfs daemon [--listen HOST:PORT|off] [--socket PATH|off] [--token T] [-v]
 *
 *	  The wick-daemon (also run as wick-daemon or wickdaemon): one
 *	  request per line, {"id","cmd","workdir","stdin","timeout"} answered
 *	  {"id","stdout","stderr","exit_code","error"}, or {"id","op","args",
 *	  "stdin"} answered {"id","ok","data"|"error"}. A cmd that is a plain
 *	  `wickfs APPLET 'arg'...` runs in process; anything else with sh -c,
 *	  each command in its own process group. Logs to stderr.
 *
 *	  In process, small reads, listings and writes run on the event loop;
 *	  grep, glob and big files on worker threads, each with its own
 *	  working directory (unshare CLONE_FS), so relative paths resolve
 *	  against the request's workdir exactly as in the spawned command.
 *	  Where the kernel refuses that, requests with a workdir are spawned.
 *
 *	  --listen HOST:PORT  TCP address (DAEMON_LISTEN, default 0.0.0.0:9090)
 *	  --socket PATH       Unix socket, mode 0600 (DAEMON_SOCKET, default
 *	                      /tmp/wick-daemon.sock); "off" disables either
 *	  --token T           require "token":T in every request (DAEMON_TOKEN)
 *	  --max-line BYTES    longest request line (DAEMON_MAX_LINE, 10 MiB)
 *	  --max-buffered BYTES  request bytes held over all connections
 *	                      (DAEMON_MAX_BUFFERED, 256 MiB, at least 2 lines):
 *	                      past it the connections holding the most are
 *	                      answered with an error and closed
 *	  --line-timeout SECS an unfinished request line older than this is
 *	                      answered with an error and closed
 *	                      (DAEMON_LINE_TIMEOUT, default 10)
 *	  --max-output BYTES  kept per stream of a command (DAEMON_MAX_OUTPUT,
 *	                      10 MiB); the rest is discarded and flagged
 *	  --workers N         threads for in-process applets (default 4)
 *	  --max-conns N       open connections (default 10000); at the
 *	                      limit, the oldest connection that sent no valid
 *	                      request for a second is closed for a new one
 *	  --max-procs N       commands running at once, more wait (default 1024)
 *	  --poll-us N         after answering in process, poll for the next
 *	                      request this long before sleeping (DAEMON_POLL_US,
 *	                      default 50; 0 off): spares a wakeup per round trip
 *	  --root DIR          confine file operations to DIR (WICKFS_ROOT):
 *	                      paths, symlinks and workdirs that lead out are
 *	                      refused; shell commands are not confined
 *	  -v, --verbose       log every connection and request
 *
 *	  SIGTERM or SIGINT: stop accepting, kill running commands' process
 *	  groups, answer what is in flight, remove the socket, exit 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#define FOR_daemon
#include "applet.h"
#include "../lib/daemon/daemon.h"

/* Flag, else environment, else default; "off" or "none" disables. */
static const char *addr_opt(struct req *r, int opt, const char *env,
			    const char *dflt)
{
	const char *v = opt_str(r, opt);

	if (!v) {
		v = getenv(env);
		if (!v || !*v)
			v = dflt;
	}
	if (!*v || !strcmp(v, "off") || !strcmp(v, "none"))
		return NULL;
	return v;
}

static long long num_opt(struct req *r, int opt, const char *env,
			 long long dflt)
{
	const char *e = getenv(env);
	long long v = e && *e ? strtoll(e, NULL, 10) : dflt;

	if (opt_has(r, opt))
		v = opt_num(r, opt);
	return v > 0 ? v : dflt;
}

int daemon_main(struct req *r)
{
	struct daemon_opts o;
	const char *tok = opt_str(r, OPT_token);

	memset(&o, 0, sizeof(o));
	o.listen = addr_opt(r, OPT_listen, "DAEMON_LISTEN", DAEMON_DEFAULT_LISTEN);
	o.socket = addr_opt(r, OPT_socket, "DAEMON_SOCKET", DAEMON_DEFAULT_SOCKET);
	if (!tok)
		tok = getenv("DAEMON_TOKEN");
	o.token = tok && *tok ? tok : NULL;
	o.max_line = (size_t)num_opt(r, OPT_max_line, "DAEMON_MAX_LINE",
				     DAEMON_DEFAULT_MAX_LINE);
	o.max_buffered = (size_t)num_opt(r, OPT_max_buffered, "DAEMON_MAX_BUFFERED",
					 DAEMON_DEFAULT_MAX_BUFFERED);
	/* room for two whole lines at least, one of them being parsed */
	if (o.max_buffered < 2 * (o.max_line + 1) + (1u << 20))
		o.max_buffered = 2 * (o.max_line + 1) + (1u << 20);
	{
		long long t = num_opt(r, OPT_line_timeout, "DAEMON_LINE_TIMEOUT",
				      DAEMON_DEFAULT_LINE_TIMEOUT);
		o.line_timeout = t > 86400 ? 86400 : (int)t;
	}
	o.max_output = (size_t)num_opt(r, OPT_max_output, "DAEMON_MAX_OUTPUT",
				       10 << 20);
	o.workers = (int)num_opt(r, OPT_workers, "DAEMON_WORKERS", 4);
	o.max_conns = (int)num_opt(r, OPT_max_conns, "DAEMON_MAX_CONNS", 10000);
	o.max_procs = (int)num_opt(r, OPT_max_procs, "DAEMON_MAX_PROCS", 1024);
	o.verbose = opt_has(r, OPT_v);
	o.readonly = r->ctx->readonly;
	o.readonly_exec = r->ctx->readonly_exec;
	/* The environment carries --root to commands; the context has it
	 * resolved, as from WICKFS_ROOT at the start. */
	if (opt_str(r, OPT_root)) {
		if (setenv("WICKFS_ROOT", opt_str(r, OPT_root), 1))
			return reply_error(r, "daemon: --root: %s", strerror(errno));
		wfs_ctx_set_root(r->ctx, opt_str(r, OPT_root));
	}
	if (r->ctx->root_errno) {
		buf_printf(r->err, "wickfs daemon: workspace root %s (WICKFS_ROOT): %s\n",
			   r->ctx->root, strerror(r->ctx->root_errno));
		return 1;
	}
	o.root = r->ctx->root;
	{
		const char *e = getenv("DAEMON_POLL_US");
		long long v = e && *e ? strtoll(e, NULL, 10) : 50;
		if (opt_has(r, OPT_poll_us))
			v = opt_num(r, OPT_poll_us);
		o.poll_us = v < 0 ? 0 : v > 10000 ? 10000 : (int)v;
	}
	if (o.workers > 256)
		o.workers = 256;
	return daemon_run(&o);
}
