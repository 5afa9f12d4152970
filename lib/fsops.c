/* fsops.c - stat, exists, mkdir, rm, mv, cp, append, symlink, readlink,
 * chmod
 *
 * Every operation first opens the directory that holds the name it acts
 * on: confined (WICKFS_ROOT), the directory part is resolved and checked
 * beneath the root and opened by a walk from the root that follows no
 * link (lib/confine.c); the last component is then used only through the
 * *at calls with no following, so swapping any component for a symlink
 * during the call cannot make it act outside. Unconfined, the directory
 * is opened by path and the same code runs.
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
#include "fsutil.h"
#include "json.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif
#define MAX_DEPTH 256

/* A name in an opened directory. */
struct at {
	int dirfd;
	const char *name;
	int missing; /* seen not to exist (into_dir): nothing to lock */
};

/* Split path into its directory and last component, trailing slashes
 * dropped ("a/b/" -> "a", "b"). */
static int split(struct wfs_ctx *c, const char *path, char **dir, char **base)
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
			return fs_fail_errno(c, op, dir, e);
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
static int open_at(struct wfs_ctx *c, const char *op, const char *path,
		   int follow, int create, struct at *a)
{
	char *dir, *base, *canon;
	int fd;

	a->dirfd = -1;
	a->missing = 0;
	if (!*path)
		return wfs_fail(c, "%s: empty path", op);
	if (!c->root) {
		const char *p = follow ? fs_resolve_links(c, path) : path;
		if (!p || split(c, p, &dir, &base))
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
			return fs_fail_errno(c, op, path, errno);
		a->dirfd = fd;
		a->name = base;
		return 0;
	}
	if (split(c, path, &dir, &base))
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
		if (split(c, canon, &dir, &base))
			return -1;
	}
	canon = wfs_confine_canon(c, op, dir);
	if (!canon)
		return -1;
	fd = wfs_confined_dir(c, op, canon, create);
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ENOENT)
			return fs_fail_errno(c, op, path, errno);
		return -1;
	}
	a->dirfd = fd;
	a->name = base;
	return 0;
}

static void close_at(struct at *a)
{
	if (a->dirfd >= 0)
		close(a->dirfd);
	a->dirfd = -1;
}

/* ---- stat, exists ---- */

void fs_mode_string(mode_t m, char *o)
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	o[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l'
			  : S_ISFIFO(m)      ? 'p'
			  : S_ISSOCK(m)      ? 's'
			  : S_ISCHR(m)       ? 'c'
			  : S_ISBLK(m)       ? 'b'
					     : '-';
	for (i = 0; i < 9; i++)
		o[i + 1] = (m & (0400u >> i)) ? rwx[i] : '-';
	if (m & S_ISUID)
		o[3] = (m & 0100) ? 's' : 'S';
	if (m & S_ISGID)
		o[6] = (m & 0010) ? 's' : 'S';
	if (m & S_ISVTX)
		o[9] = (m & 0001) ? 't' : 'T';
	o[10] = 0;
}

void fs_rfc3339(long long sec, long nsec, char *out, size_t n)
{
	time_t t = (time_t)sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, nsec);
}

static const char *type_of(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "dir";
	if (S_ISLNK(m))
		return "symlink";
	return fs_type_name(m);
}

static void put_time(struct buf *b, const char *key, const struct timespec *ts)
{
	char t[48];

	fs_rfc3339((long long)ts->tv_sec, ts->tv_nsec, t, sizeof(t));
	buf_printf(b, ",\"%s\":\"%s\",\"%s_unix\":%lld", key, t, key,
		   (long long)ts->tv_sec);
}

int wfs_stat_json(struct wfs_ctx *c, const char *path, int follow,
		  struct buf *out)
{
	struct at a;
	struct stat st;
	char perm[12], target[PATH_MAX + 1];
	ssize_t n = -1;
	int at = AT_SYMLINK_NOFOLLOW;

	if (open_at(c, "stat", path, follow, 0, &a))
		return -1;
	/* unconfined --follow: the kernel follows; confined: resolved above */
	if (follow && !c->root)
		at = 0;
	if (fstatat(a.dirfd, a.name, &st, at)) {
		int e = errno;
		close_at(&a);
		return fs_fail_errno(c, "stat", path, e);
	}
	if (S_ISLNK(st.st_mode))
		n = readlinkat(a.dirfd, a.name, target, sizeof(target) - 1);
	close_at(&a);
	fs_mode_string(st.st_mode, perm);
	buf_puts(out, "{\"path\":");
	json_cstr(out, path);
	buf_puts(out, ",\"type\":");
	json_cstr(out, type_of(st.st_mode));
	buf_printf(out, ",\"size\":%lld,\"mode\":\"%04o\",\"perm\":\"%s\",\"uid\":%u,\"gid\":%u,\"nlink\":%llu",
		   (long long)st.st_size, (unsigned)(st.st_mode & 07777), perm,
		   (unsigned)st.st_uid, (unsigned)st.st_gid,
		   (unsigned long long)st.st_nlink);
	put_time(out, "mtime", &st.st_mtim);
	put_time(out, "ctime", &st.st_ctim);
	put_time(out, "atime", &st.st_atim);
	if (n >= 0) {
		buf_puts(out, ",\"link_target\":");
		json_str(out, target, (size_t)n);
	}
	buf_putc(out, '}');
	return 0;
}

int wfs_exists(struct wfs_ctx *c, const char *path, int *yes, const char **type)
{
	struct at a;
	struct stat st;

	*yes = 0;
	*type = NULL;
	if (open_at(c, "exists", path, 0, 0, &a)) {
		/* a missing or non-directory parent: simply not there */
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return -1;
	}
	if (!fstatat(a.dirfd, a.name, &st, AT_SYMLINK_NOFOLLOW)) {
		*yes = 1;
		*type = type_of(st.st_mode);
	}
	close_at(&a);
	return 0;
}

/* ---- mkdir ---- */

int wfs_mkdir(struct wfs_ctx *c, const char *path, int parents, int *created)
{
	struct at a;
	struct stat st;
	int rc = 0;

	*created = 0;
	if (open_at(c, "mkdir", path, 0, parents, &a))
		return -1;
	if (!mkdirat(a.dirfd, a.name, 0777)) {
		*created = 1;
	} else if (errno == EEXIST && parents &&
		   !fstatat(a.dirfd, a.name, &st, AT_SYMLINK_NOFOLLOW) &&
		   S_ISDIR(st.st_mode)) {
		rc = 0; /* -p: an existing directory is fine */
	} else {
		rc = fs_fail_errno(c, "mkdir", path, errno);
	}
	close_at(&a);
	return rc;
}

/* ---- rm ---- */

static int is_dot(const char *n)
{
	return !strcmp(n, ".") || !strcmp(n, "..");
}

/* Remove everything in the directory dfd (opened O_NOFOLLOW, so never a
 * link's target), depth-first. Links are removed, never followed. */
static int rm_tree(struct wfs_ctx *c, const char *path, int dfd, int depth,
		   long long *removed)
{
	struct dirent *d;
	DIR *dir;
	int rc = 0, fd, e;

	if (depth > MAX_DEPTH)
		return wfs_fail(c, "rm %s: directories nested too deep", path);
	dir = fdopendir(dfd);
	if (!dir) {
		int e = errno;
		close(dfd);
		return fs_fail_errno(c, "rm", path, e);
	}
	while (!rc && (d = readdir(dir))) {
		char *sub;
		if (is_dot(d->d_name))
			continue;
		if (wfs_expired(c)) {
			rc = -1;
			break;
		}
		/* no stat: unlink says EISDIR for a directory, which is then
		 * entered with O_NOFOLLOW (a link swapped in is refused) */
		if (!unlinkat(dfd, d->d_name, 0)) {
			(*removed)++;
			continue;
		}
		if (errno == ENOENT)
			continue; /* gone meanwhile */
		e = errno;
		fd = -1;
		if (e == EISDIR &&
		    (fd = openat(dfd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			e = errno == ELOOP ? EXDEV : errno;
		sub = arena_printf(c->arena, "%s/%s", path, d->d_name);
		if (fd < 0 || !sub) {
			if (fd >= 0)
				close(fd);
			rc = sub ? fs_fail_errno(c, "rm", sub, e)
				 : wfs_fail(c, "rm %s: out of memory", path);
		} else if (rm_tree(c, sub, fd, depth + 1, removed)) {
			rc = -1;
		} else if (unlinkat(dfd, d->d_name, AT_REMOVEDIR)) {
			rc = fs_fail_errno(c, "rm", sub, errno);
		} else {
			(*removed)++;
		}
	}
	closedir(dir);
	return rc;
}

int wfs_rm(struct wfs_ctx *c, const char *path, int recursive, int force,
	   long long *removed)
{
	struct at a;
	int rc = 0, fd;

	*removed = 0;
	if (open_at(c, "rm", path, 0, 0, &a)) {
		if (force && errno == ENOENT)
			return 0;
		return -1;
	}
	if (is_dot(a.name)) {
		close_at(&a);
		return wfs_fail(c, "rm %s: refusing to remove \".\", \"..\" or the workspace root", path);
	}
	/* Anything but a directory goes in one call; EISDIR says it is
	 * one (no stat first: rm is mostly of files). */
	if (!unlinkat(a.dirfd, a.name, 0)) {
		*removed = 1;
	} else if (errno != EISDIR) {
		rc = force && errno == ENOENT ? 0 : fs_fail_errno(c, "rm", path, errno);
	} else if (!recursive) {
		/* an empty directory goes without -r, as rmdir would */
		if (unlinkat(a.dirfd, a.name, AT_REMOVEDIR))
			rc = errno == ENOTEMPTY || errno == EEXIST
				     ? wfs_fail(c, "rm %s: is a non-empty directory (use -r)", path)
				     : fs_fail_errno(c, "rm", path, errno);
		else
			*removed = 1;
	} else {
		fd = openat(a.dirfd, a.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			rc = fs_fail_errno(c, "rm", path, errno == ELOOP ? EXDEV : errno);
		else if (!(rc = rm_tree(c, path, fd, 0, removed))) {
			if (unlinkat(a.dirfd, a.name, AT_REMOVEDIR))
				rc = fs_fail_errno(c, "rm", path, errno);
			else
				(*removed)++;
		}
	}
	close_at(&a);
	return rc;
}

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
	return fs_fail_errno(c, op, shown, rc);
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
		return fs_fail_errno(c, k->op, dshown, errno);
	out = openat(dfd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (out < 0)
		return fs_fail_errno(c, k->op, dshown, errno == ELOOP ? EXDEV : errno);
	if (fstat(out, &dst)) {
		close(out);
		return fs_fail_errno(c, k->op, dshown, errno);
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
		return fs_fail_errno(c, k->op, sshown, e == ELOOP ? EXDEV : e);
	}
	while (!rc && (d = readdir(dir))) {
		struct stat est;
		char *ss, *ds;
		if (is_dot(d->d_name) || (c->root && !strcmp(d->d_name, WFS_STATE_DIR)))
			continue; /* confined: wickfs's own state is not copied */
		if (fstatat(in, d->d_name, &est, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				continue; /* gone meanwhile */
			rc = fs_fail_errno(c, k->op, sshown, errno);
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
		rc = fs_fail_errno(c, k->op, dshown, errno);
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
		return fs_fail_errno(c, k->op, sshown, errno == ELOOP ? EXDEV : errno);
	out = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		e = errno;
		close(in);
		return fs_fail_errno(c, k->op, dshown, e);
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
		return fs_fail_errno(c, k->op, dshown, e);
	}
	k->copied++;
	return place(c, k->op, dshown, dfd, tmp, dname, k->no_clobber);
fail:
	close(in);
	close(out);
	unlinkat(dfd, tmp, 0);
	return fs_fail_errno(c, k->op, dshown, e);
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
		return fs_fail_errno(c, k->op, sshown, errno);
	target[n] = 0;
	if (symlinkat(target, dfd, tmp))
		return fs_fail_errno(c, k->op, dshown, errno);
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
		return fs_fail_errno(c, k->op, sshown, errno);
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
static void lock_pair(const struct at *s, const struct at *d, int fds[2])
{
	struct stat st[2];
	const struct at *p[2] = {s, d};
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

static int copy_at(struct wfs_ctx *c, struct cpctx *k, struct at *s,
		   const char *src, struct at *d, const char *dst)
{
	if (is_dot(s->name) || is_dot(d->name))
		return wfs_fail(c, "%s %s: refusing \".\" or \"..\" as a name", k->op,
				is_dot(s->name) ? src : dst);
	return cp_entry(c, k, s->dirfd, s->name, src, d->dirfd, d->name, dst, 0, NULL);
}

/* When dst names an existing directory (or a link to one, resolved as
 * open_at resolves, so never out of the root), the item goes inside it
 * under src's last name, as cp and mv do: d then holds that directory
 * and that name, and *shown the path "DST/NAME". */
static int into_dir(struct wfs_ctx *c, const char *op, const char *dst,
		    const struct at *s, struct at *d, const char **shown)
{
	struct stat st;
	struct at l;
	int fd;

	*shown = dst;
	if (fstatat(d->dirfd, d->name, &st, AT_SYMLINK_NOFOLLOW)) {
		d->missing = errno == ENOENT;
		return 0; /* a new name */
	}
	if (S_ISLNK(st.st_mode)) {
		if (open_at(c, op, dst, 1, 0, &l))
			return errno == ENOENT ? 0 : -1; /* dangling: replaced */
		if (fstatat(l.dirfd, l.name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode)) {
			close_at(&l);
			return 0; /* a link to a file: the link is replaced */
		}
		close_at(d);
		*d = l;
	} else if (!S_ISDIR(st.st_mode)) {
		return 0;
	}
	fd = openat(d->dirfd, d->name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fs_fail_errno(c, op, dst, errno);
	close_at(d);
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
		     const char *dst, struct at *s, struct at *d,
		     const char **shown)
{
	if (open_at(c, op, src, 0, 0, s))
		return -1;
	if (is_dot(s->name)) {
		close_at(s);
		return wfs_fail(c, "%s %s: refusing \".\" or \"..\" as a name", op, src);
	}
	if (!open_at(c, op, dst, 0, 0, d)) {
		if (!into_dir(c, op, dst, s, d, shown))
			return 0;
		close_at(d);
	}
	close_at(s);
	return -1;
}

int wfs_cp(struct wfs_ctx *c, const char *src, const char *dst, int recursive,
	   int no_clobber, long long *copied, const char **landed)
{
	struct cpctx k = {.op = "cp", .recursive = recursive, .no_clobber = no_clobber};
	struct at s, d;
	int fds[2], rc;

	*copied = 0;
	*landed = dst;
	if (open_pair(c, "cp", src, dst, &s, &d, landed))
		return -1;
	lock_pair(&s, &d, fds);
	rc = copy_at(c, &k, &s, src, &d, *landed);
	unlock_pair(fds);
	close_at(&s);
	close_at(&d);
	*copied = k.copied;
	return rc;
}

void fs_put_src_dst(struct buf *out, const char *src, const char *dst)
{
	buf_puts(out, "{\"src\":");
	json_cstr(out, src);
	buf_puts(out, ",\"dst\":");
	json_cstr(out, dst);
}

/* ---- mv ---- */

/* Across filesystems: copy everything, then remove the source. */
static int mv_copy(struct wfs_ctx *c, struct cpctx *k, struct at *s,
		   const char *src, struct at *d, const char *dst)
{
	struct stat st;
	long long n = 0;
	int rc, fd;

	if (fstatat(s->dirfd, s->name, &st, AT_SYMLINK_NOFOLLOW))
		return fs_fail_errno(c, "mv", src, errno);
	rc = copy_at(c, k, s, src, d, dst);
	if (rc)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(s->dirfd, s->name, 0) ? fs_fail_errno(c, "mv", src, errno) : 0;
	fd = openat(s->dirfd, s->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fs_fail_errno(c, "mv", src, errno);
	if (rm_tree(c, src, fd, 0, &n))
		return -1;
	if (unlinkat(s->dirfd, s->name, AT_REMOVEDIR))
		return fs_fail_errno(c, "mv", src, errno);
	return 0;
}

int wfs_mv(struct wfs_ctx *c, const char *src, const char *dst, int no_clobber,
	   int *copied, const char **landed)
{
	struct cpctx k = {.op = "mv", .recursive = 1, .no_clobber = no_clobber};
	struct at s, d;
	int fds[2], rc = 0;

	*copied = 0;
	*landed = dst;
	if (open_pair(c, "mv", src, dst, &s, &d, landed))
		return -1;
	if (is_dot(d.name)) {
		close_at(&s);
		close_at(&d);
		return wfs_fail(c, "mv %s: refusing \".\" or \"..\" as a name", dst);
	}
	lock_pair(&s, &d, fds);
	if (!syscall(SYS_renameat2, s.dirfd, s.name, d.dirfd, d.name,
		     no_clobber ? RENAME_NOREPLACE : 0)) {
		rc = 0;
	} else if (errno != EXDEV) {
		rc = fs_fail_errno(c, "mv", errno == EEXIST || errno == ENOTEMPTY ? *landed : src,
				   errno);
	} else {
		*copied = 1;
		rc = mv_copy(c, &k, &s, src, &d, *landed);
	}
	unlock_pair(fds);
	close_at(&s);
	close_at(&d);
	return rc;
}

/* ---- append ---- */

int wfs_append(struct wfs_ctx *c, const char *op, const char *path,
	       const char *data, size_t len)
{
	struct at a;
	struct stat st, now;
	int fd = -1, tries, rc = 0;
	size_t off = 0;

	/* a link is written through to its target, as write does */
	if (open_at(c, op, path, 1, 1, &a))
		return -1;
	for (tries = 0; tries < 1000; tries++) {
		fd = openat(a.dirfd, a.name, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0) {
			int e = errno;
			/* a FIFO with no reader says ENXIO: name what it is */
			if (e == ENXIO && !fstatat(a.dirfd, a.name, &st, AT_SYMLINK_NOFOLLOW) &&
			    !S_ISREG(st.st_mode))
				rc = wfs_fail(c, "%s %s: is a %s, not a regular file", op, path,
					      fs_type_name(st.st_mode));
			else
				rc = fs_fail_errno(c, op, path, e == ELOOP ? EXDEV : e);
			break;
		}
		if (fs_regular_fd(c, op, path, fd, &st) < 0) {
			fd = -1;
			rc = -1;
			break;
		}
		/* the lock edit and write take: an edit renames a new inode
		 * in, so check the locked one is still the one at the name */
		while (flock(fd, LOCK_EX) && errno == EINTR)
			;
		if (!fstatat(a.dirfd, a.name, &now, AT_SYMLINK_NOFOLLOW) &&
		    now.st_ino == st.st_ino && now.st_dev == st.st_dev)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0 && !rc)
		rc = wfs_fail(c, "%s %s: file keeps being replaced", op, path);
	while (!rc && off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			/* A disk that fills midway: cut the partial tail off
			 * (under the lock), so the file is whole as before. */
			if (off && ftruncate(fd, now.st_size))
				e = errno;
			rc = fs_fail_errno(c, op, path, e);
		} else {
			off += (size_t)w;
		}
	}
	if (fd >= 0)
		close(fd);
	close_at(&a);
	return rc;
}

/* ---- symlink, readlink ---- */

int wfs_symlink(struct wfs_ctx *c, const char *target, const char *path)
{
	struct at a;
	int rc = 0;

	if (!*target)
		return wfs_fail(c, "symlink %s: empty target", path);
	if (open_at(c, "symlink", path, 0, 0, &a))
		return -1;
	/* the target is only data: never resolved or checked here */
	if (symlinkat(target, a.dirfd, a.name))
		rc = fs_fail_errno(c, "symlink", path, errno);
	close_at(&a);
	return rc;
}

int wfs_readlink(struct wfs_ctx *c, const char *path, char **target)
{
	char buf[PATH_MAX + 1];
	struct at a;
	ssize_t n;

	if (open_at(c, "readlink", path, 0, 0, &a))
		return -1;
	n = readlinkat(a.dirfd, a.name, buf, sizeof(buf) - 1);
	if (n < 0) {
		int e = errno;
		close_at(&a);
		if (e == EINVAL)
			return wfs_fail(c, "readlink %s: not a symlink", path);
		return fs_fail_errno(c, "readlink", path, e);
	}
	close_at(&a);
	*target = arena_strndup(c->arena, buf, (size_t)n);
	return *target ? 0 : wfs_fail(c, "readlink %s: out of memory", path);
}

/* ---- chmod ---- */

/* One symbolic clause list ("u+x,go-w,a=r") applied to old. -1 if bad. */
static long parse_symbolic(const char *s, mode_t old, int isdir)
{
	long m = (long)(old & 07777);

	for (;;) {
		unsigned who = 0, perm = 0;
		char op;
		for (; strchr("ugoa", *s) && *s; s++)
			who |= *s == 'u' ? 04700u : *s == 'g' ? 02070u
					    : *s == 'o'       ? 01007u
							      : 07777u;
		if (!who) /* no umask here: reading it would change it */
			who = 07777u;
		if (*s != '+' && *s != '-' && *s != '=')
			return -1;
		op = *s++;
		for (; *s && strchr("rwxXst", *s); s++)
			perm |= *s == 'r' ? 0444u : *s == 'w'         ? 0222u
					    : *s == 'x'               ? 0111u
					    : *s == 's'               ? 06000u
					    : *s == 't'               ? 01000u
					    : (isdir || (old & 0111)) ? 0111u
								      : 0u;
		perm &= who;
		if (op == '+')
			m |= (long)perm;
		else if (op == '-')
			m &= ~(long)perm;
		else
			m = (m & ~(long)(who & 07777u)) | (long)perm;
		if (!*s)
			return m;
		if (*s++ != ',')
			return -1;
	}
}

static long parse_mode(const char *s, mode_t old, int isdir)
{
	char *end;
	long m;

	if (*s >= '0' && *s <= '7') {
		m = strtol(s, &end, 8);
		return *end || m > 07777 ? -1 : m;
	}
	return parse_symbolic(s, old, isdir);
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* The mode of the inode st (found at dirfd/name without following)
 * changed, never through a link swapped in at the name meanwhile.
 * fchmodat2 with AT_SYMLINK_NOFOLLOW (Linux 6.6) does it in one call on
 * the name. Older kernels (or a seccomp profile that does not know it):
 * an O_PATH descriptor of the inode, changed through its name in /proc
 * (fchmod refuses O_PATH descriptors); without /proc, a descriptor
 * opened for reading and checked to be the same inode. */
static int chmod_at(int dirfd, const char *name, const struct stat *st, mode_t m)
{
	char proc[64];
	struct stat now;
	int fd, rc = -1, e;

	if (!syscall(SYS_fchmodat2, dirfd, name, m, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (errno == EOPNOTSUPP) {
		errno = ELOOP; /* a link now: never changed through */
		return -1;
	}
	if (errno != ENOSYS && errno != EPERM && errno != EINVAL)
		return -1;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &now) || now.st_ino != st->st_ino || now.st_dev != st->st_dev) {
		close(fd);
		errno = ESTALE; /* replaced meanwhile */
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rc = chmod(proc, m);
	e = errno;
	close(fd);
	if (!rc || (e != ENOENT && e != ENOTDIR))
		return rc;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &now) || now.st_ino != st->st_ino || now.st_dev != st->st_dev)
		errno = ESTALE;
	else
		rc = fchmod(fd, m);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int wfs_chmod(struct wfs_ctx *c, const char *mode, const char *path,
	      unsigned *newmode)
{
	struct at a;
	struct stat st;
	long m;
	int rc = 0;

	/* a link is resolved here (beneath the root when confined); the
	 * name left is then never followed */
	if (open_at(c, "chmod", path, 1, 0, &a))
		return -1;
	/* an octal mode needs no stat: fchmodat2 alone, when the kernel
	 * has it (the name is never followed) */
	if (*mode >= '0' && *mode <= '7' && (m = parse_mode(mode, 0, 0)) >= 0 &&
	    !syscall(SYS_fchmodat2, a.dirfd, a.name, (mode_t)m, AT_SYMLINK_NOFOLLOW)) {
		*newmode = (unsigned)m;
		close_at(&a);
		return 0;
	}
	if (fstatat(a.dirfd, a.name, &st, AT_SYMLINK_NOFOLLOW)) {
		rc = fs_fail_errno(c, "chmod", path, errno);
	} else if (S_ISLNK(st.st_mode)) {
		rc = c->root ? wfs_fail(c, "chmod %s: a symlink leads outside the workspace root %s (it changed while being opened)",
					path, c->root)
			     : wfs_fail(c, "chmod %s: a symlink (its target is not reachable)", path);
	} else if ((m = parse_mode(mode, st.st_mode, S_ISDIR(st.st_mode))) < 0) {
		rc = wfs_fail(c, "chmod %s: invalid mode %s (octal, or [ugoa]*[+-=][rwxXst]*, comma-separated)",
			      path, mode);
	} else if (chmod_at(a.dirfd, a.name, &st, (mode_t)m)) {
		rc = errno == ELOOP || errno == ESTALE
			     ? wfs_fail(c, "chmod %s: replaced by %s while being changed, not changed",
					path, errno == ELOOP ? "a symlink" : "another file")
			     : fs_fail_errno(c, "chmod", path, errno);
	} else {
		*newmode = (unsigned)m;
	}
	close_at(&a);
	return rc;
}

/* ---- ls --depth, --long ---- */

static void ls_put(struct buf *b, int dfd, const char *rel, const struct fs_dirent *e,
		   int lng, int *first)
{
	const struct stat *st = &e->st;
	char perm[12], target[PATH_MAX + 1];
	ssize_t n;

	buf_puts(b, *first ? "{\"name\":" : ",{\"name\":");
	*first = 0;
	json_cstr(b, rel);
	buf_puts(b, ",\"type\":");
	json_cstr(b, S_ISDIR(st->st_mode) ? "dir" : S_ISLNK(st->st_mode) ? "symlink"
									 : "file");
	buf_printf(b, ",\"size\":%lld", (long long)st->st_size);
	if (!S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode) && !S_ISREG(st->st_mode)) {
		buf_puts(b, ",\"kind\":"); /* additive: the reference says file */
		json_cstr(b, fs_type_name(st->st_mode));
	}
	if (lng) {
		fs_mode_string(st->st_mode, perm);
		buf_printf(b, ",\"mode\":\"%04o\",\"perm\":\"%s\"",
			   (unsigned)(st->st_mode & 07777), perm);
		put_time(b, "mtime", &st->st_mtim);
		if (S_ISLNK(st->st_mode) &&
		    (n = readlinkat(dfd, e->name, target, sizeof(target) - 1)) >= 0) {
			buf_puts(b, ",\"link_target\":");
			json_str(b, target, (size_t)n);
		}
	}
	buf_putc(b, '}');
}

/* List dfd: each entry, then (depth left) its contents, entered with
 * O_NOFOLLOW from dfd so a link is listed, never walked into. */
static int ls_level(struct wfs_ctx *c, const char *path, int dfd, const char *prefix,
		    int depth, int lng, struct buf *b, int *first)
{
	struct fs_dirent *v = NULL;
	size_t n = 0, i;
	int sfd, rc;

	if (fs_dir_entries(c, "ls", path, dfd, &v, &n))
		return -1;
	for (i = 0; i < n; i++) {
		char *rel = *prefix ? arena_printf(c->arena, "%s/%s", prefix, v[i].name)
				    : v[i].name;
		if (!rel)
			return wfs_fail(c, "ls %s: out of memory", path);
		ls_put(b, dfd, rel, &v[i], lng, first);
		if (depth == 1 || !S_ISDIR(v[i].st.st_mode))
			continue;
		if (wfs_expired(c))
			return -1;
		sfd = openat(dfd, v[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0)
			continue; /* unreadable or replaced meanwhile: listed, not entered */
		rc = ls_level(c, path, sfd, rel, depth - 1, lng, b, first);
		close(sfd);
		if (rc)
			return -1;
	}
	return 0;
}

int wfs_ls_tree(struct wfs_ctx *c, const char *path, int depth, int lng,
		struct buf *out)
{
	int fd, rc, first = 1;

	if (depth <= 0 || depth > MAX_DEPTH)
		depth = MAX_DEPTH;
	fd = fs_open_dir(c, "ls", path);
	if (fd < 0)
		return -1;
	buf_putc(out, '[');
	rc = ls_level(c, path, fd, "", depth, lng, out, &first);
	buf_putc(out, ']');
	close(fd);
	return rc;
}
