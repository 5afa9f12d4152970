/* fsutil.h - file helpers shared by the operations */
#ifndef WFS_FSUTIL_H
#define WFS_FSUTIL_H

#include <stddef.h>
#include <sys/stat.h>
#include "wickfs.h"

/* Go-style error text: "op path: no such file or directory". */
int fs_fail_errno(struct wfs_ctx *c, const char *op, const char *path, int err);
/* "fifo", "socket", "character device", ... for a mode. */
const char *fs_type_name(mode_t m);
/* Open a regular file for reading without ever blocking on a FIFO or
 * device: refuses every other type with an error naming it. On failure
 * errno tells the cause (ENOENT when there is no such file). */
int fs_open_regular(struct wfs_ctx *c, const char *op, const char *path,
		    struct stat *st);
/* Read the whole descriptor into the arena (NUL-terminated). */
int fs_read_fd(struct wfs_ctx *c, const char *op, const char *path, int fd,
	       const struct stat *st, char **data, size_t *len);
/* Follow a chain of symlinks to the final target path (which may not
 * exist yet). Returns path itself when it is not a symlink. */
char *fs_resolve_links(struct wfs_ctx *c, const char *path);
/* open(2) with O_CLOEXEC straight to the kernel: musl's open() adds an
 * fcntl for old kernels, one syscall per file in the search loop. */
int fs_open_raw(const char *path, int flags);
/* openat(2) straight to the kernel, O_CLOEXEC added. */
int fs_openat_raw(int dirfd, const char *name, int flags);
/* fstat fd and refuse (closing it) anything but a regular file, as
 * fs_open_regular does. */
int fs_regular_fd(struct wfs_ctx *c, const char *op, const char *path, int fd,
		  struct stat *st);

/* Beneath a directory (confine.c). rel must be resolved: no "..", no
 * symlinks; a symlink met on the way was swapped in since, and fails with
 * EXDEV. openat2 RESOLVE_BENEATH, or without it (ENOSYS, or EPERM from a
 * seccomp profile) a walk of O_NOFOLLOW opens from dirfd. -1 with errno. */
int confine_openat(int dirfd, const char *rel, int flags, mode_t mode);
/* The directory rel beneath dirfd, opened O_PATH component by component
 * without following links; missing ones are made (0755) when create. */
int confine_dirat(int dirfd, const char *rel, int create);
/* Resolve path (as confine_check) and open the result beneath root
 * (through rootfd when >= 0): fd, or -1 with errno; EXDEV with the reason
 * in why for a refusal. Quiet, for any thread. */
int confine_open(const char *root, int rootfd, const char *path, int flags,
		 char *why, size_t whylen);
/* A directory opened for listing: beneath the root when confined. */
int fs_open_dir(struct wfs_ctx *c, const char *op, const char *path);
/* The same, made first (with its parents) when missing: beneath the
 * root when confined, never through a symlink that leads out. */
int fs_open_dir_made(struct wfs_ctx *c, const char *op, const char *path);
/* mkdir -p of p (written to and restored): 0, or -1 with errno the first
 * cause (a parent that could not be made says why, not its child's
 * ENOENT). */
int fs_mkdirs(char *p);
/* The process umask, read without changing it (022 when unknown). */
unsigned fs_umask(void);
/* The directory that holds path, opened as fs_open_dir does, and path's
 * last name in it (*base, inside path): for *at calls on that name. */
int fs_open_parent(struct wfs_ctx *c, const char *op, const char *path,
		   const char **base);
/* An entry of a directory listing, with its lstat. */
struct fs_dirent {
	char *name;
	struct stat st;
};
/* The entries of the directory dfd (left open) but "." and "..", sorted
 * by name, in the arena; an entry gone meanwhile is left out. */
int fs_dir_entries(struct wfs_ctx *c, const char *op, const char *path,
		   int dfd, struct fs_dirent **out, size_t *n);

#endif
