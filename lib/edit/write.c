/* write.c - write and edit: atomic replace that never loses data
 *
 * The new content goes to a temporary file in the target's directory,
 * gets the old file's mode (and owner when root), and is renamed over the
 * target. A symlink is written through to its target. Writers and editors
 * of one file serialise on flock() of the current inode, re-checking after
 * the lock that the inode is still the one at the path (a rename by the
 * previous holder replaces it), so concurrent edits are never lost.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "confine.h"
#include "ctx.h"
#include "edit.h"
#include "fs.h"
#include "fsops.h"
#include "settings.h"

static int mkdir_parents(struct wfs_ctx *c, const char *op, char *dir)
{
	struct stat st;
	char *s;

	if (!*dir || !stat(dir, &st))
		return 0;
	for (s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(dir, 0755) && errno != EEXIST) {
			int e = errno;
			*s = '/';
			return wfs_fail_errno(c, op, dir, e);
		}
		*s = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return wfs_fail_errno(c, op, dir, errno);
	return 0;
}

static char *dir_of(struct wfs_ctx *c, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return arena_strdup(c->arena, ".");
	if (slash == path)
		return arena_strdup(c->arena, "/");
	return arena_strndup(c->arena, path, (size_t)(slash - path));
}

/* The directory of target, opened O_PATH: confined, by a walk from the
 * root that follows no link, its missing parts made (mkdirat) when create;
 * else by path, made with mkdir -p first. *name is target's last part. */
static int open_dir(struct wfs_ctx *c, const char *op, const char *target,
		    int create, const char **name)
{
	const char *slash = strrchr(target, '/');
	char *dir = dir_of(c, target);
	int fd;

	*name = slash ? slash + 1 : target;
	if (!dir)
		return wfs_fail(c, "%s %s: out of memory", op, target);
	if (c->root) {
		fd = wfs_confined_dir(c, op, dir, create);
		/* a parent that is a file: name the whole path, as open does */
		if (fd < 0 && errno == ENOTDIR)
			return wfs_fail_errno(c, op, target, ENOTDIR);
		return fd;
	}
	if (create && mkdir_parents(c, op, dir))
		return -1;
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return wfs_fail_errno(c, op, target, errno);
	return fd;
}

/* Lock the file currently at name in dirfd (if any). Returns the locked
 * fd, -2 when there is no file, -3 when it cannot be opened to lock (st is
 * filled), or -1 on error. st receives its metadata. Confined, the name is
 * not followed: it was resolved, a link there now was swapped in. */
static int lock_current(struct wfs_ctx *c, const char *op, int dirfd,
			const char *name, const char *path, struct stat *st)
{
	int nofollow = c->root ? O_NOFOLLOW : 0;
	int at = c->root ? AT_SYMLINK_NOFOLLOW : 0;
	struct stat now;
	int fd, tries;

	for (tries = 0; tries < 1000; tries++) {
		/* O_NONBLOCK: opening a FIFO must not wait for a writer */
		fd = fs_openat_raw(dirfd, name, O_RDONLY | O_NONBLOCK | nofollow);
		if (fd < 0) {
			int e = errno;
			/* unreadable (mode 0200, say): replace it unlocked, mode kept */
			if (e == EACCES && !fstatat(dirfd, name, st, at) && S_ISREG(st->st_mode))
				return -3;
			if (e == ENOENT)
				return -2;
			if (e == ELOOP && nofollow)
				return wfs_fail(c, "%s %s: a symlink leads outside the workspace root %s (it changed while being opened)",
						op, path, c->root);
			return wfs_fail_errno(c, op, path, e);
		}
		if (fs_regular_fd(c, op, path, fd, st) < 0)
			return -1;
		while (flock(fd, LOCK_EX) && errno == EINTR)
			;
		if (!fstatat(dirfd, name, &now, at) && now.st_ino == st->st_ino &&
		    now.st_dev == st->st_dev)
			return fd;
		close(fd); /* replaced while we waited: lock the new one */
	}
	return wfs_fail(c, "%s %s: file keeps being replaced", op, path);
}

/* Temps are named ".wickfs-tmp-PID-NS-RANDOM": the writer's pid and pid
 * namespace, so a later writer can tell the leftover of a dead one
 * (kill -9 between link and rename, or an older build's named temp) from
 * a live one's. NS is 0 where /proc is missing. */
#define TMP_PREFIX ".wickfs-tmp-"

static unsigned long long pid_ns(void)
{
	static unsigned long long ns = ~0ull;
	char l[64], *p;
	ssize_t n;

	if (ns != ~0ull)
		return ns;
	n = readlink("/proc/self/ns/pid", l, sizeof(l) - 1);
	l[n > 0 ? n : 0] = 0;
	p = strchr(l, '[');
	ns = p ? strtoull(p + 1, NULL, 10) : 0;
	return ns;
}

static char *tmp_name(struct wfs_ctx *c, int tries)
{
	unsigned long long rnd;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (unsigned long long)wfs_now_ms() * 2654435761u + (unsigned)tries;
	return arena_printf(c->arena, TMP_PREFIX "%d-%llu-%016llx", (int)getpid(),
			    pid_ns(), rnd);
}

/* Remove the temps of writers of our pid namespace that are gone. Only
 * small directories are looked at, so a write into a huge one does not
 * pay a listing. */
static void clean_stale(int dirfd)
{
	unsigned long long ns;
	struct dirent *e;
	struct stat st;
	DIR *dir;
	int fd;

	if (fstat(dirfd, &st) || st.st_size > 65536)
		return;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((e = readdir(dir))) {
		char *end;
		long pid;

		if (strncmp(e->d_name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1))
			continue;
		pid = strtol(e->d_name + sizeof(TMP_PREFIX) - 1, &end, 10);
		if (pid <= 0 || *end != '-')
			continue; /* an older build's name: whose, unknown */
		ns = strtoull(end + 1, &end, 10);
		if (*end != '-' || ns != pid_ns() ||
		    !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		unlinkat(dirfd, e->d_name, 0);
	}
	closedir(dir);
}

static int tmp_write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		off += (size_t)w;
	}
	return 0;
}

/* Content, owner, mode and (WICKFS_FSYNC) durability of a new temp. */
static int fill_tmp(struct wfs_ctx *c, int fd, const char *data, size_t len,
		    const struct stat *old)
{
	int e = tmp_write_all(fd, data, len);

	if (e)
		return e;
	if (old) {
		if (geteuid() == 0 && fchown(fd, old->st_uid, old->st_gid))
			return errno;
		if (fchmod(fd, old->st_mode & 07777))
			return errno;
	}
	if (c->set->fsync && fsync(fd))
		return errno;
	return 0;
}

/* An unnamed file (O_TMPFILE), filled, then linked in under a temp name:
 * a writer killed while writing leaves nothing behind. Returns 1 when the
 * filesystem (or a missing /proc) does not allow it, for a named temp. */
static int stage_unnamed(struct wfs_ctx *c, int dirfd, const char *data,
			 size_t len, const struct stat *old, char **tmp, int *err)
{
	char proc[64];
	int fd, tries, rc = -1;

#ifdef O_TMPFILE
	fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#else
	fd = -1;
	errno = EOPNOTSUPP;
#endif
	if (fd < 0)
		return 1;
	*err = fill_tmp(c, fd, data, len, old);
	if (*err) {
		close(fd);
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (tries = 0; tries < 100; tries++) {
		*tmp = tmp_name(c, tries);
		if (!*tmp) {
			*err = ENOMEM;
			break;
		}
		if (!linkat(fd, "", dirfd, *tmp, AT_EMPTY_PATH) ||
		    (errno != EEXIST &&
		     !linkat(AT_FDCWD, proc, dirfd, *tmp, AT_SYMLINK_FOLLOW))) {
			rc = 0;
			break;
		}
		if (errno != EEXIST) {
			rc = 1; /* no CAP_DAC_READ_SEARCH and no /proc */
			break;
		}
	}
	if (rc < 0 && !*err)
		*err = EEXIST;
	if (close(fd) && !rc) {
		*err = errno;
		unlinkat(dirfd, *tmp, 0);
		rc = -1;
	}
	return rc;
}

/* Write data to a new temp file in dirfd, mode (and owner) of old when
 * given; *tmp gets its name. The target is untouched until wfs_commit. */
int wfs_stage(struct wfs_ctx *c, const char *op, int dirfd, const char *target,
	      const char *data, size_t len, const struct stat *old, char **tmp)
{
	int fd = -1, tries, e = 0;

	*tmp = NULL;
	clean_stale(dirfd);
	tries = stage_unnamed(c, dirfd, data, len, old, tmp, &e);
	if (!tries)
		return 0;
	if (tries < 0)
		return wfs_fail_errno(c, op, target, e);
	for (tries = 0; tries < 100; tries++) {
		*tmp = tmp_name(c, tries);
		if (!*tmp)
			return wfs_fail(c, "%s %s: out of memory", op, target);
		/* 0666 through the umask, as a new file should be. */
		fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	/* The file itself may be writable: what is refused is a new name
	 * in its directory, which the atomic replace needs. */
	if (fd < 0 && old && (errno == EACCES || errno == EPERM)) {
		char msg[128];
		return wfs_fail(c, "%s %s: %s: its directory is not writable, and "
				   "the file is replaced through a temporary file there",
				op, target, wfs_strerror(errno, msg, sizeof(msg)));
	}
	if (fd < 0)
		return wfs_fail_errno(c, op, target, errno);
	e = fill_tmp(c, fd, data, len, old);
	if (close(fd) && !e)
		e = errno;
	if (!e)
		return 0;
	unlinkat(dirfd, *tmp, 0);
	return wfs_fail_errno(c, op, target, e);
}

/* Rename the staged tmp over name (by name in the directory opened
 * beneath the root when confined, so it cannot land elsewhere); the temp
 * is removed on failure. */
static int commit_as(struct wfs_ctx *c, const char *op, int dirfd,
		     const char *tmp, const char *name, const char *target,
		     int noreplace);

int wfs_commit(struct wfs_ctx *c, const char *op, int dirfd, const char *tmp,
	       const char *name, const char *target)
{
	return commit_as(c, op, dirfd, tmp, name, target, 0);
}

/* NOREPLACE (--no-clobber): RENAME_NOREPLACE, so a file made meanwhile
 * stays. */
static int commit_as(struct wfs_ctx *c, const char *op, int dirfd,
		     const char *tmp, const char *name, const char *target,
		     int noreplace)
{
	int e;

	if (!(noreplace ? syscall(SYS_renameat2, dirfd, tmp, dirfd, name, 1)
			: renameat(dirfd, tmp, dirfd, name)))
		return 0;
	e = errno;
	unlinkat(dirfd, tmp, 0);
	return wfs_fail_errno(c, op, target, e);
}

static int replace_file(struct wfs_ctx *c, const char *op, int dirfd,
			const char *name, const char *target, const char *data,
			size_t len, const struct stat *old, int noreplace)
{
	char *tmp;

	if (wfs_stage(c, op, dirfd, target, data, len, old, &tmp))
		return -1;
	return commit_as(c, op, dirfd, tmp, name, target, noreplace);
}

int wfs_write(struct wfs_ctx *c, const char *path, const char *data,
	      size_t len, int no_clobber)
{
	const char *name;
	char *target;
	struct stat st;
	int fd, dirfd, rc;

	if (!*path)
		return wfs_fail(c, "write: empty path");
	/* confined: the path with every link resolved, checked beneath */
	target = c->root ? wfs_confine_canon(c, "write", path)
			 : fs_resolve_links(c, path);
	if (!target)
		return -1;
	dirfd = open_dir(c, "write", target, 1, &name);
	if (dirfd < 0)
		return -1;
	fd = lock_current(c, "write", dirfd, name, target, &st);
	if (no_clobber && (fd >= 0 || fd == -3))
		rc = wfs_fail_errno(c, "write", path, EEXIST);
	else
		rc = fd == -1 ? -1
			      : replace_file(c, "write", dirfd, name, target, data, len,
					     fd >= 0 || fd == -3 ? &st : NULL, no_clobber);
	if (fd >= 0)
		close(fd);
	close(dirfd);
	return rc;
}

/* Lines (1-based) of up to 8 occurrences, for an error an agent can use. */
static void describe_lines(char *out, size_t outlen, const char *data,
			   size_t len, const char *needle, size_t nlen)
{
	const char *p = data, *end = data + len, *hit, *q;
	long line = 1;
	size_t w = 0;
	int k = 0;

	out[0] = 0;
	while (k < 8 && (hit = memmem(p, (size_t)(end - p), needle, nlen))) {
		for (q = p; (q = memchr(q, '\n', (size_t)(hit - q))); q++)
			line++;
		w += (size_t)snprintf(out + w, outlen - w, "%s%ld", k ? ", " : "", line);
		if (w >= outlen)
			break;
		for (q = hit; q < hit + nlen; q++)
			line += *q == '\n';
		p = hit + nlen;
		k++;
	}
}

/* "old_text not found in file", and what helps an agent retry: the lines
 * of the closest match ignoring whitespace, and CRLF endings. Nothing is
 * added when neither applies, so the reference message stays as it is. */
static int not_found(struct wfs_ctx *c, const char *path, const char *data,
		     size_t len, const struct wfs_edit *e)
{
	size_t first, last;
	int near = patch_closest(data, len, e->old_text, e->old_len, &first, &last);
	int crlf = patch_crlf(data, len);
	char hint[128] = "";

	if (near && first == last)
		snprintf(hint, sizeof(hint), "; closest match ignoring whitespace: line %zu", first);
	else if (near)
		snprintf(hint, sizeof(hint), "; closest match ignoring whitespace: lines %zu-%zu",
			 first, last);
	if (crlf)
		snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint),
			 "; the file has CRLF line endings");
	return wfs_fail(c, "edit %s: old_text not found in file%s", path, hint);
}

/* The edit itself, on the locked file. */
static int edit_locked(struct wfs_ctx *c, const char *path, const struct wfs_edit *e,
		       struct wfs_locked *l, int *replacements)
{
	char *data, *hit, *p;
	size_t len, count = 0;
	struct buf nb;
	int rc;

	if (fs_read_fd(c, "edit", path, l->fd, &l->st, &data, &len))
		return -1;
	buf_init(&nb);
	for (p = data; (hit = memmem(p, len - (size_t)(p - data), e->old_text,
				     e->old_len));) {
		buf_add(&nb, p, (size_t)(hit - p));
		buf_add(&nb, e->new_text, e->new_len);
		p = hit + e->old_len;
		count++;
		if (e->which != EDIT_ALL)
			break;
	}
	if (!count) {
		buf_free(&nb);
		return not_found(c, path, data, len, e);
	}
	if (e->which == EDIT_UNIQUE) {
		size_t more = 0;
		char lines[160];
		for (hit = data; (hit = memmem(hit, len - (size_t)(hit - data),
					       e->old_text, e->old_len));
		     hit += e->old_len)
			more++;
		if (more > 1) {
			buf_free(&nb);
			describe_lines(lines, sizeof(lines), data, len, e->old_text, e->old_len);
			return wfs_fail(c, "edit %s: old_text matches %zu times (lines %s); add context to make it unique or pass --all",
					path, more, lines);
		}
	}
	buf_add(&nb, p, len - (size_t)(p - data));
	if (nb.oom) {
		buf_free(&nb);
		return wfs_fail(c, "edit %s: out of memory", path);
	}
	rc = replace_file(c, "edit", l->dirfd, l->name, l->target, nb.p ? nb.p : "",
			  nb.len, &l->st, 0);
	buf_free(&nb);
	if (!rc)
		*replacements = (int)count;
	return rc;
}

int wfs_edit(struct wfs_ctx *c, const char *path, const struct wfs_edit *e,
	     int *replacements)
{
	struct wfs_locked l;
	int rc;

	if (!e->old_len)
		return wfs_fail(c, "old_text must not be empty");
	if (e->old_len == e->new_len && !memcmp(e->old_text, e->new_text, e->old_len))
		return wfs_fail(c, "edit %s: old_text and new_text are the same; nothing would change",
				path);
	if (wfs_lock_file(c, "edit", path, 0, &l))
		return -1;
	rc = edit_locked(c, path, e, &l, replacements);
	wfs_unlock(&l);
	return rc;
}

int wfs_lock_file(struct wfs_ctx *c, const char *op, const char *path,
		  int create, struct wfs_locked *l)
{
	memset(l, 0, sizeof(*l));
	l->fd = l->dirfd = -1;
	l->target = c->root ? wfs_confine_canon(c, op, path) : fs_resolve_links(c, path);
	if (!l->target)
		return -1;
	l->dirfd = open_dir(c, op, l->target, create, &l->name);
	if (l->dirfd < 0)
		return errno == ENOENT ? wfs_fail_errno(c, op, path, ENOENT) : -1;
	l->fd = lock_current(c, op, l->dirfd, l->name, l->target, &l->st);
	if (l->fd >= 0)
		return 0;
	if (l->fd == -2 && create) {
		l->fd = -1;
		return 0; /* no file: it will be made */
	}
	if (l->fd != -1)
		wfs_fail_errno(c, op, path, l->fd == -2 ? ENOENT : EACCES);
	l->fd = -1;
	wfs_unlock(l);
	return -1;
}

void wfs_unlock(struct wfs_locked *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->dirfd >= 0)
		close(l->dirfd);
	l->fd = l->dirfd = -1;
}
