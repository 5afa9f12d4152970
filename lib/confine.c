/* confine.c - keep every path beneath the workspace root (WICKFS_ROOT)
 *
 * A path is resolved the way the kernel will resolve it, one component at
 * a time from "/" or the working directory: ".." goes to the parent of
 * what has been resolved so far, a symlink's target is spliced in and
 * walked too. The walk may pass through the root's ancestors on its way
 * in, but once inside it may not leave, neither by ".." at the root nor
 * by a symlink, and it must end inside. Below a component that does not
 * exist (a file or directories about to be written) the rest is walked
 * by name: nothing there can be a symlink yet. A ".." that climbs back
 * above that component returns to real directories, whose components are
 * checked again (else "nope/../link" would pass a link unchecked).
 *
 * The check names the link that leads out; it does not hold by itself,
 * since a component can be swapped for a symlink right after it. So the
 * operations then open the resolved path beneath the root's descriptor:
 * openat2 RESOLVE_BENEATH, or where that is missing (before Linux 5.6, or
 * refused by seccomp) a walk of O_NOFOLLOW opens that refuses any symlink
 * it meets (the resolved path had none). Directories to create are made
 * the same way, by mkdirat through descriptors from the root.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "arena.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "settings.h"
#include "wickfs.h"

#define MAX_LINKS 40
/* WFS_STATE_DIR anywhere beneath the root: no applet reaches into one by
 * a path, only the machinery that owns it (ctx own_state). */
#define RESERVED WFS_STATE_DIR

enum {
	OUTSIDE,
	ANCESTOR,
	INSIDE
};

static int where(const char *root, size_t rl, const char *p, size_t pl)
{
	if (pl >= rl && !memcmp(p, root, rl) && (pl == rl || p[rl] == '/' || rl == 1))
		return INSIDE;
	if (pl == 1 || (pl < rl && !memcmp(root, p, pl) && root[pl] == '/'))
		return ANCESTOR;
	return OUTSIDE;
}

/* The components still to walk: a stack of strings, the next on top. */
struct todo {
	char buf[2 * PATH_MAX + 64];
	size_t len; /* buf holds "c1/c2/.../cn", walked from the start */
};

/* Put path's components before what is left to walk. */
static int push_front(struct todo *t, const char *path, size_t n)
{
	while (n && path[n - 1] == '/')
		n--;
	if (n + 1 + t->len >= sizeof(t->buf))
		return -1;
	if (t->len) {
		memmove(t->buf + n + 1, t->buf, t->len);
		t->buf[n] = '/';
		t->len += n + 1;
	} else {
		t->len = n;
	}
	memcpy(t->buf, path, n);
	return 0;
}

/* Take the first component into comp; 0 when none is left. */
static int pop_front(struct todo *t, char *comp, size_t cap)
{
	size_t i = 0, j;

	while (i < t->len && t->buf[i] == '/')
		i++;
	if (i == t->len) {
		t->len = 0;
		return 0;
	}
	for (j = i; j < t->len && t->buf[j] != '/'; j++)
		;
	if (j - i >= cap)
		return -1;
	memcpy(comp, t->buf + i, j - i);
	comp[j - i] = 0;
	memmove(t->buf, t->buf + j, t->len - j);
	t->len -= j;
	return 1;
}

/* Walk path; 0 with its resolved form in canon (when given), or -1 with
 * the reason in why. */
static int reserved(const char *rel)
{
	const char *p = rel;

	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			return 0;
		if (!strncmp(p, RESERVED, sizeof(RESERVED) - 1) &&
		    (!p[sizeof(RESERVED) - 1] || p[sizeof(RESERVED) - 1] == '/'))
			return 1;
		p += strcspn(p, "/");
	}
}

static int confine_resolve(const char *root, const char *path, char *canon,
			   size_t canonlen, char *why, size_t whylen, int own)
{
	/* on the stack, not thread-local: 8 KB of TLS made every process
	 * start map and fault in a TLS block, confined or not */
	struct todo t;
	char cur[PATH_MAX + 1], comp[NAME_MAX + 2], target[PATH_MAX + 1];
	char last_link[PATH_MAX + 1] = "", last_target[PATH_MAX + 1] = "";
	size_t rl = strlen(root), cl;
	size_t real_len = 0; /* with missing: cur[0..real_len) exists */
	int links = 0, missing = 0, r;

	t.len = 0;
	if (path[0] == '/') {
		strcpy(cur, "/");
	} else if (!getcwd(cur, sizeof(cur))) {
		snprintf(why, whylen, "cannot tell the working directory: %s", strerror(errno));
		return -1;
	}
	if (push_front(&t, path, strlen(path))) {
		snprintf(why, whylen, "path too long");
		errno = ENAMETOOLONG;
		return -1;
	}
	cl = strlen(cur);
	if (where(root, rl, cur, cl) == OUTSIDE)
		goto outside;
	while ((r = pop_front(&t, comp, sizeof(comp))) > 0) {
		struct stat st;
		ssize_t n;

		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			if (cl == rl && !memcmp(cur, root, rl)) {
				if (rl == 1)
					continue; /* "/..": "/", as the kernel has it */
				goto outside;     /* ".." out of the root */
			}
			while (cl > 1 && cur[cl - 1] != '/')
				cl--;
			if (cl > 1)
				cl--;
			cur[cl] = 0;
			if (missing && cl <= real_len)
				missing = 0; /* back in what exists: check again */
			continue;
		}
		if (cl + 1 + strlen(comp) >= sizeof(cur)) {
			snprintf(why, whylen, "path too long");
			errno = ENAMETOOLONG;
			return -1;
		}
		if (!missing)
			real_len = cl;
		if (cl > 1)
			cur[cl++] = '/';
		strcpy(cur + cl, comp);
		cl += strlen(comp);
		if (where(root, rl, cur, cl) == OUTSIDE)
			goto outside;
		/* Below a missing (or unreadable) component nothing can be a
		 * link yet: the rest is walked by name (mkdir -p would). */
		if (missing || lstat(cur, &st)) {
			missing = 1;
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++links > MAX_LINKS) {
			snprintf(why, whylen, "too many levels of symbolic links");
			errno = ELOOP;
			return -1;
		}
		n = readlink(cur, target, sizeof(target) - 1);
		if (n <= 0) {
			/* a link that cannot be read cannot be walked by name */
			snprintf(why, whylen, "cannot read the symlink %s: %s", cur,
				 n ? strerror(errno) : "it is empty");
			return -1;
		}
		target[n] = 0;
		snprintf(last_link, sizeof(last_link), "%s", cur);
		snprintf(last_target, sizeof(last_target), "%s", target);
		if (push_front(&t, target, (size_t)n)) {
			snprintf(why, whylen, "path too long");
			errno = ENAMETOOLONG;
			return -1;
		}
		if (target[0] == '/') {
			strcpy(cur, "/");
			cl = 1;
		} else {
			while (cl > 1 && cur[cl - 1] != '/')
				cl--;
			if (cl > 1)
				cl--;
			cur[cl] = 0;
		}
	}
	if (r < 0) {
		snprintf(why, whylen, "file name too long");
		errno = ENAMETOOLONG;
		return -1;
	}
	if (where(root, rl, cur, cl) == INSIDE) {
		if (!own && reserved(cur + (rl == 1 ? 0 : rl))) {
			snprintf(why, whylen, "refused: " RESERVED " is reserved for wickfs's own "
					      "state (snapshots, restores, overlays)");
			return -1;
		}
		if (canon)
			snprintf(canon, canonlen, "%s", cur);
		return 0;
	}
outside:
	if (last_link[0])
		snprintf(why, whylen, "a symlink leads outside the workspace root %s (%s -> %s)",
			 root, last_link, last_target);
	else
		snprintf(why, whylen, "outside the workspace root %s", root);
	return -1;
}

int confine_check(const char *root, const char *path, char *why, size_t whylen)
{
	return confine_resolve(root, path, NULL, 0, why, whylen, 0);
}

char *wfs_realpath(const char *path, char *out)
{
	char why[PATH_MAX * 2 + 128];
	struct stat st;

	/* the kernel's walk first: every component there, as realpath asks */
	if (stat(path, &st) || confine_resolve("/", path, out, PATH_MAX + 1, why, sizeof(why), 1))
		return NULL;
	return out;
}

/* (ctx.h's, here for wfs_realpath) */
void wfs_ctx_set_root(struct wfs_ctx *c, const char *root)
{
	char real[PATH_MAX + 1];
	struct stat st;

	c->root = NULL;
	c->root_errno = 0;
	if (!root || !*root)
		return;
	if (!wfs_realpath(root, real)) {
		c->root = root;
		c->root_errno = errno;
	} else if (!(c->root = arena_strdup(c->arena, real))) {
		c->root = root;
		c->root_errno = ENOMEM;
	} else if (stat(real, &st)) {
		c->root_errno = errno;
	} else if (!S_ISDIR(st.st_mode)) {
		c->root_errno = ENOTDIR;
	}
}

void wfs_ctx_init(struct wfs_ctx *c, struct arena *a, const struct settings *s)
{
	wfs_ctx_init_root(c, a, NULL);
	c->set = s;
	c->readonly = s->readonly;
	c->readonly_exec = s->readonly_exec;
	wfs_ctx_set_root(c, s->root);
}

int confine_canon(const char *root, const char *path, char *canon, size_t canonlen, char *why,
		  size_t whylen)
{
	return confine_resolve(root, path, canon, canonlen, why, whylen, 0);
}

/* "OP PATH: workspace root ROOT (WICKFS_ROOT): what err says". */
static int fail_root(struct wfs_ctx *c, const char *op, const char *path, int err)
{
	char where[PATH_MAX * 2 + 64];

	snprintf(where, sizeof(where), "%s: workspace root %s (WICKFS_ROOT)", path, c->root);
	return wfs_fail_errno(c, op, where, err);
}

int wfs_confine(struct wfs_ctx *c, const char *op, const char *path)
{
	char why[PATH_MAX * 2 + 128];

	if (!c->root)
		return 0;
	if (c->root_errno)
		return fail_root(c, op, path, c->root_errno);
	if (!confine_resolve(c->root, *path ? path : ".", NULL, 0, why, sizeof(why), c->own_state))
		return 0;
	return wfs_fail(c, "%s %s: %s", op, path, why);
}

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define RESOLVE_NO_MAGICLINKS_ 0x02
#define RESOLVE_BENEATH_ 0x08

struct open_how_ {
	unsigned long long flags, mode, resolve;
};

/* Set once openat2 answered ENOSYS or EPERM: the walk is used from then. */
static volatile int no_openat2;

/* Directory comp in fd, O_PATH, the link itself never followed: the
 * descriptor, or -1 with errno (EXDEV when comp is a symlink). Each step
 * of the walks below. */
static int open_subdir(int fd, const char *comp)
{
	struct stat st;
	int nfd = (int)syscall(SYS_openat, fd, comp,
			       O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	int err = errno;

	if (nfd >= 0)
		return nfd;
	if (err == ENOTDIR && !fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode))
		err = EXDEV;
	errno = err;
	return -1;
}

/* From dirfd through the directories of rel, one component at a time,
 * none of them followed; ".." is refused (EXDEV), missing directories
 * are made when create. With last (NAME_MAX + 1 bytes) the final
 * component is not entered but copied there ("" for an empty rel).
 * Returns the directory reached (dirfd itself when none was entered),
 * or -1 with errno. */
static int descend(int dirfd, const char *rel, int create, char *last)
{
	char comp[NAME_MAX + 1];
	const char *p = rel, *e;
	int fd = dirfd, nfd, err;

	for (;; p = e) {
		while (*p == '/')
			p++;
		for (e = p; *e && *e != '/'; e++)
			;
		if ((size_t)(e - p) > NAME_MAX) {
			err = ENAMETOOLONG;
			goto fail;
		}
		memcpy(comp, p, (size_t)(e - p));
		comp[e - p] = 0;
		while (*e == '/')
			e++;
		if (!strcmp(comp, "..")) {
			err = EXDEV;
			goto fail;
		}
		if (last && !*e) {
			strcpy(last, comp);
			return fd;
		}
		if (!*comp)
			return fd;
		if (!strcmp(comp, "."))
			continue;
		nfd = open_subdir(fd, comp);
		if (nfd < 0 && errno == ENOENT && create) {
			/* EEXIST: made meanwhile (by a link too: the open says) */
			if (mkdirat(fd, comp, 0755) && errno != EEXIST) {
				err = errno;
				goto fail;
			}
			nfd = open_subdir(fd, comp);
		}
		if (nfd < 0) {
			err = errno;
			goto fail;
		}
		if (fd != dirfd)
			close(fd);
		fd = nfd;
	}
fail:
	if (fd != dirfd)
		close(fd);
	errno = err;
	return -1;
}

/* Without openat2: rel one component at a time from dirfd, none of them
 * followed. rel is a resolved path (no "..", no links), so a symlink met
 * here was swapped in since the check: refused (EXDEV), never followed. */
static int walk_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	char comp[NAME_MAX + 1];
	struct stat st;
	int fd = descend(dirfd, rel, 0, comp), nfd, err;

	if (fd < 0)
		return -1;
	nfd = (int)syscall(SYS_openat, fd, *comp ? comp : ".", flags | O_NOFOLLOW, mode);
	err = errno;
	if (nfd < 0 && (err == ELOOP || err == ENOTDIR) &&
	    !fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		err = EXDEV;
	/* O_PATH | O_NOFOLLOW opens a link itself: not what was checked */
	if (nfd >= 0 && (flags & O_PATH) && !fstat(nfd, &st) && S_ISLNK(st.st_mode)) {
		close(nfd);
		nfd = -1;
		err = EXDEV;
	}
	if (fd != dirfd)
		close(fd);
	errno = err;
	return nfd;
}

int confine_openat(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how_ how = {0, mode, RESOLVE_BENEATH_ | RESOLVE_NO_MAGICLINKS_};
	int fd;

	/* openat2 refuses flags O_PATH ignores */
	flags |= O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY | O_LARGEFILE);
	if (!*rel)
		rel = ".";
	if (!no_openat2) {
		how.flags = (unsigned long long)(unsigned)flags;
		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return fd;
		/* EPERM is also what a file's own permissions can say;
		 * only a refusal of "." (always allowed) means openat2. */
		if (errno == EPERM) {
			struct open_how_ probe = {O_PATH | O_CLOEXEC, 0, RESOLVE_BENEATH_};
			fd = (int)syscall(SYS_openat2, dirfd, ".", &probe, sizeof(probe));
			if (fd >= 0) {
				close(fd);
				errno = EPERM;
				return -1;
			}
		}
		no_openat2 = 1;
	}
	return walk_beneath(dirfd, rel, flags, mode);
}

/* Resolve path and open it beneath the root (rootfd, or the root opened
 * here when rootfd < 0): fd, or -1 with errno (EXDEV: refused, the
 * reason in why; else the open's own cause, why empty). */
static int open_resolved(const char *root, int rootfd, const char *path, int flags,
			 char *why, size_t whylen, int own_state)
{
	char canon[PATH_MAX + 1];
	const char *rel;
	int fd, e, own = rootfd < 0;

	why[0] = 0;
	if (confine_resolve(root, *path ? path : ".", canon, sizeof(canon), why, whylen, own_state)) {
		errno = EXDEV;
		return -1;
	}
	rel = canon + strlen(root);
	while (*rel == '/')
		rel++;
	if (own && (rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	fd = confine_openat(rootfd, rel, flags, 0);
	e = errno;
	if (own)
		close(rootfd);
	if (fd < 0 && e == EXDEV)
		snprintf(why, whylen, "a symlink leads outside the workspace root %s (it changed while being opened)",
			 root);
	errno = e;
	return fd;
}

int confine_open(const char *root, int rootfd, const char *path, int flags,
		 char *why, size_t whylen)
{
	return open_resolved(root, rootfd, path, flags, why, whylen, 0);
}

int wfs_confined_open(struct wfs_ctx *c, const char *op, const char *path,
		      int flags)
{
	char why[PATH_MAX * 2 + 128];
	int fd, e;

	/* A refusal leaves errno EXDEV, which no caller takes for "there is
	 * no such file" (write would then create one). */
	if (c->root_errno) {
		wfs_confine(c, op, path);
		errno = EXDEV;
		return -1;
	}
	fd = open_resolved(c->root, -1, path, flags, why, sizeof(why), c->own_state);
	if (fd >= 0)
		return fd;
	e = errno;
	if (why[0])
		wfs_fail(c, "%s %s: %s", op, path, why);
	else
		wfs_fail_errno(c, op, path, e);
	errno = e;
	return -1;
}

int confine_dirat(int dirfd, const char *rel, int create)
{
	int fd;

	if (strlen(rel) > PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = descend(dirfd, rel, create, NULL);
	if (fd == dirfd)
		fd = (int)syscall(SYS_openat, dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	return fd;
}

int wfs_confined_dir(struct wfs_ctx *c, const char *op, const char *dir, int create)
{
	const char *rel;
	int rootfd, fd, e;

	if (c->root_errno) {
		wfs_confine(c, op, dir);
		errno = EXDEV;
		return -1;
	}
	rel = dir + strlen(c->root);
	if (strncmp(dir, c->root, strlen(c->root)) || (*rel && *rel != '/' && strcmp(c->root, "/")))
		return wfs_fail(c, "%s %s: outside the workspace root %s", op, dir, c->root);
	while (*rel == '/')
		rel++;
	rootfd = open(c->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return fail_root(c, op, dir, errno);
	fd = confine_dirat(rootfd, rel, create);
	e = errno;
	close(rootfd);
	if (fd >= 0)
		return fd;
	if (e != EXDEV)
		return wfs_fail_errno(c, op, dir, e);
	wfs_fail(c, "%s %s: a symlink leads outside the workspace root %s (it changed while being created)",
		 op, dir, c->root);
	errno = e;
	return -1;
}

char *wfs_confine_canon(struct wfs_ctx *c, const char *op, const char *path)
{
	char canon[PATH_MAX + 1], why[PATH_MAX * 2 + 128];
	char *r;

	if (c->root_errno) {
		wfs_confine(c, op, path);
		errno = EXDEV;
		return NULL;
	}
	if (confine_resolve(c->root, *path ? path : ".", canon, sizeof(canon), why,
			    sizeof(why), c->own_state)) {
		wfs_fail(c, "%s %s: %s", op, path, why);
		errno = EXDEV;
		return NULL;
	}
	r = arena_strdup(c->arena, canon);
	if (!r)
		wfs_fail(c, "%s %s: out of memory", op, path);
	return r;
}
