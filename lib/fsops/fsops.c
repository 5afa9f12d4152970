/* fsops.c - stat, exists, mkdir, rm, append, symlink, readlink, chmod,
 * ls --depth (cp and mv: copy.c)
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
#include "fsops_int.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "json.h"
#include "path.h"

/* ---- stat, exists ---- */

void fsops_mode_string(mode_t m, char *o)
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

void fsops_rfc3339(long long sec, long nsec, char *out, size_t n)
{
	time_t t = (time_t)sec;
	struct tm tm;

	wfs_gmtime(t, &tm);
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

	fsops_rfc3339((long long)ts->tv_sec, ts->tv_nsec, t, sizeof(t));
	buf_printf(b, ",\"%s\":\"%s\",\"%s_unix\":%lld", key, t, key,
		   (long long)ts->tv_sec);
}

int wfs_stat_json(struct wfs_ctx *c, const char *path, int follow,
		  struct buf *out)
{
	struct fsops_at a;
	struct stat st;
	char perm[12], target[PATH_MAX + 1];
	ssize_t n = -1;
	int at = AT_SYMLINK_NOFOLLOW;

	if (fsops_open_at(c, "stat", path, follow, 0, &a))
		return -1;
	/* unconfined --follow: the kernel follows; confined: resolved above */
	if (follow && !c->root)
		at = 0;
	if (fstatat(a.dirfd, a.name, &st, at)) {
		int e = errno;
		fsops_close_at(&a);
		return wfs_fail_errno(c, "stat", path, e);
	}
	if (S_ISLNK(st.st_mode))
		n = readlinkat(a.dirfd, a.name, target, sizeof(target) - 1);
	fsops_close_at(&a);
	fsops_mode_string(st.st_mode, perm);
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
	struct fsops_at a;
	struct stat st;

	*yes = 0;
	*type = NULL;
	if (fsops_open_at(c, "exists", path, 0, 0, &a)) {
		/* a missing or non-directory parent: simply not there */
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return -1;
	}
	if (!fstatat(a.dirfd, a.name, &st, AT_SYMLINK_NOFOLLOW)) {
		*yes = 1;
		*type = type_of(st.st_mode);
	}
	fsops_close_at(&a);
	return 0;
}

/* ---- mkdir ---- */

int wfs_mkdir(struct wfs_ctx *c, const char *path, int parents, int *created)
{
	struct fsops_at a;
	struct stat st;
	int rc = 0;

	*created = 0;
	if (fsops_open_at(c, "mkdir", path, 0, parents, &a))
		return -1;
	if (!mkdirat(a.dirfd, a.name, 0777)) {
		*created = 1;
	} else if (errno == EEXIST && parents &&
		   !fstatat(a.dirfd, a.name, &st, AT_SYMLINK_NOFOLLOW) &&
		   S_ISDIR(st.st_mode)) {
		rc = 0; /* -p: an existing directory is fine */
	} else {
		rc = wfs_fail_errno(c, "mkdir", path, errno);
	}
	fsops_close_at(&a);
	return rc;
}

/* ---- rm ---- */

/* Remove everything in the directory dfd (opened O_NOFOLLOW, so never a
 * link's target), depth-first. Links are removed, never followed. */
int fsops_rm_tree(struct wfs_ctx *c, const char *path, int dfd, int depth,
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
		return wfs_fail_errno(c, "rm", path, e);
	}
	while (!rc && (d = readdir(dir))) {
		char *sub;
		if (fsops_is_dot(d->d_name))
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
			rc = sub ? wfs_fail_errno(c, "rm", sub, e)
				 : wfs_fail(c, "rm %s: out of memory", path);
		} else if (fsops_rm_tree(c, sub, fd, depth + 1, removed)) {
			rc = -1;
		} else if (unlinkat(dfd, d->d_name, AT_REMOVEDIR)) {
			rc = wfs_fail_errno(c, "rm", sub, errno);
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
	struct fsops_at a;
	int rc = 0, fd;

	*removed = 0;
	if (fsops_open_at(c, "rm", path, 0, 0, &a)) {
		if (force && errno == ENOENT)
			return 0;
		return -1;
	}
	if (fsops_is_dot(a.name)) {
		fsops_close_at(&a);
		return wfs_fail(c, "rm %s: refusing to remove \".\", \"..\" or the workspace root", path);
	}
	/* Anything but a directory goes in one call; EISDIR says it is
	 * one (no stat first: rm is mostly of files). */
	if (!unlinkat(a.dirfd, a.name, 0)) {
		*removed = 1;
	} else if (errno != EISDIR) {
		rc = force && errno == ENOENT ? 0 : wfs_fail_errno(c, "rm", path, errno);
	} else if (!recursive) {
		/* an empty directory goes without -r, as rmdir would */
		if (unlinkat(a.dirfd, a.name, AT_REMOVEDIR))
			rc = errno == ENOTEMPTY || errno == EEXIST
				     ? wfs_fail(c, "rm %s: is a non-empty directory (use -r)", path)
				     : wfs_fail_errno(c, "rm", path, errno);
		else
			*removed = 1;
	} else {
		fd = openat(a.dirfd, a.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			rc = wfs_fail_errno(c, "rm", path, errno == ELOOP ? EXDEV : errno);
		else if (!(rc = fsops_rm_tree(c, path, fd, 0, removed))) {
			if (unlinkat(a.dirfd, a.name, AT_REMOVEDIR))
				rc = wfs_fail_errno(c, "rm", path, errno);
			else
				(*removed)++;
		}
	}
	fsops_close_at(&a);
	return rc;
}

int wfs_append(struct wfs_ctx *c, const char *op, const char *path,
	       const char *data, size_t len)
{
	struct fsops_at a;
	struct stat st, now;
	int fd = -1, tries, rc = 0;
	size_t off = 0;

	/* a link is written through to its target, as write does */
	if (fsops_open_at(c, op, path, 1, 1, &a))
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
				rc = wfs_fail_errno(c, op, path, e == ELOOP ? EXDEV : e);
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
			rc = wfs_fail_errno(c, op, path, e);
		} else {
			off += (size_t)w;
		}
	}
	if (fd >= 0)
		close(fd);
	fsops_close_at(&a);
	return rc;
}

/* ---- symlink, readlink ---- */

int wfs_symlink(struct wfs_ctx *c, const char *target, const char *path)
{
	struct fsops_at a;
	int rc = 0;

	if (!*target)
		return wfs_fail(c, "symlink %s: empty target", path);
	if (fsops_open_at(c, "symlink", path, 0, 0, &a))
		return -1;
	/* the target is only data: never resolved or checked here */
	if (symlinkat(target, a.dirfd, a.name))
		rc = wfs_fail_errno(c, "symlink", path, errno);
	fsops_close_at(&a);
	return rc;
}

int wfs_readlink(struct wfs_ctx *c, const char *path, char **target)
{
	char buf[PATH_MAX + 1];
	struct fsops_at a;
	ssize_t n;

	if (fsops_open_at(c, "readlink", path, 0, 0, &a))
		return -1;
	n = readlinkat(a.dirfd, a.name, buf, sizeof(buf) - 1);
	if (n < 0) {
		int e = errno;
		fsops_close_at(&a);
		if (e == EINVAL)
			return wfs_fail(c, "readlink %s: not a symlink", path);
		return wfs_fail_errno(c, "readlink", path, e);
	}
	fsops_close_at(&a);
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
	struct fsops_at a;
	struct stat st;
	long m;
	int rc = 0;

	/* a link is resolved here (beneath the root when confined); the
	 * name left is then never followed */
	if (fsops_open_at(c, "chmod", path, 1, 0, &a))
		return -1;
	/* an octal mode needs no stat: fchmodat2 alone, when the kernel
	 * has it (the name is never followed) */
	if (*mode >= '0' && *mode <= '7' && (m = parse_mode(mode, 0, 0)) >= 0 &&
	    !syscall(SYS_fchmodat2, a.dirfd, a.name, (mode_t)m, AT_SYMLINK_NOFOLLOW)) {
		*newmode = (unsigned)m;
		fsops_close_at(&a);
		return 0;
	}
	if (fstatat(a.dirfd, a.name, &st, AT_SYMLINK_NOFOLLOW)) {
		rc = wfs_fail_errno(c, "chmod", path, errno);
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
			     : wfs_fail_errno(c, "chmod", path, errno);
	} else {
		*newmode = (unsigned)m;
	}
	fsops_close_at(&a);
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
	path_escaped_field(b, "name_escaped", rel);
	buf_puts(b, ",\"type\":");
	json_cstr(b, S_ISDIR(st->st_mode) ? "dir" : S_ISLNK(st->st_mode) ? "symlink"
									 : "file");
	buf_printf(b, ",\"size\":%lld", (long long)st->st_size);
	if (!S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode) && !S_ISREG(st->st_mode)) {
		buf_puts(b, ",\"kind\":"); /* additive: the reference says file */
		json_cstr(b, fs_type_name(st->st_mode));
	}
	if (lng) {
		fsops_mode_string(st->st_mode, perm);
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
