/* copy.c - cp and mv: a tree copied through temporary names and put in
 * place by rename, mv across file systems as a copy then a removal. */
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

/* ---- cp ---- */

/* Put the temporary tmp in place of name (both in dfd). */
static int place(struct wfs_ctx *c, const char *op, const char *shown, int dfd,
		 const char *tmp, const char *name, int no_clobber)
{
	int rc = (int)syscall(SYS_renameat2, dfd, tmp, dfd, name,
			      no_clobber ? RENAME_NOREPLACE : 0);
	if (!rc)
		return 0;
	rc = errno;
	unlinkat(dfd, tmp, 0);
	return wfs_fail_errno(c, op, shown, rc);
}

static int copy_data(int in, int out)
{
	char buf[65536];
	ssize_t n, w, off;

	/* In the kernel, without a trip through this buffer. Read and
	 * write where it cannot (another filesystem on older kernels), and
	 * after a first 0: some kernels say 0 for /proc and sysfs files. */
	for (off = 0; (n = copy_file_range(in, NULL, out, NULL, (size_t)1 << 30, 0)) > 0;)
		off += n;
	if (!n && off)
		return 0;
	if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
	    errno != EOPNOTSUPP && errno != EPERM)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (off = 0; off < n; off += w) {
			w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return -1;
		}
	}
	return 0;
}

struct cpctx {
	const char *op;
	int recursive, no_clobber;
	dev_t top_dev;
	ino_t top_ino; /* the destination directory made first: skipped */
	long long copied;
	unsigned long long rnd, seq; /* temporary names */
};

/* A fresh temporary name: one random draw per operation, then a count
 * (O_EXCL or symlinkat's EEXIST catch any clash). */
static char *tmp_name(struct wfs_ctx *c, struct cpctx *k)
{
	if (!k->rnd && getrandom(&k->rnd, sizeof(k->rnd), 0) != sizeof(k->rnd))
		k->rnd = (unsigned long long)wfs_now_ns() * 2654435761u ^
			 (unsigned long long)getpid();
	return arena_printf(c->arena, ".wickfs-tmp-%016llx", k->rnd + k->seq++);
}

static int cp_entry(struct wfs_ctx *c, struct cpctx *k, int sfd, const char *sname,
		    const char *sshown, int dfd, const char *dname,
		    const char *dshown, int depth, const struct stat *known);

static int cp_dir(struct wfs_ctx *c, struct cpctx *k, int sfd, const char *sname,
		  const char *sshown, int dfd, const char *dname,
		  const char *dshown, const struct stat *st, int depth)
{
	struct timespec ts[2] = {st->st_atim, st->st_mtim};
	struct stat dst;
	struct dirent *d;
	DIR *dir;
	int in, out, rc = 0;

	if (!k->recursive)
		return wfs_fail(c, "%s %s: is a directory (use -r)", k->op, sshown);
	if (depth > MAX_DEPTH)
		return wfs_fail(c, "%s %s: directories nested too deep", k->op, sshown);
	if (mkdirat(dfd, dname, 0700) && (errno != EEXIST || k->no_clobber))
		return wfs_fail_errno(c, k->op, dshown, errno);
	out = openat(dfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (out < 0)
		return wfs_fail_errno(c, k->op, dshown, errno == ELOOP ? EXDEV : errno);
	if (fstat(out, &dst)) {
		close(out);
		return wfs_fail_errno(c, k->op, dshown, errno);
	}
	if (!depth) {
		k->top_dev = dst.st_dev;
		k->top_ino = dst.st_ino;
	}
	in = openat(sfd, sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0 || !(dir = fdopendir(in))) {
		int e = errno;
		if (in >= 0)
			close(in);
		close(out);
		return wfs_fail_errno(c, k->op, sshown, e == ELOOP ? EXDEV : e);
	}
	while (!rc && (d = readdir(dir))) {
		struct stat est;
		char *ss, *ds;
		if (fsops_is_dot(d->d_name) || (c->root && !strcmp(d->d_name, WFS_STATE_DIR)))
			continue; /* confined: wickfs's own state is not copied */
		if (fstatat(in, d->d_name, &est, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				continue; /* gone meanwhile */
			rc = wfs_fail_errno(c, k->op, sshown, errno);
			break;
		}
		/* the copy itself, made inside the source: not copied again */
		if (est.st_dev == k->top_dev && est.st_ino == k->top_ino)
			continue;
		if (wfs_expired(c)) {
			rc = -1;
			break;
		}
		ss = arena_printf(c->arena, "%s/%s", sshown, d->d_name);
		ds = arena_printf(c->arena, "%s/%s", dshown, d->d_name);
		if (!ss || !ds)
			rc = wfs_fail(c, "%s %s: out of memory", k->op, sshown);
		else
			rc = cp_entry(c, k, in, d->d_name, ss, out, d->d_name, ds, depth + 1,
				      &est);
	}
	closedir(dir);
	if (!rc && (fchmod(out, st->st_mode & 07777) || futimens(out, ts)))
		rc = wfs_fail_errno(c, k->op, dshown, errno);
	close(out);
	return rc;
}

static int cp_file(struct wfs_ctx *c, struct cpctx *k, int sfd, const char *sname,
		   const char *sshown, int dfd, const char *dname,
		   const char *dshown, const struct stat *st)
{
	struct timespec ts[2] = {st->st_atim, st->st_mtim};
	char *tmp = tmp_name(c, k);
	int in, out, e;

	if (!tmp)
		return wfs_fail(c, "%s %s: out of memory", k->op, sshown);
	in = openat(sfd, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return wfs_fail_errno(c, k->op, sshown, errno == ELOOP ? EXDEV : errno);
	out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		e = errno;
		close(in);
		return wfs_fail_errno(c, k->op, dshown, e);
	}
	if (copy_data(in, out)) {
		e = errno;
		goto fail;
	}
	if ((geteuid() == 0 && fchown(out, st->st_uid, st->st_gid)) ||
	    fchmod(out, st->st_mode & 07777) || futimens(out, ts)) {
		e = errno;
		goto fail;
	}
	close(in);
	if (close(out)) {
		e = errno;
		unlinkat(dfd, tmp, 0);
		return wfs_fail_errno(c, k->op, dshown, e);
	}
	k->copied++;
	return place(c, k->op, dshown, dfd, tmp, dname, k->no_clobber);
fail:
	close(in);
	close(out);
	unlinkat(dfd, tmp, 0);
	return wfs_fail_errno(c, k->op, dshown, e);
}

/* A symlink is copied as a link: its target is data, never followed. */
static int cp_link(struct wfs_ctx *c, struct cpctx *k, int sfd, const char *sname,
		   const char *sshown, int dfd, const char *dname,
		   const char *dshown)
{
	char target[PATH_MAX + 1], *tmp = tmp_name(c, k);
	ssize_t n;

	if (!tmp)
		return wfs_fail(c, "%s %s: out of memory", k->op, sshown);
	n = readlinkat(sfd, sname, target, sizeof(target) - 1);
	if (n < 0)
		return wfs_fail_errno(c, k->op, sshown, errno);
	target[n] = 0;
	if (symlinkat(target, dfd, tmp))
		return wfs_fail_errno(c, k->op, dshown, errno);
	k->copied++;
	return place(c, k->op, dshown, dfd, tmp, dname, k->no_clobber);
}

/* known: the entry's lstat when the caller has it. */
static int cp_entry(struct wfs_ctx *c, struct cpctx *k, int sfd, const char *sname,
		    const char *sshown, int dfd, const char *dname,
		    const char *dshown, int depth, const struct stat *known)
{
	struct stat st;

	if (known)
		st = *known;
	else if (fstatat(sfd, sname, &st, AT_SYMLINK_NOFOLLOW))
		return wfs_fail_errno(c, k->op, sshown, errno);
	if (S_ISDIR(st.st_mode))
		return cp_dir(c, k, sfd, sname, sshown, dfd, dname, dshown, &st, depth);
	if (S_ISLNK(st.st_mode))
		return cp_link(c, k, sfd, sname, sshown, dfd, dname, dshown);
	if (S_ISREG(st.st_mode))
		return cp_file(c, k, sfd, sname, sshown, dfd, dname, dshown, &st);
	return wfs_fail(c, "%s %s: is a %s, not copied", k->op, sshown,
			fs_type_name(st.st_mode));
}

/* Lock the regular files at both names (those that exist) in the order
 * of their inode numbers, so two operations on the same pair never wait
 * for each other crosswise. Returns the descriptors to close after. */
static void lock_pair(const struct fsops_at *s, const struct fsops_at *d, int fds[2])
{
	struct stat st[2];
	const struct fsops_at *p[2] = {s, d};
	int i;

	for (i = 0; i < 2; i++) {
		fds[i] = -1;
		if (p[i]->missing)
			continue;
		fds[i] = openat(p[i]->dirfd, p[i]->name,
				O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fds[i] >= 0 && (fstat(fds[i], &st[i]) || !S_ISREG(st[i].st_mode))) {
			close(fds[i]);
			fds[i] = -1;
		}
	}
	if (fds[0] >= 0 && fds[1] >= 0 && st[0].st_dev == st[1].st_dev &&
	    st[0].st_ino == st[1].st_ino) {
		close(fds[1]);
		fds[1] = -1;
	}
	if (fds[0] >= 0 && fds[1] >= 0 &&
	    (st[1].st_dev < st[0].st_dev ||
	     (st[1].st_dev == st[0].st_dev && st[1].st_ino < st[0].st_ino))) {
		int t = fds[0];
		fds[0] = fds[1];
		fds[1] = t;
	}
	for (i = 0; i < 2; i++)
		if (fds[i] >= 0)
			while (flock(fds[i], LOCK_EX) && errno == EINTR)
				;
}

static void unlock_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

static int copy_at(struct wfs_ctx *c, struct cpctx *k, struct fsops_at *s,
		   const char *src, struct fsops_at *d, const char *dst)
{
	struct stat st;

	if (fsops_is_dot(s->name) || fsops_is_dot(d->name))
		return wfs_fail(c, "%s %s: refusing \".\" or \"..\" as a name", k->op,
				fsops_is_dot(s->name) ? src : dst);
	/* cp puts a new file in place of the old: over /dev/null or a FIFO
	 * that would remove the device (mv's rename does, as mv(1)'s) */
	if (!strcmp(k->op, "cp") && !fstatat(d->dirfd, d->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
		return wfs_fail(c, "cp %s: is a %s, not a regular file: cp replaces only files",
				dst, fs_type_name(st.st_mode));
	return cp_entry(c, k, s->dirfd, s->name, src, d->dirfd, d->name, dst, 0, NULL);
}

/* When dst names an existing directory (or a link to one, resolved as
 * open_at resolves, so never out of the root), the item goes inside it
 * under src's last name, as cp and mv do: d then holds that directory
 * and that name, and *shown the path "DST/NAME". */
static int into_dir(struct wfs_ctx *c, const char *op, const char *dst,
		    const struct fsops_at *s, struct fsops_at *d, const char **shown)
{
	struct stat st;
	struct fsops_at l;
	int fd;

	*shown = dst;
	if (fstatat(d->dirfd, d->name, &st, AT_SYMLINK_NOFOLLOW)) {
		d->missing = errno == ENOENT;
		return 0; /* a new name */
	}
	if (S_ISLNK(st.st_mode)) {
		if (fsops_open_at(c, op, dst, 1, 0, &l))
			return errno == ENOENT ? 0 : -1; /* dangling: replaced */
		if (fstatat(l.dirfd, l.name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode)) {
			fsops_close_at(&l);
			return 0; /* a link to a file: the link is replaced */
		}
		fsops_close_at(d);
		*d = l;
	} else if (!S_ISDIR(st.st_mode)) {
		return 0;
	}
	fd = openat(d->dirfd, d->name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return wfs_fail_errno(c, op, dst, errno);
	fsops_close_at(d);
	d->dirfd = fd;
	d->name = s->name;
	*shown = arena_printf(c->arena, "%s%s%s", dst,
			      dst[strlen(dst) - 1] == '/' ? "" : "/", s->name);
	if (!*shown)
		return wfs_fail(c, "%s %s: out of memory", op, dst);
	return 0;
}

/* Both ends of a cp or mv opened, dst moved into an existing directory;
 * on success the caller closes both. */
static int open_pair(struct wfs_ctx *c, const char *op, const char *src,
		     const char *dst, struct fsops_at *s, struct fsops_at *d,
		     const char **shown)
{
	if (fsops_open_at(c, op, src, 0, 0, s))
		return -1;
	if (fsops_is_dot(s->name)) {
		fsops_close_at(s);
		return wfs_fail(c, "%s %s: refusing \".\" or \"..\" as a name", op, src);
	}
	if (!fsops_open_at(c, op, dst, 0, 0, d)) {
		if (!into_dir(c, op, dst, s, d, shown))
			return 0;
		fsops_close_at(d);
	}
	fsops_close_at(s);
	return -1;
}

int wfs_cp(struct wfs_ctx *c, const char *src, const char *dst, int recursive,
	   int no_clobber, long long *copied, const char **landed)
{
	struct cpctx k = {.op = "cp", .recursive = recursive, .no_clobber = no_clobber};
	struct fsops_at s, d;
	int fds[2], rc;

	*copied = 0;
	*landed = dst;
	if (open_pair(c, "cp", src, dst, &s, &d, landed))
		return -1;
	lock_pair(&s, &d, fds);
	rc = copy_at(c, &k, &s, src, &d, *landed);
	unlock_pair(fds);
	fsops_close_at(&s);
	fsops_close_at(&d);
	*copied = k.copied;
	return rc;
}

void fsops_put_src_dst(struct buf *out, const char *src, const char *dst)
{
	buf_puts(out, "{\"src\":");
	json_cstr(out, src);
	buf_puts(out, ",\"dst\":");
	json_cstr(out, dst);
}

/* ---- mv ---- */

/* Across filesystems: copy everything, then remove the source. */
static int mv_copy(struct wfs_ctx *c, struct cpctx *k, struct fsops_at *s,
		   const char *src, struct fsops_at *d, const char *dst)
{
	struct stat st;
	long long n = 0;
	int rc, fd;

	if (fstatat(s->dirfd, s->name, &st, AT_SYMLINK_NOFOLLOW))
		return wfs_fail_errno(c, "mv", src, errno);
	rc = copy_at(c, k, s, src, d, dst);
	if (rc)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(s->dirfd, s->name, 0) ? wfs_fail_errno(c, "mv", src, errno) : 0;
	fd = openat(s->dirfd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return wfs_fail_errno(c, "mv", src, errno);
	if (fsops_rm_tree(c, src, fd, 0, &n))
		return -1;
	if (unlinkat(s->dirfd, s->name, AT_REMOVEDIR))
		return wfs_fail_errno(c, "mv", src, errno);
	return 0;
}

int wfs_mv(struct wfs_ctx *c, const char *src, const char *dst, int no_clobber,
	   int *copied, const char **landed)
{
	struct cpctx k = {.op = "mv", .recursive = 1, .no_clobber = no_clobber};
	struct fsops_at s, d;
	int fds[2], rc = 0;

	*copied = 0;
	*landed = dst;
	if (open_pair(c, "mv", src, dst, &s, &d, landed))
		return -1;
	if (fsops_is_dot(d.name)) {
		fsops_close_at(&s);
		fsops_close_at(&d);
		return wfs_fail(c, "mv %s: refusing \".\" or \"..\" as a name", dst);
	}
	lock_pair(&s, &d, fds);
	if (!syscall(SYS_renameat2, s.dirfd, s.name, d.dirfd, d.name,
		     no_clobber ? RENAME_NOREPLACE : 0)) {
		rc = 0;
	} else if (errno != EXDEV) {
		rc = wfs_fail_errno(c, "mv", errno == EEXIST || errno == ENOTEMPTY ? *landed : src,
				    errno);
	} else {
		*copied = 1;
		rc = mv_copy(c, &k, &s, src, &d, *landed);
	}
	unlock_pair(fds);
	fsops_close_at(&s);
	fsops_close_at(&d);
	return rc;
}

/* ---- append ---- */
