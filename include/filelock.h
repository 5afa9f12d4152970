/* filelock.h - a file locked for a read-modify-write that loses nothing
 *
 * The lock is the one write and edit take (lib/write.c): flock() of the
 * inode currently at the path, re-checked after locking. New content is
 * staged in a temp file in the target's directory, then renamed over it,
 * so a kill at any instant leaves the old or the new content.
 */
#ifndef WFS_FILELOCK_H
#define WFS_FILELOCK_H

#include <stddef.h>
#include <sys/stat.h>
#include "wickfs.h"

struct wfs_locked {
	char *target;     /* the path with links resolved (checked beneath
			     the root when confined) */
	int dirfd;        /* its directory, O_PATH (confined: opened beneath) */
	const char *name; /* its last component */
	int fd;           /* the locked file, -1 when it does not exist */
	struct stat st;   /* its metadata when fd >= 0 */
};

/* Resolve and lock path. create: a missing file (and missing parents) is
 * fine, fd is then -1; else a missing file is an error. 0 or -1. */
int wfs_lock_file(struct wfs_ctx *c, const char *op, const char *path,
		  int create, struct wfs_locked *l);
void wfs_unlock(struct wfs_locked *l);
/* Write data to a new temp file in dirfd (mode and owner of old when
 * given); *tmp is its name. Then wfs_commit renames it over name. */
int wfs_stage(struct wfs_ctx *c, const char *op, int dirfd, const char *target,
	      const char *data, size_t len, const struct stat *old, char **tmp);
int wfs_commit(struct wfs_ctx *c, const char *op, int dirfd, const char *tmp,
	       const char *name, const char *target);

#endif
