/* fs.c - ls and read, and the file helpers the other operations share
 *
 * It builds on confine.c (the workspace root) and ctx.c (errors);
 * confine.c calls nothing here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "settings.h"

const char *fs_type_name(mode_t m)
{
	if (S_ISREG(m))
		return "regular file";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISFIFO(m))
		return "fifo (named pipe)";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISLNK(m))
		return "symlink";
	return "special file";
}

int fs_openat_raw(int dirfd, const char *name, int flags)
{
	long fd = syscall(SYS_openat, dirfd, name,
			  flags | O_CLOEXEC | O_LARGEFILE | O_NOCTTY, 0);

	return (int)fd;
}

int fs_open_raw(const char *path, int flags)
{
	return fs_openat_raw(AT_FDCWD, path, flags);
}

int fs_open_regular(struct wfs_ctx *c, const char *op, const char *path,
		    struct stat *st)
{
	int fd;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. It stays
	 * set: it changes nothing for the regular file we keep. */
	if (c->root) {
		fd = wfs_confined_open(c, op, path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			return -1;
	} else {
		fd = fs_open_raw(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			return wfs_fail_errno(c, op, path, errno);
	}
	return fs_regular_fd(c, op, path, fd, st);
}

int fs_regular_fd(struct wfs_ctx *c, const char *op, const char *path, int fd,
		  struct stat *st)
{
	if (fstat(fd, st)) {
		int e = errno;
		close(fd);
		return wfs_fail_errno(c, op, path, e);
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		if (S_ISDIR(st->st_mode))
			return wfs_fail(c, "%s %s: is a directory", op, path);
		return wfs_fail(c, "%s %s: is a %s, not a regular file", op, path,
				fs_type_name(st->st_mode));
	}
	return fd;
}

int fs_read_fd(struct wfs_ctx *c, const char *op, const char *path, int fd,
	       const struct stat *st, char **data, size_t *len)
{
	size_t max = c->set->max_file, cap, n = 0;
	char *p, *np;
	ssize_t r;

	if ((unsigned long long)st->st_size > max)
		return wfs_fail(c, "%s %s: file is %lld bytes, over the %zu-byte limit (WICKFS_MAX_FILE)",
				op, path, (long long)st->st_size, max);
	if (c->read_max && (unsigned long long)st->st_size > c->read_max) {
		c->too_big = 1;
		return wfs_fail(c, "%s %s: over %zu bytes", op, path, c->read_max);
	}
	cap = (size_t)st->st_size + 1;
	p = arena_alloc(c->arena, cap + 1);
	if (!p)
		return wfs_fail(c, "%s %s: out of memory", op, path);
	for (;;) {
		if (n == cap) {
			/* The file grew (or is a /proc file): double. */
			if (cap * 2 > max + 1)
				return wfs_fail(c, "%s %s: file is over the %zu-byte limit (WICKFS_MAX_FILE)",
						op, path, max);
			np = arena_alloc(c->arena, cap * 2 + 1);
			if (!np)
				return wfs_fail(c, "%s %s: out of memory", op, path);
			memcpy(np, p, n);
			p = np;
			cap *= 2;
		}
		r = read(fd, p + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return wfs_fail_errno(c, op, path, errno);
		if (r == 0)
			break;
		n += (size_t)r;
		/* All the bytes fstat promised and a short read: that is the
		 * end of a regular file (had it grown, the read would have
		 * filled the spare byte); spare the read that says 0. */
		if (n < cap && st->st_size > 0 && n == (size_t)st->st_size &&
		    S_ISREG(st->st_mode))
			break;
	}
	p[n] = 0;
	*data = p;
	*len = n;
	return 0;
}

char *fs_resolve_links(struct wfs_ctx *c, const char *path)
{
	char target[PATH_MAX];
	const char *cur = path;
	struct stat st;
	int hops;

	for (hops = 0; hops < 40; hops++) {
		ssize_t n;
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return (char *)cur;
		n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0)
			return (char *)cur;
		target[n] = 0;
		if (target[0] == '/') {
			cur = arena_strdup(c->arena, target);
		} else {
			const char *slash = strrchr(cur, '/');
			cur = slash ? arena_printf(c->arena, "%.*s/%s",
						   (int)(slash - cur), cur, target)
				    : arena_strdup(c->arena, target);
		}
		if (!cur)
			return NULL;
	}
	wfs_fail(c, "%s: too many levels of symbolic links", path);
	return NULL;
}

/* ---- ls ---- */

int fs_open_dir(struct wfs_ctx *c, const char *op, const char *path)
{
	int fd;

	if (c->root)
		return wfs_confined_open(c, op, path, O_RDONLY | O_DIRECTORY);
	fd = fs_open_raw(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return wfs_fail_errno(c, op, path, errno);
	return fd;
}

unsigned fs_umask(void)
{
	char b[2048], *p;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	/* umask() cannot be read without being set, which other threads
	 * would see: Linux 4.7 and later show it here. */
	n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);
	if (fd >= 0)
		close(fd);
	b[n > 0 ? n : 0] = 0;
	p = strstr(b, "\nUmask:");
	return p ? (unsigned)strtoul(p + 8, NULL, 8) & 0777 : 022;
}

int fs_mkdirs(char *p)
{
	int first = 0;
	char *q;

	for (q = p + 1; *q; q++)
		if (*q == '/') {
			*q = 0;
			if (mkdir(p, 0755) && errno != EEXIST && !first)
				first = errno;
			*q = '/';
		}
	if (!mkdir(p, 0755) || errno == EEXIST)
		return 0;
	if (errno == ENOENT && first)
		errno = first;
	return -1;
}

int fs_open_dir_made(struct wfs_ctx *c, const char *op, const char *path)
{
	char *canon, *p;
	int pfd, fd, e;

	if (!c->root) {
		p = arena_strdup(c->arena, path);
		if (!p || fs_mkdirs(p))
			return p ? wfs_fail_errno(c, op, path, errno)
				 : wfs_fail(c, "%s %s: out of memory", op, path);
		return fs_open_dir(c, op, path);
	}
	/* Made and opened component by component beneath the root, so a
	 * directory swapped for a symlink meanwhile is refused, never
	 * followed out. */
	canon = wfs_confine_canon(c, op, path);
	if (!canon)
		return -1;
	pfd = wfs_confined_dir(c, op, canon, 1);
	if (pfd < 0)
		return -1;
	fd = fs_openat_raw(pfd, ".", O_RDONLY | O_DIRECTORY);
	e = errno;
	close(pfd);
	return fd < 0 ? wfs_fail_errno(c, op, path, e) : fd;
}

int fs_open_parent(struct wfs_ctx *c, const char *op, const char *path,
		   const char **base)
{
	const char *slash = strrchr(path, '/');
	const char *dir = !slash ? "." : slash == path ? "/"
						       : arena_printf(c->arena, "%.*s", (int)(slash - path), path);

	*base = slash ? slash + 1 : path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return wfs_fail(c, "%s %s: not a file name", op, path);
	if (!dir)
		return wfs_fail(c, "%s %s: out of memory", op, path);
	return fs_open_dir(c, op, dir);
}

static int dirent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fs_dirent *)a)->name,
		      ((const struct fs_dirent *)b)->name);
}

int fs_dir_entries(struct wfs_ctx *c, const char *op, const char *path,
		   int dfd, struct fs_dirent **out, size_t *n)
{
	struct fs_dirent *v = NULL, *nv;
	size_t len = 0, cap = 0;
	struct dirent *d;
	/* fdopendir takes the descriptor over: a copy, so dfd stays open */
	int own = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = own < 0 ? NULL : fdopendir(own);

	if (!dir) {
		int e = errno;
		if (own >= 0)
			close(own);
		return wfs_fail_errno(c, op, path, e);
	}
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (len == cap) {
			cap = cap ? cap * 2 : 64;
			nv = arena_alloc(c->arena, cap * sizeof(*nv));
			if (!nv)
				goto oom;
			if (len)
				memcpy(nv, v, len * sizeof(*nv));
			v = nv;
		}
		if (fstatat(dfd, d->d_name, &v[len].st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone meanwhile */
		v[len].name = arena_strdup(c->arena, d->d_name);
		if (!v[len].name)
			goto oom;
		len++;
	}
	closedir(dir);
	if (len)
		qsort(v, len, sizeof(*v), dirent_cmp);
	*out = v;
	*n = len;
	return 0;
oom:
	closedir(dir);
	return wfs_fail(c, "%s %s: out of memory", op, path);
}

int wfs_ls(struct wfs_ctx *c, const char *path, struct wfs_dirent **ents,
	   size_t *n)
{
	struct fs_dirent *e;
	struct wfs_dirent *v;
	size_t len, i;
	int fd, rc;

	fd = fs_open_dir(c, "ls", path);
	if (fd < 0)
		return -1;
	rc = fs_dir_entries(c, "ls", path, fd, &e, &len);
	close(fd);
	if (rc)
		return -1;
	v = arena_alloc(c->arena, (len ? len : 1) * sizeof(*v));
	if (!v)
		return wfs_fail(c, "ls %s: out of memory", path);
	for (i = 0; i < len; i++) {
		mode_t m = e[i].st.st_mode;
		v[i].name = e[i].name;
		v[i].type = S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "symlink"
							    : "file";
		v[i].kind = S_ISDIR(m) || S_ISLNK(m) || S_ISREG(m) ? NULL : fs_type_name(m);
		v[i].size = (long long)e[i].st.st_size;
	}
	*ents = v;
	*n = len;
	return 0;
}

/* ---- read ---- */

int wfs_read(struct wfs_ctx *c, const char *path, char **data, size_t *len)
{
	struct stat st;
	int fd, rc;

	fd = fs_open_regular(c, "read", path, &st); /* confined there */
	if (fd < 0)
		return -1;
	rc = wfs_budget_take(c, "read", path, (unsigned long long)st.st_size);
	if (!rc)
		rc = fs_read_fd(c, "read", path, fd, &st, data, len);
	close(fd);
	return rc;
}
