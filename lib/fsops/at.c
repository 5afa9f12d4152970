/* at.c - the directory that holds a name: every operation of lib/fsops/
 * acts on a name in a directory opened first, beneath the root when
 * confined, by a walk from the root that follows no link (lib/confine.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "fsops.h"
#include "fsops_int.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "json.h"
/* Split path into its directory and last component, trailing slashes
 * dropped ("a/b/" -> "a", "b"). */
int fsops_split(struct wfs_ctx *c, const char *path, char **dir, char **base)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (s = path + n; s > path && s[-1] != '/'; s--)
		;
	*base = arena_strndup(c->arena, s, (size_t)(path + n - s));
	if (s == path)
		*dir = arena_strdup(c->arena, ".");
	else if (s == path + 1)
		*dir = arena_strdup(c->arena, "/");
	else
		*dir = arena_strndup(c->arena, path, (size_t)(s - 1 - path));
	if (!*dir || !*base)
		return wfs_fail(c, "%s: out of memory", path);
	return 0;
}

/* mkdir -p of dir (unconfined). */
static int mkdir_parents(struct wfs_ctx *c, const char *op, char *dir)
{
	char *s, ch;

	for (s = dir + 1;; s++) {
		if (*s && *s != '/')
			continue;
		ch = *s;
		*s = 0;
		if (mkdir(dir, 0755) && errno != EEXIST) {
			int e = errno;
			*s = ch;
			return wfs_fail_errno(c, op, dir, e);
		}
		*s = ch;
		if (!ch)
			return 0;
	}
}

/* Open the directory holding path's last component. follow: the last
 * component is resolved too (its final target's directory is opened).
 * Confined, a last component "." or ".." (or the root itself) is first
 * resolved, so that the name acted on is a real entry beneath the root. */
int fsops_open_at(struct wfs_ctx *c, const char *op, const char *path,
		  int follow, int create, struct fsops_at *a)
{
	char *dir, *base, *canon;
	int fd;

	a->dirfd = -1;
	a->missing = 0;
	if (!*path)
		return wfs_fail(c, "%s: empty path", op);
	if (!c->root) {
		const char *p = follow ? fs_resolve_links(c, path) : path;
		if (!p || fsops_split(c, p, &dir, &base))
			return -1;
		fd = fs_open_raw(dir, O_PATH | O_DIRECTORY);
		/* -p: the parents are made only when missing, so the
		 * common case (they exist) costs one open */
		if (fd < 0 && errno == ENOENT && create) {
			if (mkdir_parents(c, op, dir))
				return -1;
			fd = fs_open_raw(dir, O_PATH | O_DIRECTORY);
		}
		if (fd < 0)
			return wfs_fail_errno(c, op, path, errno);
		a->dirfd = fd;
		a->name = base;
		return 0;
	}
	if (fsops_split(c, path, &dir, &base))
		return -1;
	if (follow || !strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/")) {
		canon = wfs_confine_canon(c, op, path);
		if (!canon)
			return -1;
		if (!strcmp(canon, c->root)) {
			fd = wfs_confined_dir(c, op, canon, 0);
			if (fd < 0)
				return -1;
			a->dirfd = fd;
			a->name = ".";
			return 0;
		}
		if (fsops_split(c, canon, &dir, &base))
			return -1;
	}
	canon = wfs_confine_canon(c, op, dir);
	if (!canon)
		return -1;
	fd = wfs_confined_dir(c, op, canon, create);
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ENOENT)
			return wfs_fail_errno(c, op, path, errno);
		return -1;
	}
	a->dirfd = fd;
	a->name = base;
	return 0;
}

void fsops_close_at(struct fsops_at *a)
{
	if (a->dirfd >= 0)
		close(a->dirfd);
	a->dirfd = -1;
}

int fsops_is_dot(const char *n)
{
	return !strcmp(n, ".") || !strcmp(n, "..");
}
