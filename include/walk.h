/* walk.h - the reference's directory walk: lexical, pre-order, with skips */
#ifndef WFS_WALK_H
#define WFS_WALK_H

#include <stddef.h>
#include "ctx.h"

/* What a tree walk descends into (lib/walk.c): grep's and glob's. */
struct walk_opts {
	int hidden;    /* directories whose name starts with '.' */
	int no_skip;   /* node_modules, __pycache__, vendor */
	int gitignore; /* honour .gitignore files */
	/* A directory that could not be read (called with the walk's arg);
	 * NULL: skipped quietly, as the reference does. */
	void (*on_error)(void *arg, const char *path, int err);
};

enum walk_type {
	WALK_FILE,
	WALK_DIR,
	WALK_LINK,
	WALK_OTHER
};

struct walk_ent {
	const char *path;    /* root joined with the relative path, cleaned */
	const char *rel;     /* relative to the root ("" for the root) */
	const char *name;    /* base name */
	int dirfd;           /* for *at() calls, valid during the callback: */
	const char *at;      /* the entry is at in dirfd ("" for the root:
			     * dirfd is the root itself, use AT_EMPTY_PATH) */
	enum walk_type type; /* from lstat (the root: from stat) */
	int depth;           /* 0 for the root */
};

/* Paths a walk or a search could not read, with the cause: a bounded
 * list (WALK_MAX_ERRORS kept, every one counted), in the ctx's arena. */
#define WALK_MAX_ERRORS 100
struct walk_errors {
	struct walk_error {
		const char *path, *error;
	} * v;
	size_t n;
	unsigned long long total;
};
/* Record path's failure (err an errno). Not thread-safe: the arena. */
void walk_error_add(struct wfs_ctx *c, struct walk_errors *e, const char *path, int err);
/* ,"errors":[{"path","error"}],"errors_total":N, when there is any: the
 * reference's shape is unchanged when everything could be read. */
void walk_errors_json(struct buf *b, const struct walk_errors *e);
/* A failure worth telling: not a file that vanished, nor a symlink
 * swapped in or refused by the confinement. */
int walk_error_worth(int err);

/* Callback results. */
#define WALK_CONTINUE 0
#define WALK_SKIP 1 /* for a directory: do not descend */
#define WALK_STOP 2

typedef int (*walk_fn)(void *arg, const struct walk_ent *e);

/* Open the walk's root (default ".") for wfs_walk() with flags (O_PATH, or
 * O_RDONLY | O_NONBLOCK to read a file root too), beneath the
 * workspace root when confined. 0 with *fd, -1 when -1 with ctx->err set
 * (refused by the confinement); *fd < 0 with 0 when the root does not
 * exist or cannot be opened: not an error, the reference finds nothing. */
int walk_open_root(struct wfs_ctx *c, const char *op, const char *root,
		   int flags, int *fd);
/* Walk the tree at rootfd (not closed here), named root (default ".") in
 * the paths given to fn. Directories are entered by openat(O_NOFOLLOW)
 * relative to their parent's descriptor. Returns 0, or -1 with ctx->err
 * set (deadline, cancel). */
int wfs_walk(struct wfs_ctx *c, const char *root, int rootfd,
	     const struct walk_opts *o, walk_fn fn, void *arg);

/* The reference's skip rule for files (binary and archive extensions),
 * which grep applies. */
int walk_skip_ext(const char *name);

#endif
