/* walk.h - the reference's directory walk: lexical, pre-order, with skips */
#ifndef WFS_WALK_H
#define WFS_WALK_H

#include <stddef.h>
#include "wickfs.h"

enum walk_type { WALK_FILE, WALK_DIR, WALK_LINK, WALK_OTHER };

struct walk_ent {
	const char *path;   /* root joined with the relative path, cleaned */
	const char *rel;    /* relative to the root ("" for the root) */
	const char *name;   /* base name */
	int dirfd;          /* for *at() calls, valid during the callback: */
	const char *at;     /* the entry is at in dirfd ("" for the root:
			     * dirfd is the root itself, use AT_EMPTY_PATH) */
	enum walk_type type; /* from lstat (the root: from stat) */
	int depth;          /* 0 for the root */
};

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
