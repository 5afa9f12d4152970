/* daemon.h - the NDJSON daemon (PROTOCOL.md sections 3 and 4) */
#ifndef WFS_DAEMON_H
#define WFS_DAEMON_H

#include <stddef.h>

#define DAEMON_DEFAULT_LISTEN "0.0.0.0:9090"
#define DAEMON_DEFAULT_SOCKET "/tmp/wick-daemon.sock"
/* The other defaults are the daemon applet's spec's, the request
 * timeout's in include/settings.h. */
#define DAEMON_DEFAULT_MAX_MEMORY (64u << 20)

struct netaddr_cidr;

struct daemon_opts {
	const char *listen;               /* TCP "host:port"; NULL: off */
	const char *socket;               /* Unix socket path; NULL: off */
	int socket_default;               /* socket is the built-in default,
					     not asked for: if it cannot be
					     made, TCP alone is served */
	const char *token;                /* required "token" field; NULL: none */
	size_t max_line;                  /* longest request line */
	size_t max_memory;                /* the budget: requests and answers held */
	const char *memory_from;          /* how max_memory was chosen, for the log */
	int line_timeout;                 /* seconds an unfinished line may take */
	int write_timeout;                /* seconds an answer may wait for its reader */
	const struct netaddr_cidr *allow; /* TCP peers accepted; NULL: any */
	int nallow;
	size_t max_output; /* per stream of a command */
	int workers;       /* threads for in-process applets */
	int lanes;         /* threads serving connections; -1: one a CPU */
	int max_conns;
	int max_procs;             /* commands running at once; more wait */
	int max_background;        /* background processes held at once */
	int verbose;               /* log every request */
	int lifeline;              /* stop when stdin ends (--lifeline) */
	int poll_us;               /* busy-poll window after an in-process answer */
	int readonly;              /* WICKFS_READONLY: refuse writes and commands */
	int readonly_exec;         /* WICKFS_READONLY_EXEC: ... but run commands */
	const char *root;          /* the workspace root, resolved; NULL: none */
	const char *const *mounts; /* --mount VPATH=DIR[:ro], bound; NULL: none */
	/* What each request's settings start from (include/settings.h) */
	const struct settings *settings;
};

/* The container's memory limit in bytes (budget.c): the smallest cgroup
 * v2 memory.max or v1 memory.limit_in_bytes of this process's cgroups
 * and their parents, under dir (/sys/fs/cgroup); 0 when none is set. */
unsigned long long daemon_cgroup_limit(const char *dir);

/* Serve until SIGTERM/SIGINT. Returns the process exit status. */
int daemon_run(const struct daemon_opts *o);
/* `wickfs __session FILE STATUS`: a session command's last step (see
 * lib/daemon/session.c); returns STATUS. */
int session_save(int argc, char **argv);

#endif
