/* wickfs.h - the operations: the C face of the seed's FileSystem interface.
 *
 * Every function takes a context, returns 0 on success or -1 with a
 * message naming the path and the cause in ctx->err. Results are allocated
 * in ctx->arena unless said otherwise. Nothing here prints or exits.
 */
#ifndef WFS_WICKFS_H
#define WFS_WICKFS_H

#include <stdarg.h>
#include <stddef.h>
#include "arena.h"
#include "buf.h"

#define WFS_VERSION "0.1.0"

/* wickfs's own state in a directory (snapshot store, restore journal and
 * its key, transfer spools) lives in a subdirectory of this name. No
 * archive unpacks into one, pack leaves it out, and confined applets
 * neither reach one by a path nor walk into one. */
#define WFS_STATE_DIR ".wickfs"

/* A memory budget shared by the threads of a daemon: the bytes it holds
 * (requests being read, answers waiting to be sent, files loaded for an
 * answer), changed with atomic operations. Files loaded for an answer and
 * answers over WFS_BUDGET_SMALL may take it up to bulk; the rest of it
 * stays for requests and small answers. */
#define WFS_BUDGET_SMALL (64u << 10)
struct wfs_budget {
	size_t used;
	size_t limit, bulk;
};

static inline void wfs_budget_add(struct wfs_budget *b, size_t n)
{
	__atomic_add_fetch(&b->used, n, __ATOMIC_RELAXED);
}
static inline void wfs_budget_sub(struct wfs_budget *b, size_t n)
{
	__atomic_sub_fetch(&b->used, n, __ATOMIC_RELAXED);
}
static inline size_t wfs_budget_used(struct wfs_budget *b)
{
	return __atomic_load_n(&b->used, __ATOMIC_RELAXED);
}

struct wfs_ctx {
	struct arena *arena;
	char err[1024];
	long long deadline_ms;      /* CLOCK_MONOTONIC ms; 0 = none */
	const volatile int *cancel; /* non-zero: stop as soon as possible */
	int readonly;               /* refuse every write, and commands */
	int readonly_exec;          /* ... but let commands run */
	const char *root;           /* WICKFS_ROOT, resolved; NULL: anywhere */
	int root_errno;             /* the root itself cannot be resolved */
	size_t read_max;            /* a file over this: fail with too_big set */
	int too_big;                /* (so the caller can run it elsewhere) */
	int own_state;              /* non-zero while wickfs opens its own
					state under a .wickfs directory, which
					confinement refuses to any path */
	struct wfs_budget *budget;  /* the daemon's memory budget; NULL: none */
	size_t budget_held;         /* taken from it by this operation */
	const struct settings *set; /* never NULL (settings.h) */
};

/* The context (lib/ctx.c) of a front end's settings s (kept, not
 * copied): their root resolved, their read-only modes. */
struct settings;
void wfs_ctx_init(struct wfs_ctx *c, struct arena *a, const struct settings *s);
/* A bare context with the root already resolved (NULL: none), as the
 * daemon does once at its start; modes off, default settings. */
void wfs_ctx_init_root(struct wfs_ctx *c, struct arena *a, const char *root);
/* The workspace root, resolved (realpath) once: NULL or "" for none. When
 * it cannot be resolved, c->root is root as given and c->root_errno says
 * why, so every confined operation fails naming it. */
void wfs_ctx_set_root(struct wfs_ctx *c, const char *root);
/* The one wording of a read-only refusal, "OP PATH: " before it; a
 * command's adds why and what allows it. */
#define WFS_READONLY_REFUSED "refused, WICKFS_READONLY is set"
#define WFS_READONLY_SPAWN_REFUSED \
	WFS_READONLY_REFUSED       \
	" (commands could write; WICKFS_READONLY_EXEC=1 allows them)"
/* 0 when c allows writes, else -1 with "OP PATH: refused, WICKFS_READONLY
 * is set" in c->err (no PATH when NULL). applet_run refuses an applet
 * declared APPLET_WRITES by itself; this is for the writes that depend
 * on an option (download --remove, pack --output). */
int wfs_writable(struct wfs_ctx *c, const char *op, const char *path);
/* Format into c->err; always returns -1. A message too long for it (a
 * 4 KiB path) loses its middle, never its end: the cause stays. */
int wfs_fail(struct wfs_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* vsnprintf into dst[n], cutting the middle of what does not fit. */
void wfs_vformat(char *dst, size_t n, const char *fmt, va_list ap);
/* strerror(err) with a lower-case first letter, as Go's errors read. */
const char *wfs_strerror(int err, char *b, size_t n);
/* With a workspace root (WICKFS_ROOT): 0 when path resolves beneath it,
 * else -1 with "OP PATH: outside the workspace root ..." in c->err
 * (confine.c). Always 0 without a root. */
int wfs_confine(struct wfs_ctx *c, const char *op, const char *path);
/* With a root: open path (flags as for open) beneath it, by the resolved
 * path and openat2 RESOLVE_BENEATH; a descriptor, or -1 with c->err set
 * (and errno the cause). */
int wfs_confined_open(struct wfs_ctx *c, const char *op, const char *path,
		      int flags);
/* With a root: the directory dir (a resolved path beneath the root, as
 * wfs_confine_canon gives) opened O_PATH by a walk from the root that
 * follows no symlink, its missing components made when create is set. */
int wfs_confined_dir(struct wfs_ctx *c, const char *op, const char *dir,
		     int create);
/* With a root: path with every symlink resolved, checked beneath it (in
 * c's arena), or NULL with c->err set. */
char *wfs_confine_canon(struct wfs_ctx *c, const char *op, const char *path);
/* The check itself, for any thread: 0, or -1 with the reason in why. */
int confine_check(const char *root, const char *path, char *why, size_t whylen);
/* With a budget: take what answering a file of size bytes costs (three
 * times its size: the data, its envelope, the response line) until the
 * daemon has answered, or -1 with "OP PATH: ..." naming the budget. 0
 * without a budget, or for a file over read_max (refused elsewhere). */
int wfs_budget_take(struct wfs_ctx *c, const char *op, const char *path,
		    unsigned long long size);
/* Non-zero once the deadline passed or cancel was set (message set). */
int wfs_expired(struct wfs_ctx *c);
/* The one clock: CLOCK_MONOTONIC in ms and ns. */
long long wfs_now_ms(void);
long long wfs_now_ns(void);

/* ls */
struct wfs_dirent {
	const char *name;
	const char *type; /* "file", "dir" or "symlink" */
	const char *kind; /* what else a "file" is, as stat names it (a fifo,
			     socket, device); NULL for a regular file */
	long long size;   /* from lstat */
};
int wfs_ls(struct wfs_ctx *c, const char *path, struct wfs_dirent **ents,
	   size_t *n);

/* read: the whole file; refuses FIFOs, sockets and devices. */
int wfs_read(struct wfs_ctx *c, const char *path, char **data, size_t *len);

/* write: atomic replace, parents created, mode (and owner as root) kept,
 * a symlink written through to its target. no_clobber (--no-clobber):
 * fails when PATH exists (EEXIST), also when it appears during the write
 * (RENAME_NOREPLACE). */
int wfs_write(struct wfs_ctx *c, const char *path, const char *data,
	      size_t len, int no_clobber);

/* edit */
enum wfs_edit_which {
	EDIT_FIRST,  /* the first occurrence */
	EDIT_ALL,    /* every occurrence (--all) */
	EDIT_UNIQUE, /* the only one: several are an error (--unique) */
};
struct wfs_edit {
	const char *old_text;
	size_t old_len;
	const char *new_text;
	size_t new_len;
	enum wfs_edit_which which;
};
int wfs_edit(struct wfs_ctx *c, const char *path, const struct wfs_edit *e,
	     int *replacements);

/* What a tree walk descends into (lib/walk.c): grep's and glob's. */
struct walk_opts {
	int hidden;    /* directories whose name starts with '.' */
	int no_skip;   /* node_modules, __pycache__, vendor */
	int gitignore; /* honour .gitignore files */
	/* A directory that could not be read (called with the walk's arg);
	 * NULL: skipped quietly, as the reference does. */
	void (*on_error)(void *arg, const char *path, int err);
};

/* grep */
struct wfs_grep_match;
struct walk_errors;
struct wfs_grep_opts {
	const char *pattern;
	const char *path; /* default "." */
	long max;         /* 200 by default; 0 = no cap */
	int ignore_case, fixed, word, multiline;
	int before, after; /* context lines */
	int files_with_matches, count;
	int gz;
	struct walk_opts walk;
	const char **include, **exclude;
	int ninclude, nexclude;
	/* When set, matches go to emit, in order, as they are found, and
	 * wfs_grep_result.matches stays empty (n still counts them). A
	 * non-zero return stops the search. */
	int (*emit)(void *arg, const struct wfs_grep_match *m);
	void *emit_arg;
};
struct wfs_grep_match {
	const char *file;
	long long line;
	const char *text;
	size_t text_len;
	int context;     /* 1: a context line, not a match */
	long long count; /* --count: matches in file */
	int text_cut;    /* the line is longer: text is its first 64 KiB */
	int skipped;     /* emit only: file is over WICKFS_MAX_FILE (for a .gz,
			  decompressed), not searched; nothing else is set */
};
struct wfs_grep_result {
	struct wfs_grep_match *matches;
	size_t n;
	int truncated;
	size_t skipped;             /* files over WICKFS_MAX_FILE */
	struct walk_errors *errors; /* files and directories not read */
};
int wfs_grep(struct wfs_ctx *c, const struct wfs_grep_opts *o,
	     struct wfs_grep_result *res);

/* glob */
struct wfs_glob_opts {
	const char *pattern;
	const char *path; /* default "." */
	long max;         /* 100 by default; 0 = no cap */
	struct walk_opts walk;
	char type;      /* 0 (reference: not directories), 'f', 'd', 'l' */
	int sort_mtime; /* newest first */
	int sort_name;  /* by path, byte order */
};
struct wfs_glob_result {
	const char **files;
	size_t n;
	int truncated;
	struct walk_errors *errors; /* directories not read */
};
int wfs_glob(struct wfs_ctx *c, const struct wfs_glob_opts *o,
	     struct wfs_glob_result *res);

/* exec: see lib/exec.c */
struct wfs_exec_opts {
	const char *command;
	const char *cwd;            /* NULL: inherit */
	const char *root;           /* the workspace root: cwd must resolve
				       beneath it (NULL: anywhere) */
	const char *cwd_label;      /* how messages name cwd ("--cwd");
				       NULL: "workdir", the daemon's field */
	const char *const *env_add; /* NULL-terminated "K=V" list, or NULL */
	const char *in;             /* stdin bytes; NULL: /dev/null */
	size_t in_len;
	long long timeout_ms; /* 0: none */
	size_t max_output;    /* per stream; 0: default 10 MiB */
};
struct wfs_exec_result {
	struct buf out, err; /* caller calls buf_free on both */
	int exit_code;       /* -1 when killed by a signal; 124 timeout */
	int timed_out;
	int out_truncated, err_truncated;
	int spawn_failed; /* sh could not start: ctx->err says why */
};
int wfs_exec(struct wfs_ctx *c, const struct wfs_exec_opts *o,
	     struct wfs_exec_result *res);

#endif
