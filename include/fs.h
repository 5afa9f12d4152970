/* fs.h - ls, read, and the file helpers the operations share (lib/fs.c) */
#ifndef WFS_FS_H
#define WFS_FS_H

#include <stddef.h>
#include <sys/stat.h>
#include "ctx.h"

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
