/* confine.h - paths held beneath the workspace root (lib/confine.c) */
#ifndef WFS_CONFINE_H
#define WFS_CONFINE_H

#include <sys/types.h>
#include "ctx.h"

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
/* The same, with the resolved path written to canon when it is beneath. */
int confine_canon(const char *root, const char *path, char *canon, size_t canonlen, char *why,
		  size_t whylen);
/* realpath(3) in out (PATH_MAX + 1 bytes): every symlink resolved, the
 * path existing; NULL with errno. (musl's is 1.4 KB more.) */
char *wfs_realpath(const char *path, char *out);
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

#endif
