/* daemon.c - serve applets and commands over NDJSON
 *
 * APPLET(daemon, "listen:$DAEMON_LISTEN socket:$DAEMON_SOCKET token:$DAEMON_TOKEN token-file:$DAEMON_TOKEN_FILE allow-from:$DAEMON_ALLOW_FROM max-line#<1$DAEMON_MAX_LINE=10485760 max-output#<1$DAEMON_MAX_OUTPUT=10485760 max-memory|max-buffered#<1048576$DAEMON_MAX_MEMORY|DAEMON_MAX_BUFFERED line-timeout#<1>86400$DAEMON_LINE_TIMEOUT=10 write-timeout#<1>86400$DAEMON_WRITE_TIMEOUT=30 workers#<1>256$DAEMON_WORKERS=4 lanes#<0>64$DAEMON_LANES max-conns#<1>1000000$DAEMON_MAX_CONNS=10000 max-procs#<1>1000000$DAEMON_MAX_PROCS=1024 max-background#<1>100000$DAEMON_MAX_BACKGROUND=256 poll-us#<0>10000$DAEMON_POLL_US=50 root: mount* mcp-listen:$DAEMON_MCP_LISTEN lifeline v|verbose", 0, 0, APPLET_CLI_ONLY|APPLET_OUTSIDE_ROOT)
 *
 * config APPLET_DAEMON
 *	bool "daemon: the wick-daemon NDJSON server"
 *	default y
 *	help
 *	  usage: wickfs daemon [--listen HOST:PORT|off] [--socket PATH|off]
 *	                       [--token-file FILE] [--allow-from CIDR,...] [-v]
 *
 *	  The wick-daemon (also run as wick-daemon or wickdaemon): one
 *	  request per line, {"id","cmd","workdir","stdin","timeout"} answered
 *	  {"id","stdout","stderr","exit_code","error"}, or {"id","op","args",
 *	  "stdin"} answered {"id","ok","data"|"error"}. A cmd that is a plain
 *	  `wickfs APPLET 'arg'...` runs in process; anything else with sh -c,
 *	  each command in its own process group. Logs to stderr. A request
 *	  may lower "max_file" and "max_output" (bytes) for itself.
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
 *	  --token-file FILE   require "token":T in every request, T being
 *	                      the file's first line, read once at the start
 *	                      (DAEMON_TOKEN_FILE)
 *	  --token T           the same with T given (DAEMON_TOKEN); shown to
 *	                      local users until the daemon has read it
 *	  --allow-from LIST   TCP peers accepted: ADDR or ADDR/BITS, IPv4 or
 *	                      IPv6, comma-separated (DAEMON_ALLOW_FROM); the
 *	                      others are closed at accept
 *	  --mcp-listen HOST:PORT  also serve MCP (Streamable HTTP at /mcp,
 *	                      as `wickfs mcp --listen`) on the root (or the
 *	                      working directory), with the same token
 *	                      (DAEMON_MCP_LISTEN)
 *	  --max-line BYTES    longest request line (DAEMON_MAX_LINE, 10 MiB)
 *	  --max-memory BYTES  the budget for what the daemon holds: requests
 *	                      being read or handled, answers not yet sent
 *	                      (DAEMON_MAX_MEMORY, 1 MiB or more; default
 *	                      64 MiB, or 1/8 of the cgroup's memory limit
 *	                      when that is less, at least 4 MiB). Past it the connections
 *	                      holding the most request bytes are refused;
 *	                      files and answers over 64 KiB may use 3/4 of
 *	                      it, past which they are refused with an error
 *	                      and commands' output is cut
 *	  --write-timeout SECS  an answer its client does not read for this
 *	                      long closes the connection
 *	                      (DAEMON_WRITE_TIMEOUT, 1 to 86400, default 30)
 *	  --line-timeout SECS an unfinished request line older than this is
 *	                      answered with an error and closed
 *	                      (DAEMON_LINE_TIMEOUT, 1 to 86400, default 10)
 *	  --max-output BYTES  kept per stream of a command (DAEMON_MAX_OUTPUT,
 *	                      10 MiB); the rest is discarded and flagged
 *	  --workers N         threads for in-process applets (DAEMON_WORKERS,
 *	                      1 to 256, default 4)
 *	  --lanes N           threads that serve connections sending small
 *	                      file operations, each whole (DAEMON_LANES, 0 to
 *	                      64, default one a CPU up to 8; 0: the loop
 *	                      alone)
 *	  --max-conns N       open connections (DAEMON_MAX_CONNS, default
 *	                      10000); at the limit, the oldest connection that
 *	                      sent no valid request for a second is closed for
 *	                      a new one
 *	  --max-procs N       commands running at once, more wait
 *	                      (DAEMON_MAX_PROCS, default 1024)
 *	  --max-background N  processes started with the start op (or a
 *	                      streamed exec) running at once
 *	                      (DAEMON_MAX_BACKGROUND, default 256)
 *	  --poll-us N         after answering in process, poll for the next
 *	                      request this long before sleeping (DAEMON_POLL_US,
 *	                      0 to 10000, default 50; 0 off): spares a wakeup
 *	                      per round trip
 *	  --root DIR          confine file operations to DIR (WICKFS_ROOT):
 *	                      paths, symlinks and workdirs that lead out are
 *	                      refused; shell commands are not confined
 *	  --mount VPATH=DIR[:ro]  DIR bind-mounted on the directory VPATH
 *	                      (repeatable; absolute, normalised, not /, none
 *	                      inside another) in a mount namespace of the
 *	                      daemon's own, read-only with :ro: applets and
 *	                      commands see DIR there. Where the kernel refuses
 *	                      the namespace the daemon does not start
 *	  --lifeline          stop, as on SIGTERM, when stdin reaches its end:
 *	                      for a daemon that another program starts with
 *	                      a pipe as stdin and holds open while it needs
 *	                      it (wickfs mcp's daemon for its processes)
 *	  -v, --verbose       log every connection and request
 *
 *	  A value out of its range, given or from its variable, is refused
 *	  with an error naming it and the range. The DAEMON_* variables
 *	  above are removed from the environment of every command the daemon
 *	  starts, and a token from the environment or the command line is
 *	  overwritten where ps and /proc show it.
 *
 *	  SIGTERM or SIGINT: stop accepting, kill running commands' process
 *	  groups, answer what is in flight, remove the socket, exit 0.
 *
 *	  Example: wickfs daemon --listen 127.0.0.1:9090 --token-file /run/wickfs.token
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#define FOR_daemon
#include "applet_opts.h"
#include "applet.h"
#include "buf.h"
#include "bytes.h"
#include "mcp.h"
#include "netaddr.h"
#include "settings.h"
#include "daemon.h"
#include "mounts.h"

/* What the daemon reads from its environment, for itself (its spec's
 * $VARs, and DAEMON_CGROUP_DIR, for tests: where the cgroup files are):
 * removed once read, so that no command it starts sees them (the token
 * above all). WICKFS_ROOT and the read-only modes stay: nested wickfs
 * calls obey them. WICKFS_OUTPUT goes too. */
static void drop_own_env(const struct applet *a)
{
	const char *name;
	int i;

	for (i = 0; a->opts[i].names; i++)
		for (name = applet_env_names[a->opts[i].env]; *name; name += strlen(name) + 1)
			unsetenv(name);
	unsetenv("DAEMON_CGROUP_DIR");
	/* its answers, and the wickfs commands it spawns, are JSON: the
	 * hosts read them */
	unsetenv("WICKFS_OUTPUT");
}

/* A string option: flag, else environment (the spec's $VAR); NULL when
 * neither. Kept in the arena: the environment's copy is about to go. */
static const char *str_opt(struct req *r, int opt)
{
	const char *v = opt_str(r, opt);

	return v && *v ? arena_strdup(r->arena, v) : NULL;
}

/* Flag, else environment, else default; "off" or "none" disables. */
static const char *addr_opt(struct req *r, int opt, const char *dflt)
{
	const char *v = str_opt(r, opt);

	if (!v)
		v = dflt;
	if (!v || !*v || !strcmp(v, "off") || !strcmp(v, "none"))
		return NULL;
	return v;
}

/* Overwrite a secret where /proc/PID/cmdline or /proc/PID/environ shows
 * it (argv and the initial environment are read from our memory). */
static void scrub(const char *s)
{
	if (s)
		memset((char *)s, 0, strlen(s));
}

/* The token: --token-file, --token, DAEMON_TOKEN_FILE or DAEMON_TOKEN (a
 * flag beats both variables), copied into the arena; its sources
 * scrubbed. 0, or -1 (said on err). */
static int get_token(struct req *r, const char **tok)
{
	const char *file = opt_str(r, OPT_token_file), *t = opt_str(r, OPT_token);
	char b[4097];
	size_t n = 0, len;
	ssize_t k = 0;
	int fd;

	*tok = NULL;
	if (opt_has(r, OPT_token_file) && opt_has(r, OPT_token)) {
		buf_printf(r->err, "wickfs daemon: give --token-file or --token, not both\n");
		return -1;
	}
	if (opt_has(r, OPT_token))
		file = NULL;
	else if (file)
		t = NULL;
	if (file) {
		if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
			k = -1;
		while (fd >= 0 && n < sizeof(b) - 1 &&
		       ((k = read(fd, b + n, sizeof(b) - 1 - n)) > 0 || (k < 0 && errno == EINTR)))
			n += k > 0 ? (size_t)k : 0;
		if (k < 0)
			buf_printf(r->err, "wickfs daemon: token file %s: %s\n", file,
				   strerror(errno));
		if (fd >= 0)
			close(fd);
		if (k < 0)
			return -1;
		for (len = 0; len < n && b[len] && b[len] != '\n' && b[len] != '\r'; len++)
			;
		if (!len || len == sizeof(b) - 1 || (len < n && !b[len])) {
			buf_printf(r->err, "wickfs daemon: token file %s: want one "
					   "line of 1 to 4095 bytes, no NUL\n",
				   file);
			return -1;
		}
		b[len] = 0;
		t = b;
	}
	if (t && *t && !(*tok = arena_strdup(r->arena, t)))
		return -1;
	if (t != b)
		scrub(t);
	memset(b, 0, sizeof(b));
	return 0;
}

/* --max-memory, else the default: 64 MiB, or 1/8 of the container's
 * memory limit when that is less (at least 4 MiB). */
static void memory_budget(struct req *r, struct daemon_opts *o)
{
	const char *dir = settings_env(r->ctx->set, "DAEMON_CGROUP_DIR");
	long long v = opt_num(r, OPT_max_memory);
	unsigned long long cg;

	if (v) {
		o->max_memory = (size_t)v;
		o->memory_from = "--max-memory";
		return;
	}
	cg = daemon_cgroup_limit(dir && *dir ? dir : "/sys/fs/cgroup");
	o->max_memory = DAEMON_DEFAULT_MAX_MEMORY;
	if (cg && cg / 8 < DAEMON_DEFAULT_MAX_MEMORY) {
		o->max_memory = cg / 8 < (4u << 20) ? (4u << 20) : (size_t)(cg / 8);
		o->memory_from = arena_printf(r->arena, "1/8 of the cgroup memory "
							"limit, %llu bytes",
					      cg);
	} else {
		o->memory_from = cg ? arena_printf(r->arena, "the default; the cgroup "
							     "memory limit is %llu bytes",
						   cg)
				    : "the default; no cgroup memory limit";
	}
	if (!o->memory_from)
		o->memory_from = "the cgroup";
}

/* --mcp-listen: wickfs mcp's HTTP transport on a thread of ours, for the
 * daemon's life: one port for hosts that speak our protocol, another for
 * MCP clients, one workspace. */
static struct mcp_server mcp;
static struct mcp_http_opts mcp_o;

static void *mcp_thread(void *fd)
{
	struct buf err;

	buf_init(&err);
	mcp_http_run(&mcp, &mcp_o, (int)(long)fd, &err);
	bytes_write_all(2, "wickfs daemon: --mcp-listen: ", 29);
	bytes_write_all(2, err.p ? err.p : "stopped\n", err.p ? err.len : 8);
	buf_free(&err);
	return NULL;
}

static int start_mcp(struct req *r, const struct daemon_opts *o, const char *addr)
{
	const char *dir = r->ctx->root && *r->ctx->root ? r->ctx->root : ".";
	static const char *const no_origins[] = {NULL};
	pthread_attr_t at;
	pthread_t th;
	struct buf err;
	int fd;

	buf_init(&err);
	mcp.readonly = o->readonly;
	mcp.readonly_exec = o->readonly_exec;
	mcp.set = r->ctx->set;
	mcp.max_result = 100000;
	mcp_o = (struct mcp_http_opts){addr, o->token, no_origins, 64u << 20, 256u << 20, 256};
	if (mcp_set_dirs(&mcp, &dir, 1, &err) || (fd = mcp_http_listen(&mcp_o, &err)) < 0) {
		buf_printf(r->err, "wickfs daemon: --mcp-listen: %.*s", (int)err.len,
			   err.p ? err.p : "no directory\n");
		buf_free(&err);
		return -1;
	}
	buf_free(&err);
	signal(SIGPIPE, SIG_IGN);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 2u << 20);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, mcp_thread, (void *)(long)fd)) {
		buf_printf(r->err, "wickfs daemon: --mcp-listen: cannot start a thread\n");
		close(fd);
		return -1;
	}
	return 0;
}

int daemon_main(struct req *r)
{
	struct daemon_opts o;
	struct settings *set;
	const char *allow;
	int i;

	memset(&o, 0, sizeof(o));
	o.listen = addr_opt(r, OPT_listen, DAEMON_DEFAULT_LISTEN);
	o.socket = addr_opt(r, OPT_socket, DAEMON_DEFAULT_SOCKET);
	o.socket_default = !str_opt(r, OPT_socket);
	if (get_token(r, &o.token))
		return 1;
	if (o.token) /* no same-user process may read our memory for it */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if ((allow = str_opt(r, OPT_allow_from))) {
		char err[200];
		int n = 1;
		for (i = 0; allow[i]; i++)
			n += allow[i] == ',';
		o.allow = arena_alloc(r->arena, (size_t)n * sizeof(*o.allow));
		if (!o.allow || (o.nallow = netaddr_cidr_parse(allow, (struct netaddr_cidr *)o.allow,
							       n, err, sizeof(err))) < 0) {
			buf_printf(r->err, "wickfs daemon: --allow-from: %s\n",
				   o.allow ? err : "out of memory");
			return 1;
		}
	}
	/* Defaults, variables and ranges are the spec's (the APPLET line). */
	o.max_line = (size_t)opt_num(r, OPT_max_line);
	memory_budget(r, &o);
	o.line_timeout = (int)opt_num(r, OPT_line_timeout);
	o.write_timeout = (int)opt_num(r, OPT_write_timeout);
	o.max_output = (size_t)opt_num(r, OPT_max_output);
	o.workers = (int)opt_num(r, OPT_workers);
	o.lanes = opt_str(r, OPT_lanes) ? (int)opt_num(r, OPT_lanes) : -1;
	o.max_conns = (int)opt_num(r, OPT_max_conns);
	o.max_procs = (int)opt_num(r, OPT_max_procs);
	o.max_background = (int)opt_num(r, OPT_max_background);
	o.poll_us = (int)opt_num(r, OPT_poll_us);
	o.verbose = opt_has(r, OPT_v);
	o.lifeline = opt_has(r, OPT_lifeline);
	o.readonly = r->ctx->readonly;
	o.readonly_exec = r->ctx->readonly_exec;
	/* What requests start from and may change (settings_request): ours,
	 * without the environment, whose variables are resolved by now. */
	if (!(set = arena_alloc(r->arena, sizeof(*set))))
		return reply_error(r, "daemon: out of memory");
	*set = *r->ctx->set;
	set->env = NULL;
	set->max_output = o.max_output;
	o.settings = set;
	drop_own_env(r->applet);
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
	/* before any thread: a namespace is the calling thread's */
	if (opt_has(r, OPT_mount)) {
		char err[8500];
		const char **m;
		struct buf e;
		opt_list(r, OPT_mount, &m);
		buf_init(&e);
		if (mounts_check(m, &e)) {
			buf_printf(r->err, "wickfs daemon: %.*s", (int)e.len, e.p);
			buf_free(&e);
			return 2;
		}
		if (mounts_bind(m, err, sizeof(err))) {
			buf_printf(r->err, "wickfs daemon: %s\n", err);
			return 1;
		}
		o.mounts = m;
	}
	if (str_opt(r, OPT_mcp_listen) && start_mcp(r, &o, str_opt(r, OPT_mcp_listen)))
		return 1;
	return daemon_run(&o);
}
