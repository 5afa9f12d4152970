/* transfer.c - download and upload in chunks, and a file's byte range
 *
 * The chunks go through the applets as base64 (the daemon's answers are
 * text lines); these are the file work behind them. A tree travels as a
 * tar.gz spool under the directory's own .wickfs/, which only these
 * operations may reach by a path (ctx->own_state while they do).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "transfer.h"
#include "confine.h"
#include "fs.h"

int wfs_read_range(struct wfs_ctx *c, const char *op, const char *path, long long off,
		   long long lim, struct wfs_range *out)
{
	ssize_t got = 0;
	size_t n = 0;
	int fd;

	out->data = NULL;
	out->len = 0;
	fd = fs_open_regular(c, op, path, &out->st);
	if (fd < 0)
		return -1;
	if (off < out->st.st_size)
		n = (size_t)(out->st.st_size - off < lim ? out->st.st_size - off : lim);
	if (wfs_budget_take(c, op, path, n)) {
		close(fd);
		return -1;
	}
	out->data = arena_alloc(c->arena, n + 1);
	while (out->data && n && (got = pread(fd, out->data, n, (off_t)off)) < 0 && errno == EINTR)
		;
	close(fd);
	if (!out->data)
		return wfs_fail(c, "%s %s: out of memory", op, path);
	if (got < 0)
		return wfs_fail(c, "%s %s: %s", op, path, strerror(errno));
	out->len = (size_t)got;
	return 0;
}

/* Pack dir into a new spool file beneath it; its path, or NULL. */
static const char *spool_tree(struct wfs_ctx *c, const char *dir)
{
	static const char *skip[] = {WFS_STATE_DIR};
	struct wfs_pack_opts o = {dir, skip, 1, 6, 0, 0, -1, 0, NULL};
	struct wfs_archive_result res;
	char *name = arena_printf(c->arena, "download-%d-%lld.tar.gz", (int)getpid(), wfs_now_ns());
	char *spool = arena_printf(c->arena, "%s/" WFS_STATE_DIR "/%s", dir, name);
	int dfd, wfd;

	if (!spool || !name) {
		wfs_fail(c, "download %s: out of memory", dir);
		return NULL;
	}
	if (wfs_confine(c, "download", dir))
		return NULL;
	/* made through descriptors opened beneath the root */
	dfd = fs_open_dir(c, "download", dir);
	if (dfd < 0)
		return NULL;
	mkdirat(dfd, WFS_STATE_DIR, 0755);
	wfd = openat(dfd, WFS_STATE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	o.out_fd = wfd < 0 ? -1
			   : openat(wfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o.out_fd < 0) {
		wfs_fail(c, "download %s: %s", spool, strerror(errno));
		if (wfd >= 0)
			close(wfd);
		return NULL;
	}
	if (wfs_pack(c, &o, &res) | close(o.out_fd)) {
		unlinkat(wfd, name, 0);
		close(wfd);
		return NULL;
	}
	close(wfd);
	return spool;
}

/* path names a spool of download --tree (DIR/.wickfs/download-*.tar.gz):
 * the one file under wickfs's own state a later chunk may read and
 * remove by its path. */
static int is_spool(const char *path)
{
	const char *base = strrchr(path, '/'), *dir;
	size_t n;

	if (!base || base == path)
		return 0;
	for (dir = base; dir > path && dir[-1] != '/'; dir--)
		;
	n = strlen(++base);
	return (size_t)(base - 1 - dir) == sizeof(WFS_STATE_DIR) - 1 &&
	       !memcmp(dir, WFS_STATE_DIR, sizeof(WFS_STATE_DIR) - 1) &&
	       !strncmp(base, "download-", 9) && n > 16 && !strcmp(base + n - 7, ".tar.gz");
}

int wfs_download(struct wfs_ctx *c, const char *path, long long off, long long lim, int tree,
		 int remove, struct wfs_download *res)
{
	const char *base;
	int own, rc, dfd, e;

	res->path = path;
	res->spool = 0;
	/* the spool and --remove write: the only option-dependent writes */
	if ((tree || remove) && wfs_writable(c, "download", path))
		return -1;
	if (tree) {
		if (!(path = spool_tree(c, path)))
			return -1;
		res->path = path;
		res->spool = 1;
	}
	own = res->spool || is_spool(path);
	c->own_state += own;
	rc = wfs_read_range(c, "download", path, off, lim, &res->range);
	c->own_state -= own;
	if (rc)
		return -1;
	res->eof = off + (long long)res->range.len >= res->range.st.st_size;
	if (!res->eof || !(res->spool || remove))
		return 0;
	c->own_state += own;
	dfd = fs_open_parent(c, "download", path, &base);
	c->own_state -= own;
	if (dfd < 0)
		return -1;
	e = unlinkat(dfd, base, 0) ? errno : 0;
	close(dfd);
	return e ? wfs_fail(c, "download %s: %s", path, strerror(e)) : 0;
}

/* The directory the part file lives in, opened (beneath the root when
 * confined: no step by name after the check), and the part's name in it:
 * PATH/.wickfs/upload.tar.gz (made) for a tree, else PATH.wickfs-part
 * beside PATH. -1 with the error set. */
static int part_dir(struct wfs_ctx *c, const char *path, int tree, const char **name,
		    const char **base)
{
	int dfd, wfd, e;

	if (tree) {
		dfd = fs_open_dir_made(c, "upload", path);
		if (dfd < 0)
			return -1;
		mkdirat(dfd, WFS_STATE_DIR, 0755);
		wfd = openat(dfd, WFS_STATE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(dfd);
		if (wfd < 0)
			return wfs_fail(c, "upload %s/" WFS_STATE_DIR ": %s", path, strerror(e));
		*name = "upload.tar.gz";
		return wfd;
	}
	dfd = fs_open_parent(c, "upload", path, base);
	*name = dfd < 0 ? NULL : arena_printf(c->arena, "%s.wickfs-part", *base);
	if (dfd >= 0 && !*name) {
		close(dfd);
		return wfs_fail(c, "upload %s: out of memory", path);
	}
	return dfd;
}

int wfs_upload(struct wfs_ctx *c, const char *path, const unsigned char *data, size_t n,
	       long long off, int tree, int last, struct wfs_archive_result *unpacked)
{
	const char *part, *name = NULL, *base = NULL;
	int fd, dfd, rc = 0;
	struct stat st;

	part = arena_printf(c->arena, tree ? "%s/" WFS_STATE_DIR "/upload.tar.gz" : "%s.wickfs-part",
			    path);
	if (!part)
		return wfs_fail(c, "upload %s: out of memory", path);
	/* checked before anything is made: a refusal creates nothing (a
	 * tree's spool is made in PATH/.wickfs by descriptors, not a path) */
	if (wfs_confine(c, "upload", path) || (!tree && wfs_confine(c, "upload", part)))
		return -1;
	dfd = part_dir(c, path, tree, &name, &base);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (off ? 0 : O_TRUNC), 0644);
	if (fd < 0 || fstat(fd, &st))
		rc = wfs_fail(c, "upload %s: %s", part, strerror(errno));
	else if (st.st_size < off)
		rc = wfs_fail(c, "upload %s: offset %lld but %lld bytes received so far", path, off,
			      (long long)st.st_size);
	else if (ftruncate(fd, (off_t)off) || pwrite(fd, data, n, (off_t)off) != (ssize_t)n)
		rc = wfs_fail(c, "upload %s: %s", part, strerror(errno));
	if (fd >= 0 && close(fd) && !rc)
		rc = wfs_fail(c, "upload %s: %s", part, strerror(errno));
	if (!rc && last && !tree && renameat(dfd, name, dfd, base))
		rc = wfs_fail(c, "upload %s: %s", path, strerror(errno));
	if (!rc && last && tree) {
		struct wfs_unpack_opts u = {path, openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC),
					    0, NULL, 0};
		rc = u.in_fd < 0 ? wfs_fail(c, "upload %s: %s", part, strerror(errno))
				 : wfs_unpack(c, &u, unpacked);
		if (u.in_fd >= 0)
			close(u.in_fd);
		unlinkat(dfd, name, 0);
	}
	close(dfd);
	return rc ? -1 : 0;
}
