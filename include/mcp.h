/* mcp.h - a Model Context Protocol server over stdio or Streamable HTTP
 * (lib/mcp/)
 *
 * Newline-delimited JSON-RPC 2.0 on two descriptors, or one message per
 * HTTP POST. Tools act through
 * the wfs_* operations with the context's root set, for each path, to the
 * allowed directory that holds it: the same descriptor-based confinement
 * as --root, for several roots.
 */
#ifndef WFS_MCP_H
#define WFS_MCP_H

#include <stddef.h>
#include "buf.h"

struct arena;
struct json_val;

#define MCP_RESULT_MAX 100000 /* bytes of a tool's text by default */

struct mcp_server {
	char **dirs;  /* allowed directories, resolved (malloc'd) */
	char **given; /* each as given, made absolute and cleaned */
	size_t ndirs;
	int *dirs_refs; /* the three arrays' holders (HTTP sessions share them) */
	/* --mount VPATH=DIR[:ro], NULL-ended (checked by mounts_check):
	 * after the directories, each with given VPATH; ro[i] marks a
	 * read-only one among dirs. */
	const char *const *mounts;
	unsigned char *ro;
	int readonly, readonly_exec; /* the context's modes */
	const struct settings *set;  /* the front end's (limits); NULL: defaults */
	int no_commands;             /* run_command hidden */
	size_t max_result;           /* 0: MCP_RESULT_MAX */
	int in_fd, out_fd;
	/* protocol state, set by mcp_serve */
	int client_roots, log_level;
	unsigned roots_asked; /* id of the roots/list request in flight */
	char version[16];
	struct buf late;   /* input read while a tool ran, not yet handled */
	const char *ahead; /* input read before it, not yet handled */
	size_t ahead_len;
	/* Where messages go when set (HTTP): each one whole, no newline;
	 * else they are written to out_fd. */
	void (*emit)(struct mcp_server *s, const char *msg, size_t len);
	void *emit_data;
	/* With emit: where our own requests (roots/list) go, since they
	 * answer no request: the session's GET stream. */
	void (*ask)(struct mcp_server *s, const char *msg, size_t len);
	int hup_fd; /* with emit: the connection, whose hangup cancels a long tool */
	/* When set, told of a long tool's start (its cancel flag) and end
	 * (NULL), so that a cancel arriving elsewhere can reach it. */
	void (*running)(struct mcp_server *s, const struct json_val *id, volatile int *cancel);
};

/* The Streamable HTTP transport's settings (mcp_http_serve). */
struct mcp_http_opts {
	const char *listen;         /* HOST:PORT */
	const char *token;          /* NULL: none asked */
	const char *const *origins; /* allowed besides localhost's; NULL-ended */
	size_t max_body;            /* a POST's body, bytes */
	size_t max_memory;          /* bodies and answers held at once, bytes */
	int max_conns;
};

/* Replace the allowed directories by paths[0..n) and the mounts: each
 * resolved (realpath) and kept when it is a directory; what is skipped is
 * said in err. 0, or -1 when none is left (the old list is then kept). */
int mcp_set_dirs(struct mcp_server *s, const char *const *paths, size_t n,
		 struct buf *err);
/* Let go of s's allowed directories (freed with their last holder);
 * mcp_hold_dirs makes one more holder, for a copy of s. */
void mcp_free_dirs(struct mcp_server *s);
void mcp_hold_dirs(struct mcp_server *s);

/* Stop the daemon that runs the background processes' tools, if one was
 * started (lib/mcp/procs.c), and remove its directory. */
void mcp_procs_stop(void);

/* Serve until the input ends. Logs go to fd 2. Returns the exit status. */
int mcp_serve(struct mcp_server *s);

/* Handle one JSON-RPC message; what it answers goes out through s (both
 * transports call this). a is reset by the caller. */
void mcp_handle(struct mcp_server *s, struct arena *a, const char *msg, size_t n);

/* Serve s's tools over HTTP at /mcp until killed: the exit status, with
 * why it could not start in err. */
int mcp_http_serve(const struct mcp_server *s, const struct mcp_http_opts *o,
		   struct buf *err);
/* The same in two steps, for a front end that serves it beside its own
 * work: bind (the listening line to fd 2; the socket, or -1 with why in
 * err), then serve on it until killed. */
int mcp_http_listen(const struct mcp_http_opts *o, struct buf *err);
int mcp_http_run(const struct mcp_server *s, const struct mcp_http_opts *o, int fd,
		 struct buf *err);

#endif
