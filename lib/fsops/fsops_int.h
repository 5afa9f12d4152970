/* fsops_int.h - what the files of lib/fsops/ share: the directory that
 * holds a name, opened beneath the root when confined. */
#ifndef WFS_FSOPS_INT_H
#define WFS_FSOPS_INT_H

#include "ctx.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif
#define MAX_DEPTH 256

/* A name in an opened directory. */
struct fsops_at {
	int dirfd;
	const char *name;
	int missing; /* seen not to exist (into_dir): nothing to lock */
};

/* Split path into its directory and last component, trailing slashes
 * dropped ("a/b/" -> "a", "b"). */
int fsops_split(struct wfs_ctx *c, const char *path, char **dir, char **base);
/* Open the directory holding path's last component (see at.c). */
int fsops_open_at(struct wfs_ctx *c, const char *op, const char *path,
		  int follow, int create, struct fsops_at *a);
void fsops_close_at(struct fsops_at *a);
/* Remove everything in the directory dfd, depth-first (path names it in
 * messages; *removed counts what went). */
int fsops_rm_tree(struct wfs_ctx *c, const char *path, int dfd, int depth,
		  long long *removed);
/* "." or "..". */
int fsops_is_dot(const char *n);

#endif
