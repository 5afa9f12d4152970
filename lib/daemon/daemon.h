/* daemon.h - the NDJSON daemon (PROTOCOL.md sections 3 and 4) */
#ifndef WFS_DAEMON_H
#define WFS_DAEMON_H

#include <stddef.h>

#define DAEMON_DEFAULT_LISTEN "0.0.0.0:9090"
#define DAEMON_DEFAULT_SOCKET "/tmp/wick-daemon.sock"
#define DAEMON_DEFAULT_MAX_LINE (10u << 20)
#define DAEMON_DEFAULT_TIMEOUT 120 /* seconds, as the reference */
#define DAEMON_DEFAULT_MAX_BUFFERED (256u << 20)
#define DAEMON_DEFAULT_LINE_TIMEOUT 10 /* seconds */

struct net_cidr;

struct daemon_opts {
	const char *listen;  /* TCP "host:port"; NULL: off */
	const char *socket;  /* Unix socket path; NULL: off */
	const char *token;   /* required "token" field; NULL: none */
	size_t max_line;     /* longest request line */
	size_t max_buffered; /* request bytes held over all connections */
	int line_timeout;    /* seconds an unfinished line may take */
	const struct net_cidr *allow; /* TCP peers accepted; NULL: any */
	int nallow;
	size_t max_output;   /* per stream of a command */
	int workers;         /* threads for in-process applets */
	int max_conns;
	int max_procs;       /* commands running at once; more wait */
	int verbose;         /* log every request */
	int poll_us;         /* busy-poll window after an in-process answer */
	int readonly;        /* WICKFS_READONLY: refuse writes and commands */
	int readonly_exec;   /* WICKFS_READONLY_EXEC: ... but run commands */
	const char *root;    /* the workspace root, resolved; NULL: none */
};

/* Serve until SIGTERM/SIGINT. Returns the process exit status. */
int daemon_run(const struct daemon_opts *o);

#endif
