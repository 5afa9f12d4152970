/* mounts.h - --mount VPATH=DIR[:ro] (lib/mounts.c): its rules, the
 * daemon's binds, a mount namespace of our own. */
#ifndef WFS_MOUNTS_H
#define WFS_MOUNTS_H

#include <stddef.h>

struct buf;

/* "VPATH=DIR[:ro]": VPATH's length, DIR into dir (dirlen bytes; 0: not
 * copied), ro. 0, or -1 when it is not of that form. */
int mounts_split(const char *m, size_t *vlen, char *dir, size_t dirlen, int *ro);
/* The rules: VPATH absolute and clean, not "/", none inside another, DIR
 * a directory. 0, or -1 with a line per bad mount in err. */
int mounts_check(const char *const *mounts, struct buf *err);
/* A mount namespace of the process's own, propagation private (a user
 * namespace too, the same ids, without CAP_SYS_ADMIN): 1 with a user
 * namespace, 0 without, -1 with the step that failed in *why and errno. */
int mounts_unshare(const char **why);
/* In a namespace of our own, each DIR bind-mounted on its VPATH (which
 * must be a directory), read-only for :ro. Before any thread. 0, or -1
 * with why in err. */
int mounts_bind(const char *const *mounts, char *err, size_t n);
/* The read-only mount whose VPATH holds the absolute path abs (its
 * length in *vlen), or NULL. */
const char *mounts_ro_of(const char *const *mounts, const char *abs, size_t *vlen);

#endif
