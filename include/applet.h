/* applet.h - what an applet sees: its request, options and reply helpers.
 *
 * Applets are re-entrant: no exit(), no mutable globals, output only into
 * r->out / r->err, memory from r->arena. The CLI and the daemon fast path
 * build a struct req and call applet_run(); both print the same bytes.
 *
 * Front-end neutral: lib (applet.c, the daemon) includes it too. An
 * applet's own OPT_x constants are generated apart: it defines FOR_name
 * and includes "applet_opts.h" before this header, which only applets do.
 */
#ifndef WFS_APPLET_H
#define WFS_APPLET_H

#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "buf.h"
#include "reply.h"
#include "wickfs.h"

#define APPLET_MAX_OPTS 32

struct applet;

/* One option of an applet, from its spec (scripts/gen-applets.sh turns
 * the spec into this table at build time, and OPT_x constants into
 * build/gen/applet_opts.h). */
#define OPT_NUM_MIN INT32_MIN /* no lower bound */
#define OPT_NUM_MAX INT32_MAX /* no upper bound */
struct optdef {
	const char *names; /* "l|files-with-matches" */
	char type;         /* 0 flag, ':' string, '*' list, '#' integer */
	unsigned char env; /* ':' '#': default from applet_env_names[env]; 0 none */
	int32_t min, max;  /* '#': the accepted range */
	int32_t dflt;      /* '#': the value when not given */
	uint32_t excl;     /* bit i: cannot be combined with option i */
};

struct opt_val {
	int seen;        /* how many times given */
	const char *str; /* last value of a string/number option, or its
			    environment default */
	long long num;
	const char **list; /* every value of a repeatable option */
	int nlist;
	size_t cap; /* room in list */
};

struct req {
	const struct applet *applet;
	int argc; /* positional arguments, options removed */
	char **argv;
	struct opt_val opt[APPLET_MAX_OPTS]; /* by OPT_x index */

	/* stdin: a buffer (daemon) or a descriptor read on demand (CLI). */
	const char *in;
	size_t in_len;
	int in_fd; /* -1 when `in` is the whole input */
	int in_loaded;

	struct buf *out; /* stdout: the envelope */
	int out_stream;  /* CLI: req_flush may write out to fd 1 early */
	struct buf *err; /* stderr: diagnostics */
	struct arena *arena;
	struct wfs_ctx *ctx;
	int text;          /* answer for people (text.h), not in JSON */
	int escaped_paths; /* positionals in path_unescape's form */
	int text_done;     /* the applet wrote its text form itself */
};

typedef int (*applet_main_fn)(struct req *r);
/* An applet's own text form (lib/text.h): given the answer's data (ok)
 * or its error string, write to r->out and r->err; the exit status. */
struct json_val;
typedef int (*applet_text_fn)(struct req *r, int ok, const struct json_val *v);

struct applet {
	const char *name;
	const struct optdef *opts; /* ends with names NULL */
	int min_args, max_args;    /* max -1: unlimited */
	unsigned flags;
	unsigned help; /* where its text starts in the help blob */
	applet_main_fn main;
	applet_text_fn text; /* NULL: the generic form */
};

#define APPLET_STOP_AT_ARG 1u /* options end at the first positional */
#define APPLET_CLI_ONLY 2u    /* never run in-process by the daemon */
/* What the daemon needs to know, so that it never names an applet: */
#define APPLET_LOOP_OK 4u    /* cheap enough for the event loop when its
				 file (argv[0]) is small */
#define APPLET_LOOP_PROBE 8u /* ... tried there without a stat: gives up
				 by itself on a big file (ctx read_max) */
#define APPLET_LOOP_DIR 16u  /* ... a small directory is cheap too */
/* Policy: what the applet does, enforced by applet_run for every front
 * end, so that no applet checks a mode itself. */
#define APPLET_SPAWNS 32u /* runs a command: refused in read-only mode
				 unless WICKFS_READONLY_EXEC; the daemon
				 starts it from its loop, not a worker */
#define APPLET_WRITES 64u /* changes files: refused in read-only mode,
				 naming its last positional (the target,
				 as in cp, mv, chmod); a write that depends
				 on an option calls wfs_writable instead */
/* Its arguments are no workspace paths (an address, a socket, a
 * command): the root does not apply, by design. Such an applet is CLI
 * only too, so no request (daemon, MCP) ever reaches it. */
#define APPLET_OUTSIDE_ROOT (128u | APPLET_CLI_ONLY)
/* Its input is stdin (write's content, edit's JSON, a patch): a request
 * (daemon, MCP) without "stdin" is refused rather than taken as empty;
 * "" is empty. */
#define APPLET_STDIN (1u << 12)
/* CLI only, but a request in our form may still ask for it: the daemon
 * then runs it as a command, this binary in its own process (its reads
 * unconfined, as a command's), answered as exec is: {"stdout","stderr",
 * "exit_code"}. Refused in read-only mode as a command is. */
#define APPLET_DAEMON_SPAWN (1u << 13)
/* The reference's form: exactly N positional arguments (the Go host sends
 * `grep PATTERN PATH`, `read PATH`, `exec COMMAND`, never "--"). Given
 * exactly N arguments, the applet takes every one literally, even "-i" or
 * "--help"; options apply only beyond that form, or after "--". */
#define APPLET_REF(n) ((unsigned)(n) << 8)
#define APPLET_REF_ARGS(flags) ((int)(((flags) >> 8) & 15u))

/* The generated table (build/gen/applets.c). */
extern const struct applet applet_table[];
extern const size_t applet_count;
/* Every applet's help text, gzip'ed (scripts/gen-applets.sh). */
extern const unsigned char applet_help_gz[];
extern const size_t applet_help_gz_size, applet_help_size;
/* a's help text (usage line first, an example last), in arena ar; NULL
 * when out of memory. */
const char *applet_help(const struct applet *a, struct arena *ar);
/* The variables options take their defaults from (the first one set), by
 * struct optdef's env: names, each ending in NUL, then an empty one (a
 * spec's $A|B is "A\0B\0"); read from r->ctx->set->env. */
extern const char *const applet_env_names[];
/* The applet of exactly this name, or NULL. */
const struct applet *applet_find(const char *name);
/* The applet a command name stands for: NAME, a wickfs-NAME link (what
 * --install makes), or the reference's daemon names (wick-daemon,
 * wickdaemon). The CLI looks up argv[0]'s base name and its first
 * argument with it. */
const struct applet *applet_alias(const char *name);
/* The applet a shell command's words w[0..n) would run, and in *used how
 * many words name it: `wickfs APPLET ...` or `wickfs-APPLET ...` (either
 * word a path or not); NULL for anything else: a bare `ls` is the
 * system's ls there, not ours. */
const struct applet *applet_of_command(char *const *w, int n, int *used);

/* The request every front end (CLI, daemon, MCP) builds: no options, no
 * input (in "" of length 0), output into out and err, memory from a,
 * operations in ctx. The CLI then reads stdin on demand (in_fd 0,
 * out_stream 1); the daemon sets in and in_len. */
void req_init(struct req *r, struct arena *a, struct wfs_ctx *ctx,
	      struct buf *out, struct buf *err);

/* Parse options, handle --help and argument counts, refuse what the
 * applet's policy flags forbid in r->ctx's modes, run the applet.
 * argv[0] is the first argument after the applet name. Returns the exit
 * status: 0 ok, 1 error envelope, 2 usage. */
int applet_run(const struct applet *a, struct req *r, int argc, char **argv);

/* Options by their OPT_x constant. opt_has: how many times given;
 * opt_num: the value, or its default (the environment's, else the
 * spec's); opt_str: the value, or the environment's; NULL when neither;
 * opt_list: every value of a repeatable option (NULL-ended; NULL when
 * it was not given). */
static inline int opt_has(const struct req *r, int i)
{
	return r->opt[i].seen;
}
static inline const char *opt_str(const struct req *r, int i)
{
	return r->opt[i].str;
}
static inline long long opt_num(const struct req *r, int i)
{
	return r->opt[i].num;
}
static inline int opt_list(const struct req *r, int i, const char ***vals)
{
	*vals = r->opt[i].list;
	return r->opt[i].nlist;
}

/* A tree applet's walk options (grep, glob), by its OPT_x constants. */
static inline struct walk_opts opt_walk(const struct req *r, int hidden,
					int no_skip, int gitignore)
{
	struct walk_opts w = {opt_has(r, hidden), opt_has(r, no_skip),
			      opt_has(r, gitignore), NULL};
	return w;
}

/* An applet's --progress (option opt): p set up to draw its line on
 * stderr when stderr is a terminal (redrawn in place, the last one kept),
 * else NULL: quiet in pipes, logs and files. */
struct wfs_progress;
struct wfs_progress *req_progress(struct req *r, int opt, struct wfs_progress *p);

/* Streaming applets (grep) call this between items: in the CLI it writes
 * what is buffered to stdout once it is large, so memory stays bounded
 * however large the output; elsewhere it does nothing. */
void req_flush(struct req *r);

/* stdin as one buffer (read fully on first use). -1 on read error. */
int req_stdin(struct req *r, const char **data, size_t *len);

/* The envelope helpers, reply_ok_begin ... reply_buf: include/reply.h. */

#endif
