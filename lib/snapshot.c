/* snapshot.c - content-addressed snapshots and journalled restore.
 *
 * Store (include/snapshot.h): objects/XX/REST are gzip members named by
 * the SHA-256 of their content; snaps/ID is a gzip manifest:
 *   wickfs-snapshot 1 TIME TAG
 *   T MODE SEC NSEC SIZE HASH PATH      (T: f, d or l; HASH "-" for d)
 * with TAG and PATH escaped ("\\" and "\n"), entries sorted by path.
 *
 * Restore uses a journal, not an exchange of the whole tree: DIR is
 * usually the confinement root, whose parent may not be ours and whose
 * descriptor a daemon holds. Phase 1 extracts every entry that differs
 * into DIR/.wickfs/restore/N; interrupted there, the tree is untouched and
 * the staging is dropped by the next call. The commit point is the rename
 * of DIR/.wickfs/restore/journal (the snapshot id, its store, its manifest)
 * into place. Phase 2
 * then makes the tree match the manifest by idempotent steps (removals,
 * renames of staged entries, chmods); interrupted there, the next
 * snapshot, snapshots or restore on DIR runs phase 2 again from the
 * journal before anything else. So the tree is seen as the old one or
 * the restored one, never a mix.
 *
 * The journal commands deletions and modes, so only a journal a restore
 * wrote is acted on: its first line is "seal HMAC", an HMAC-SHA-256 of
 * the rest and of DIR's device and inode, keyed by DIR/.wickfs/key (32
 * random bytes the first restore makes, 0600). Archives never unpack into
 * a .wickfs directory and confined applets never reach one, so neither
 * can plant a key or read it; a key that is not a 32-byte 0600 regular
 * file of ours (git, for one, never makes a 0600 file) is not trusted. A
 * journal that fails the check is reported and left in place, and modes
 * from a journal never carry setuid, setgid or sticky.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "archive.h"
#include "fsops.h"
#include "bytes.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "gzpar.h"
#include "json.h"
#include "sha256.h"
#include "snapshot.h"

#define IO_BUF (128 * 1024)
#define MAX_DEPTH 256
#define MANIFEST_MAX (256u << 20) /* decompressed manifest bound */
#define WFS_DIR WFS_STATE_DIR
#define STAGE WFS_STATE_DIR "/restore"
#define KEY_LEN 32
#define SEAL_LEN 70 /* "seal " + 64 hex digits + "\n" */

static void hex(const unsigned char *h, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < 2 * n; i++)
		out[i] = "0123456789abcdef"[(h[i / 2] >> (i % 2 ? 0 : 4)) & 15];
	out[i] = 0;
}

/* Whether name exists in dirfd (a link not followed). Not faccessat:
 * musl's needs faccessat2 for AT_SYMLINK_NOFOLLOW, absent before 5.8. */
static int exists_at(int dirfd, const char *name)
{
	struct stat st;

	return !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

/* ---- the manifest ---- */

static void put_escaped(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			buf_puts(b, "\\\\");
		else if (*s == '\n')
			buf_puts(b, "\\n");
		else
			buf_putc(b, *s);
	}
}

/* In place; -1 on a bad escape. */
static int unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s == '\\') {
			s++;
			if (*s == 'n')
				*w++ = '\n';
			else if (*s == '\\')
				*w++ = '\\';
			else
				return -1;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
	return 0;
}

static void manifest_text(const struct snap_manifest *m, struct buf *b)
{
	char h[65];
	size_t i;

	buf_printf(b, "wickfs-snapshot 1 %lld ", m->info.time);
	put_escaped(b, m->info.tag);
	for (i = 0; i < m->n; i++) {
		const struct snap_ent *e = &m->v[i];
		if (e->type == 'd')
			strcpy(h, "-");
		else
			hex(e->hash, 32, h);
		buf_printf(b, "\n%c %o %lld %ld %llu %s ", e->type, e->mode, e->sec,
			   e->nsec, e->size, h);
		put_escaped(b, e->path);
	}
	buf_putc(b, '\n');
}

/* A relative path of clean components. */
static int clean_path(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (*p && !*++p)
			return 0;
	}
	return 1;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct snap_ent *)a)->path, ((const struct snap_ent *)b)->path);
}

static int unhex(const char *s, unsigned char *out)
{
	int i;

	for (i = 0; i < 64; i++) {
		int c = s[i], v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
											: -1;
		if (v < 0)
			return -1;
		out[i / 2] = (unsigned char)(i % 2 ? out[i / 2] | v : v << 4);
	}
	return s[64] == ' ' ? 0 : -1;
}

/* Fields of an entry line; -1 when malformed. */
static int parse_ent(char *l, struct snap_ent *e)
{
	char *end;

	if ((l[0] != 'f' && l[0] != 'd' && l[0] != 'l') || l[1] != ' ')
		return -1;
	e->type = l[0];
	e->mode = (unsigned)strtoull(l + 2, &end, 8);
	if (*end != ' ' || e->mode > 07777)
		return -1;
	e->sec = (long long)strtoull(end + 1, &end, 10);
	if (*end != ' ')
		return -1;
	e->nsec = (long)strtoull(end + 1, &end, 10);
	if (*end != ' ' || e->nsec < 0 || e->nsec > 999999999)
		return -1;
	e->size = strtoull(end + 1, &end, 10);
	if (*end != ' ')
		return -1;
	end++;
	if (e->type == 'd') {
		if (end[0] != '-' || end[1] != ' ')
			return -1;
		end += 2;
	} else {
		if (unhex(end, e->hash))
			return -1;
		end += 65;
	}
	if (unescape(end) || !clean_path(end))
		return -1;
	e->path = end;
	return 0;
}

int snapshot_manifest_parse(struct arena *a, const char *text, size_t len,
			    struct snap_manifest *m, char *err, size_t errlen)
{
	char *s = arena_strndup(a, text, len), *l, *next, *end;
	size_t line = 1, i;

	memset(m, 0, sizeof(*m));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (strlen(s) != len || strncmp(s, "wickfs-snapshot 1 ", 18))
		goto bad;
	next = strchr(s, '\n');
	if (!next)
		goto bad;
	*next++ = 0;
	m->info.time = (long long)strtoull(s + 18, &end, 10);
	if (*end != ' ' || unescape(end + 1))
		goto bad;
	m->info.tag = end + 1;
	for (l = next; *l; l = next) {
		struct snap_ent e;
		line++;
		next = strchr(l, '\n');
		if (!next)
			goto bad;
		*next++ = 0;
		memset(&e, 0, sizeof(e));
		if (parse_ent(l, &e) ||
		    arena_grow(a, &m->v, &m->cap, m->n + 1, sizeof(e)))
			goto bad;
		m->v[m->n++] = e;
		if (e.type == 'f') {
			m->info.files++;
			m->info.bytes += e.size;
		} else if (e.type == 'd') {
			m->info.dirs++;
		} else {
			m->info.symlinks++;
		}
	}
	/* Sorted, unique, and each entry's parent a directory listed before
	 * it: what a restore relies on. */
	for (i = 1; i < m->n; i++)
		if (strcmp(m->v[i - 1].path, m->v[i].path) >= 0) {
			line = i + 2;
			goto bad;
		}
	for (i = 0; i < m->n; i++) {
		char *slash = strrchr(m->v[i].path, '/');
		struct snap_ent key, *p;
		if (!slash)
			continue;
		*slash = 0;
		key.path = m->v[i].path;
		p = bsearch(&key, m->v, i, sizeof(key), ent_cmp);
		*slash = '/';
		if (!p || p->type != 'd') {
			line = i + 2;
			goto bad;
		}
	}
	return 0;
bad:
	snprintf(err, errlen, "malformed manifest at line %zu", line);
	return -1;
}

/* ---- the store ---- */

struct snap {
	struct wfs_ctx *c;
	const char *op;
	const char *dir; /* as given, for messages */
	const char *store;
	int dirfd;   /* DIR, O_RDONLY */
	int storefd; /* the store, O_RDONLY */
	dev_t sdev;
	ino_t sino;
	int put; /* scanning stores new objects */
	struct snap_manifest *m;
	unsigned long long new_objects, new_bytes;
	char *buf;
	unsigned seq;
	struct gzpar_writer *gz; /* one writer for every object, reset each time */
};

static int fd_sink(void *arg, const void *p, size_t n)
{
	return bytes_write_all(*(int *)arg, p, n);
}

static ssize_t fd_source(void *arg, void *p, size_t n)
{
	ssize_t r;

	do
		r = read(*(int *)arg, p, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Write gzip of (fd's rest, or mem) into the store as NAME, by a
 * temporary and a rename. If sha is set, it hashes the input. */
static int store_gz(struct snap *s, const char *name, int fd, const char *mem,
		    size_t len, struct sha256 *sha)
{
	char tmp[64];
	struct gzpar_writer *g;
	int out, rc = 0;

	snprintf(tmp, sizeof(tmp), "tmp.%d.%u", (int)getpid(), s->seq++);
	out = openat(s->storefd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		return wfs_fail(s->c, "%s %s/%s: %s", s->op, s->store, tmp, strerror(errno));
	/* one thread: gzpar_writer_reset cannot refuse */
	if (!s->gz)
		s->gz = gzpar_writer_open(6, 1, fd_sink, &out);
	else
		gzpar_writer_reset(s->gz, fd_sink, &out);
	g = s->gz;
	if (!g)
		rc = -1;
	while (!rc && fd >= 0) {
		ssize_t n = fd_source(&fd, s->buf, IO_BUF);
		if (n <= 0) {
			rc = (int)n;
			break;
		}
		if (sha)
			sha256_add(sha, s->buf, (size_t)n);
		rc = gzpar_writer_write(g, s->buf, (size_t)n);
	}
	if (!rc && fd < 0) {
		if (sha)
			sha256_add(sha, mem, len);
		rc = gzpar_writer_write(g, mem, len);
	}
	if (!rc)
		rc = gzpar_writer_finish(g);
	if (!rc)
		s->new_bytes += gzpar_writer_out_bytes(g);
	if (close(out))
		rc = -1;
	if (!rc && renameat(s->storefd, tmp, s->storefd, name))
		rc = -1;
	if (rc) {
		int e = errno;
		unlinkat(s->storefd, tmp, 0);
		return wfs_fail(s->c, "%s %s/%s: %s", s->op, s->store, name,
				strerror(e ? e : EIO));
	}
	return 0;
}

static void object_name(const unsigned char *h, char *out)
{
	char x[65];

	hex(h, 32, x);
	snprintf(out, 80, "objects/%.2s/%s", x, x + 2);
}

/* Store the content of e (file at name in dirfd, or a link target) unless
 * an object of its hash is there already: the dedupe. */
static int put_object(struct snap *s, struct snap_ent *e, int dirfd,
		      const char *name, const char *target)
{
	char obj[80];
	struct sha256 sha;
	int fd = -1, rc;

	object_name(e->hash, obj);
	if (exists_at(s->storefd, obj))
		return 0;
	obj[10] = 0;
	mkdirat(s->storefd, obj, 0755);
	obj[10] = '/';
	if (!target) {
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return wfs_fail(s->c, "%s %s: %s", s->op, e->path, strerror(errno));
	}
	sha256_init(&sha);
	rc = store_gz(s, obj, fd, target, target ? strlen(target) : 0, &sha);
	if (fd >= 0)
		close(fd);
	if (rc)
		return rc;
	s->new_objects++;
	sha256_end(&sha, sha.blk);
	if (memcmp(sha.blk, e->hash, 32)) {
		/* Changed between the two reads: file it under what we stored. */
		char now[80];
		memcpy(e->hash, sha.blk, 32);
		e->size = sha.len;
		object_name(e->hash, now);
		now[10] = 0;
		mkdirat(s->storefd, now, 0755);
		now[10] = '/';
		if (renameat(s->storefd, obj, s->storefd, now))
			return wfs_fail(s->c, "%s %s: %s", s->op, e->path, strerror(errno));
	}
	return 0;
}

/* ---- scanning a tree ---- */

static int hash_file(struct snap *s, struct snap_ent *e, int dirfd, const char *name)
{
	struct sha256 sha;
	struct stat st;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		int err = fd < 0 ? errno : EAGAIN;
		if (fd >= 0)
			close(fd);
		return wfs_fail(s->c, "%s %s: %s", s->op, e->path, strerror(err));
	}
	sha256_init(&sha);
	while ((n = fd_source(&fd, s->buf, IO_BUF)) > 0)
		sha256_add(&sha, s->buf, (size_t)n);
	close(fd);
	if (n < 0)
		return wfs_fail(s->c, "%s %s: %s", s->op, e->path, strerror(errno));
	e->size = sha.len; /* before sha256_end, which counts its padding in */
	sha256_end(&sha, e->hash);
	return 0;
}

static int scan_dir(struct snap *s, int dirfd, const char *prefix, int depth);

static int scan_one(struct snap *s, int dirfd, const char *name, char *rel,
		    int depth)
{
	struct snap_ent e;
	struct stat st;
	char *target;
	int rc = 0, fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : wfs_fail(s->c, "%s %s: %s", s->op, rel, strerror(errno));
	if ((!depth && !strcmp(name, WFS_DIR)) ||
	    (st.st_dev == s->sdev && st.st_ino == s->sino))
		return 0; /* our own state, and the store */
	memset(&e, 0, sizeof(e));
	e.path = rel;
	e.mode = st.st_mode & 07777;
	e.sec = st.st_mtim.tv_sec;
	e.nsec = st.st_mtim.tv_nsec;
	if (S_ISREG(st.st_mode)) {
		e.type = 'f';
		rc = hash_file(s, &e, dirfd, name);
		if (!rc && s->put)
			rc = put_object(s, &e, dirfd, name, NULL);
	} else if (S_ISLNK(st.st_mode)) {
		struct sha256 sha;
		ssize_t n;
		e.type = 'l';
		/* On the heap: this frame recurses, once per level. */
		target = malloc(PATH_MAX + 1);
		n = target ? readlinkat(dirfd, name, target, PATH_MAX) : -1;
		if (n < 0) {
			free(target);
			return wfs_fail(s->c, "%s %s: %s", s->op, rel, strerror(errno));
		}
		target[n] = 0;
		sha256_init(&sha);
		sha256_add(&sha, target, (size_t)n);
		sha256_end(&sha, e.hash);
		e.size = (unsigned long long)n;
		if (s->put)
			rc = put_object(s, &e, dirfd, name, target);
		free(target);
	} else if (S_ISDIR(st.st_mode)) {
		e.type = 'd';
	} else {
		return 0; /* fifos, sockets, devices: not kept */
	}
	if (rc || arena_grow(s->c->arena, &s->m->v, &s->m->cap, s->m->n + 1, sizeof(e)))
		return rc ? rc : wfs_fail(s->c, "%s %s: out of memory", s->op, rel);
	s->m->v[s->m->n++] = e;
	if (e.type != 'd')
		return 0;
	if (depth >= MAX_DEPTH)
		return wfs_fail(s->c, "%s %s: deeper than %d levels", s->op, rel, MAX_DEPTH);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return wfs_fail(s->c, "%s %s: %s", s->op, rel, strerror(errno));
	rc = scan_dir(s, fd, rel, depth + 1);
	close(fd);
	return rc;
}

static int scan_dir(struct snap *s, int dirfd, const char *prefix, int depth)
{
	size_t n, i;
	char **names = archive_list_dir(dirfd, &n);
	int rc = 0;

	if (!names)
		return wfs_fail(s->c, "%s %s: %s", s->op, *prefix ? prefix : s->dir,
				strerror(errno ? errno : ENOMEM));
	for (i = 0; i < n; i++) {
		char *rel = *prefix ? arena_printf(s->c->arena, "%s/%s", prefix, names[i])
				    : arena_strdup(s->c->arena, names[i]);
		if (!rc && !rel)
			rc = wfs_fail(s->c, "%s %s: out of memory", s->op, prefix);
		if (!rc)
			rc = wfs_expired(s->c) ? -1 : scan_one(s, dirfd, names[i], rel, depth);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* The tree as a manifest, sorted by path (hashing every file). */
static int scan_tree(struct snap *s, struct snap_manifest *m, int put)
{
	memset(m, 0, sizeof(*m));
	s->m = m;
	s->put = put;
	if (scan_dir(s, s->dirfd, "", 0))
		return -1;
	if (m->n) /* qsort must not be given NULL, even for nothing */
		qsort(m->v, m->n, sizeof(*m->v), ent_cmp);
	return 0;
}

/* ---- opening DIR and the store ---- */

static void snap_close(struct snap *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	if (s->storefd >= 0)
		close(s->storefd);
	free(s->buf);
	gzpar_writer_free(s->gz);
}

static int do_recover(struct snap *s);

/* The store directory, beneath the root when confined (made when create). */
static int open_store(struct wfs_ctx *c, const char *op, char *store, int create)
{
	int fd;

	if (c->root) {
		/* a store is wickfs's own state: it may be under .wickfs */
		c->own_state++;
		fd = wfs_confine(c, op, store) ? -1
		     : create                  ? fs_open_dir_made(c, op, store)
					       : fs_open_dir(c, op, store);
		c->own_state--;
		return fd;
	}
	if (create && fs_mkdirs(store))
		return wfs_fail_errno(c, op, store, errno);
	fd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? wfs_fail_errno(c, op, store, errno) : fd;
}

/* The store's path as an absolute one (the journal's record of it). */
static char *store_abs(struct snap *s)
{
	char cwd[4096];

	if (*s->store == '/' || !getcwd(cwd, sizeof(cwd)))
		return arena_strdup(s->c->arena, s->store);
	return arena_printf(s->c->arena, "%s/%s", cwd, s->store);
}

static int snap_open(struct wfs_ctx *c, struct snap *s, const char *op,
		     const struct wfs_snap_opts *o, int create)
{
	struct stat st;
	char *store;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->op = op;
	s->dirfd = s->storefd = -1;
	s->dir = o->dir ? o->dir : c->root ? c->root
					   : ".";
	if (create && wfs_writable(c, op, s->dir))
		return -1;
	if (wfs_confine(c, op, s->dir))
		return -1;
	/* confined, DIR and the store are opened beneath the root: the check
	 * is no guard against a directory swapped for a symlink since */
	s->dirfd = c->root ? fs_open_dir(c, op, s->dir)
			   : open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0)
		return c->root ? -1 : wfs_fail_errno(c, op, s->dir, errno);
	store = o->store ? arena_strdup(c->arena, o->store)
			 : arena_printf(c->arena, "%s/" WFS_DIR "/snapshots", s->dir);
	s->store = store;
	s->buf = malloc(IO_BUF);
	if (!store || !s->buf)
		return wfs_fail(c, "%s %s: out of memory", op, s->dir);
	s->storefd = open_store(c, op, store, create);
	if (s->storefd < 0)
		return -1;
	mkdirat(s->storefd, "objects", 0755);
	mkdirat(s->storefd, "snaps", 0755);
	if (!fstat(s->storefd, &st)) {
		s->sdev = st.st_dev;
		s->sino = st.st_ino;
	}
	return c->readonly ? 0 : do_recover(s);
}

/* Read the gzip file name (in dirfd) whole into the arena. */
static int read_gz(struct snap *s, int dirfd, const char *name, const char *what,
		   unsigned long long limit, char **out, size_t *len)
{
	struct buf b;
	struct gzpar_reader *z;
	ssize_t n = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return wfs_fail(s->c, "%s %s: %s", s->op, what, strerror(errno));
	buf_init(&b);
	z = gzpar_reader_open(fd_source, &fd, limit);
	while (z && (n = gzpar_reader_read(z, s->buf, IO_BUF)) > 0)
		buf_add(&b, s->buf, (size_t)n);
	close(fd);
	if (!z || n < 0 || b.oom) {
		wfs_fail(s->c, "%s %s: %s", s->op, what, z ? gzpar_reader_error(z) : "out of memory");
		gzpar_reader_free(z);
		buf_free(&b);
		return -1;
	}
	gzpar_reader_free(z);
	*len = b.len;
	*out = arena_strndup(s->c->arena, b.p ? b.p : "", b.len);
	buf_free(&b);
	return *out ? 0 : wfs_fail(s->c, "%s %s: out of memory", s->op, what);
}

static int load_manifest(struct snap *s, const char *id, struct snap_manifest *m)
{
	char *what = arena_printf(s->c->arena, "%s/snaps/%s", s->store, id), *text, err[96];
	size_t len;

	if (!what || read_gz(s, s->storefd, what + strlen(s->store) + 1, what,
			     MANIFEST_MAX, &text, &len))
		return -1;
	if (snapshot_manifest_parse(s->c->arena, text, len, m, err, sizeof(err)))
		return wfs_fail(s->c, "%s %s: %s", s->op, what, err);
	m->info.id = arena_strdup(s->c->arena, id);
	return 0;
}

static int info_cmp(const void *a, const void *b)
{
	const struct wfs_snap_info *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time     ? 1
				: x->stored_ns < y->stored_ns ? -1
				: x->stored_ns > y->stored_ns ? 1
							      : strcmp(x->id, y->id);
}

/* Every snapshot's header, oldest first. */
static int list_snaps(struct snap *s, struct wfs_snap_info **list, size_t *n)
{
	int fd = openat(s->storefd, "snaps", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t k, cnt, cap = 0;
	char **names;

	*list = NULL;
	*n = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : wfs_fail_errno(s->c, s->op, s->store, errno);
	names = archive_list_dir(fd, &cnt);
	close(fd);
	if (!names)
		return wfs_fail(s->c, "%s %s: out of memory", s->op, s->store);
	for (k = 0; k < cnt; k++) {
		struct snap_manifest m;
		struct stat st;
		if (strlen(names[k]) == 16 && strspn(names[k], "0123456789abcdef") == 16 &&
		    !load_manifest(s, names[k], &m) &&
		    !arena_grow(s->c->arena, list, &cap, *n + 1, sizeof(**list))) {
			if (!fstatat(s->storefd, arena_printf(s->c->arena, "snaps/%s", names[k]) ?: "",
				     &st, AT_SYMLINK_NOFOLLOW))
				m.info.stored_ns = (long long)st.st_mtim.tv_sec * 1000000000LL +
						   st.st_mtim.tv_nsec;
			(*list)[(*n)++] = m.info;
		}
		free(names[k]);
	}
	free(names);
	if (*n)
		qsort(*list, *n, sizeof(**list), info_cmp);
	return 0;
}

/* REF as an id, a unique id prefix, or a tag (the newest with it). */
static int find_snap(struct snap *s, const char *ref, struct snap_manifest *m)
{
	struct wfs_snap_info *l;
	const char *id = NULL;
	size_t n, i, hits = 0;
	char *exact = arena_printf(s->c->arena, "snaps/%s", ref);

	/* A whole id: that manifest, so its own error is the one reported. */
	if (exact && strlen(ref) == 16 && strspn(ref, "0123456789abcdef") == 16 &&
	    exists_at(s->storefd, exact))
		return load_manifest(s, ref, m);
	if (list_snaps(s, &l, &n))
		return -1;
	for (i = n; i-- > 0;)
		if (!strcmp(l[i].tag, ref) && *ref) {
			id = l[i].id;
			break;
		}
	for (i = 0; !id && i < n; i++)
		if (*ref && !strncmp(l[i].id, ref, strlen(ref)) && !hits++)
			id = l[i].id;
	if (hits > 1)
		return wfs_fail(s->c, "%s %s: ambiguous snapshot id in %s", s->op, ref, s->store);
	if (!id)
		return wfs_fail(s->c, "%s %s: no such snapshot in %s", s->op, ref, s->store);
	return load_manifest(s, id, m);
}

/* ---- snapshot ---- */

int wfs_snapshot(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		 struct wfs_snap_info *info)
{
	struct snap s;
	struct snap_manifest m;
	struct sha256 sha;
	struct buf b;
	unsigned char h[32];
	char id[33], name[40];
	const char *prev = NULL;
	int rc;

	memset(info, 0, sizeof(*info));
	if (snap_open(c, &s, "snapshot", o, 1) || scan_tree(&s, &m, 1)) {
		snap_close(&s);
		return -1;
	}
	if (o->tag && *o->tag) {
		/* a tag names its newest snapshot: say which one it leaves */
		struct wfs_snap_info *l;
		size_t n, i;
		if (!list_snaps(&s, &l, &n))
			for (i = n; i-- > 0;)
				if (!strcmp(l[i].tag, o->tag)) {
					prev = l[i].id;
					break;
				}
		*c->err = 0;
	}
	m.info.time = (long long)time(NULL);
	m.info.tag = o->tag ? o->tag : "";
	buf_init(&b);
	manifest_text(&m, &b);
	sha256_init(&sha);
	sha256_add(&sha, b.p, b.len);
	sha256_end(&sha, h);
	hex(h, 8, id);
	snprintf(name, sizeof(name), "snaps/%s", id);
	rc = b.oom ? wfs_fail(c, "snapshot %s: out of memory", s.dir)
		   : store_gz(&s, name, -1, b.p, b.len, NULL);
	buf_free(&b);
	if (!rc) {
		struct snap_manifest back;
		/* Count as a reader will, and prove the manifest reads back. */
		rc = load_manifest(&s, id, &back);
		if (!rc) {
			*info = back.info;
			info->new_objects = s.new_objects;
			info->new_bytes = s.new_bytes;
			info->previous = prev && strcmp(prev, id) ? prev : NULL;
		}
	}
	snap_close(&s);
	return rc;
}

int wfs_snapshots(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		  struct wfs_snap_info **list, size_t *n)
{
	struct snap s;
	int rc = snap_open(c, &s, "snapshots", o, 0);

	*list = NULL;
	*n = 0;
	if (!rc)
		rc = list_snaps(&s, list, n);
	snap_close(&s);
	return rc;
}

/* ---- diff ---- */

static int same(const struct snap_ent *a, const struct snap_ent *b)
{
	return a->type == b->type && (a->type == 'd' || !memcmp(a->hash, b->hash, 32)) &&
	       (a->type == 'l' || a->mode == b->mode);
}

static void add_path(struct wfs_ctx *c, const char ***v, size_t *n, size_t *cap,
		     const char *p)
{
	if (!arena_grow(c->arena, v, cap, *n + 1, sizeof(char *)))
		(*v)[(*n)++] = p;
}

/* t: the snapshot, cur: the tree; both sorted. */
static void diff_lists(struct wfs_ctx *c, const struct snap_manifest *t,
		       const struct snap_manifest *cur, struct wfs_snap_diff *d)
{
	size_t i = 0, j = 0;

	while (i < t->n || j < cur->n) {
		int k = i == t->n ? 1 : j == cur->n ? -1
						    : strcmp(t->v[i].path, cur->v[j].path);
		if (k < 0)
			add_path(c, &d->removed, &d->nremoved, &d->cremoved, t->v[i++].path);
		else if (k > 0)
			add_path(c, &d->added, &d->nadded, &d->cadded, cur->v[j++].path);
		else if (!same(&t->v[i++], &cur->v[j++]))
			add_path(c, &d->modified, &d->nmodified, &d->cmodified, t->v[i - 1].path);
	}
}

/* Open the store, find snapshot ref (*t), scan the tree (*cur) and list
 * what differs: the start of both --diff and restore. The store is open
 * (snap_close it) whatever the result. */
static int diff_open(struct wfs_ctx *c, struct snap *s, const char *op, int create,
		     const struct wfs_snap_opts *o, const char *ref,
		     struct snap_manifest *t, struct snap_manifest *cur,
		     struct wfs_snap_diff *d)
{
	int rc;

	memset(d, 0, sizeof(*d));
	rc = snap_open(c, s, op, o, create);
	if (!rc)
		rc = find_snap(s, ref, t);
	if (!rc)
		rc = scan_tree(s, cur, 0);
	if (!rc) {
		d->id = t->info.id;
		diff_lists(c, t, cur, d);
	}
	return rc;
}

int wfs_snap_diff(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		  const char *ref, struct wfs_snap_diff *d)
{
	struct snap s;
	struct snap_manifest t, cur;
	int rc = diff_open(c, &s, "snapshot", 0, o, ref, &t, &cur, d);

	snap_close(&s);
	return rc;
}

/* ---- restore ---- */

static struct snap_ent *find_ent(const struct snap_manifest *m, const char *path)
{
	struct snap_ent key;

	key.path = (char *)path;
	return bsearch(&key, m->v, m->n, sizeof(key), ent_cmp);
}

/* The directory holding rel, opened O_PATH beneath DIR without following
 * a link; *base gets the last component. */
static int parent_fd(struct snap *s, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	char *dir;
	int fd;

	*base = slash ? slash + 1 : rel;
	if (!slash)
		return fcntl(s->dirfd, F_DUPFD_CLOEXEC, 0);
	dir = arena_strndup(s->c->arena, rel, (size_t)(slash - rel));
	fd = dir ? confine_dirat(s->dirfd, dir, 0) : -1;
	return fd;
}

/* Extract e's object into the staging directory as NAME, with e's mode
 * and mtime, checking its hash (a damaged store is an error). */
static int stage(struct snap *s, int stagefd, const struct snap_ent *e,
		 const char *name)
{
	char obj[80], *what = arena_printf(s->c->arena, "%s (object of %s)", s->store, e->path);
	struct timespec ts[2] = {{0, UTIME_OMIT}, {e->sec, e->nsec}};
	unsigned char h[32];
	struct sha256 sha;
	struct gzpar_reader *z;
	ssize_t n = 0;
	int in, out, rc = 0;

	object_name(e->hash, obj);
	in = openat(s->storefd, obj, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return wfs_fail(s->c, "restore %s: %s", what, strerror(errno));
	unlinkat(stagefd, name, 0);
	if (e->type == 'l') {
		char *text;
		size_t len;
		close(in);
		rc = read_gz(s, s->storefd, obj, what, 65536, &text, &len);
		sha256_init(&sha);
		sha256_add(&sha, text, len);
		sha256_end(&sha, h);
		if (!rc && (memcmp(h, e->hash, 32) || strlen(text) != len))
			return wfs_fail(s->c, "restore %s: damaged object", what);
		if (!rc && symlinkat(text, stagefd, name))
			rc = wfs_fail(s->c, "restore %s: %s", e->path, strerror(errno));
		if (!rc)
			utimensat(stagefd, name, ts, AT_SYMLINK_NOFOLLOW);
		return rc;
	}
	out = openat(stagefd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return wfs_fail(s->c, "restore %s: %s", e->path, strerror(errno));
	}
	sha256_init(&sha);
	z = gzpar_reader_open(fd_source, &in, e->size + 1);
	while (z && (n = gzpar_reader_read(z, s->buf, IO_BUF)) > 0 && !rc) {
		sha256_add(&sha, s->buf, (size_t)n);
		rc = fd_sink(&out, s->buf, (size_t)n);
	}
	sha256_end(&sha, h);
	if (!z || n < 0 || memcmp(h, e->hash, 32))
		rc = wfs_fail(s->c, "restore %s: damaged object", what);
	else if (rc || fchmod(out, e->mode) || futimens(out, ts))
		rc = wfs_fail(s->c, "restore %s: %s", e->path, strerror(errno));
	gzpar_reader_free(z);
	close(in);
	if (close(out) && !rc)
		rc = wfs_fail(s->c, "restore %s: %s", e->path, strerror(errno));
	return rc;
}

static int rm_rel(struct snap *s, const char *rel)
{
	long long n;
	char *p = arena_printf(s->c->arena, "%s/%s", s->dir, rel);

	return p ? wfs_rm(s->c, p, 1, 1, &n) : -1;
}

/* The system call itself: musl's fchmodat carries a fallback for flags
 * this never passes. */
static int chmod_at(int dirfd, const char *name, unsigned mode)
{
	return syscall(SYS_fchmodat, dirfd, name, mode) ? -1 : 0;
}

/* Phase 2: make the tree (cur, as scanned) match t. Idempotent. */
static int apply(struct snap *s, const struct snap_manifest *t,
		 const struct snap_manifest *cur, int stagefd)
{
	size_t i;

	for (i = 0; i < cur->n; i++) {
		const struct snap_ent *e = find_ent(t, cur->v[i].path);
		if ((!e || e->type != cur->v[i].type) && rm_rel(s, cur->v[i].path))
			return -1;
	}
	for (i = 0; i < t->n; i++) {
		const struct snap_ent *e = &t->v[i], *now = find_ent(cur, e->path);
		const char *base;
		char name[24];
		int pfd, rc = 0;

		if (now && now->type != e->type)
			now = NULL; /* removed above */
		pfd = parent_fd(s, e->path, &base);
		if (pfd < 0)
			return wfs_fail(s->c, "restore %s: %s", e->path, strerror(errno));
		snprintf(name, sizeof(name), "%zu", i);
		if (e->type == 'd') {
			if ((!now && mkdirat(pfd, base, 0700) && errno != EEXIST) ||
			    chmod_at(pfd, base, e->mode | 0700))
				rc = -1;
		} else if (!now || memcmp(now->hash, e->hash, 32)) {
			if (!exists_at(stagefd, name) &&
			    stage(s, stagefd, e, name)) {
				close(pfd);
				return -1;
			}
			if (renameat(stagefd, name, pfd, base))
				rc = -1;
		} else {
			struct timespec ts[2] = {{0, UTIME_OMIT}, {e->sec, e->nsec}};
			if ((e->type == 'f' && chmod_at(pfd, base, e->mode)) ||
			    utimensat(pfd, base, ts, AT_SYMLINK_NOFOLLOW))
				rc = -1;
		}
		if (rc)
			rc = errno;
		close(pfd);
		if (rc)
			return wfs_fail(s->c, "restore %s: %s", e->path, strerror(rc));
	}
	/* Directory modes and mtimes last, children before parents. */
	for (i = t->n; i-- > 0;) {
		const struct snap_ent *e = &t->v[i];
		struct timespec ts[2] = {{0, UTIME_OMIT}, {e->sec, e->nsec}};
		const char *base;
		int pfd;
		if (e->type != 'd')
			continue;
		pfd = parent_fd(s, e->path, &base);
		if (pfd < 0 || chmod_at(pfd, base, e->mode) || utimensat(pfd, base, ts, 0)) {
			int err = errno;
			if (pfd >= 0)
				close(pfd);
			return wfs_fail(s->c, "restore %s: %s", e->path, strerror(err));
		}
		close(pfd);
	}
	return 0;
}

static int open_stage(struct snap *s, int create)
{
	int fd;

	if (create) {
		mkdirat(s->dirfd, WFS_DIR, 0755);
		mkdirat(s->dirfd, STAGE, 0700);
	}
	fd = openat(s->dirfd, STAGE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (create || errno != ENOENT))
		return wfs_fail_errno(s->c, s->op, STAGE, errno);
	return fd;
}

static void drop_stage(struct snap *s)
{
	long long n;
	char *p = arena_printf(s->c->arena, "%s/" STAGE, s->dir);

	if (p)
		wfs_rm(s->c, p, 1, 1, &n);
	*s->c->err = 0;
}

/* DIR/.wickfs, not followed if a symlink: a descriptor, or -1. */
static int wfs_dir_fd(struct snap *s)
{
	return openat(s->dirfd, WFS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The journal key (DIR/.wickfs/key), made when create and missing: 0, or
 * -1 with the reason in why. Made under a temporary name and linked into
 * place, so two restores agree on one key and a crash leaves no short
 * one. */
static int journal_key(struct snap *s, int create, unsigned char key[KEY_LEN],
		       char *why, size_t whylen)
{
	struct stat st;
	int wfd = wfs_dir_fd(s), fd;
	ssize_t n = -1;

	if (wfd < 0) {
		snprintf(why, whylen, "%s/" WFS_DIR ": %s", s->dir, strerror(errno));
		return -1;
	}
	fd = openat(wfd, "key", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		char tmp[48];
		int t;
		snprintf(tmp, sizeof(tmp), "key.%d.tmp", (int)getpid());
		unlinkat(wfd, tmp, 0);
		t = openat(wfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (t >= 0 && getrandom(key, KEY_LEN, 0) == KEY_LEN && !bytes_write_all(t, key, KEY_LEN) &&
		    !fsync(t) && !close(t)) {
			t = -1;
			if (linkat(wfd, tmp, wfd, "key", 0) && errno != EEXIST)
				t = -2;
		} else if (t >= 0) {
			close(t);
		}
		unlinkat(wfd, tmp, 0);
		fd = t == -1 ? openat(wfd, "key", O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	}
	if (fd < 0) {
		snprintf(why, whylen, "%s/" WFS_DIR "/key: %s", s->dir,
			 errno == ENOENT ? "no key (no restore made this journal)" : strerror(errno));
		close(wfd);
		return -1;
	}
	close(wfd);
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    (st.st_mode & 07777) == 0600 && st.st_size == KEY_LEN && st.st_nlink == 1)
		n = read(fd, key, KEY_LEN);
	close(fd);
	if (n != KEY_LEN) {
		snprintf(why, whylen, "%s/" WFS_DIR "/key: not a key wickfs made "
				      "(it must be a 32-byte regular file of uid %d, mode 0600)",
			 s->dir, (int)geteuid());
		return -1;
	}
	return 0;
}

/* The seal of a journal body: HMAC of DIR's identity and the body. */
static void journal_seal(struct snap *s, const unsigned char key[KEY_LEN],
			 const char *body, size_t len, char out[65])
{
	unsigned char mac[32];
	char head[96];
	struct stat st;
	int n;

	if (fstat(s->dirfd, &st))
		memset(&st, 0, sizeof(st));
	n = snprintf(head, sizeof(head), "wickfs-journal 1 %llu %llu\n",
		     (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	sha256_hmac(key, KEY_LEN, head, (size_t)n, body, len, mac);
	hex(mac, 32, out);
}

/* The journal: "seal HMAC", then the snapshot's id, its store's absolute
 * path and its whole manifest, one after the other, newline-separated.
 * So whatever store the next call names, phase 2 knows the tree it must
 * reach and where its objects are. A journal whose seal does not verify
 * is refused, with the reason, and left where it is. */
static int read_journal(struct snap *s, int jfd, char *id, char **store,
			struct snap_manifest *t)
{
	unsigned char key[KEY_LEN];
	struct buf b;
	char err[96], why[PATH_MAX + 160], seal[65], *body, *nl = NULL;
	size_t blen = 0, i;
	ssize_t n;
	int rc;

	*store = NULL;
	buf_init(&b);
	while ((n = read(jfd, s->buf, IO_BUF)) > 0 && b.len < MANIFEST_MAX)
		buf_add(&b, s->buf, (size_t)n);
	if (n < 0 || b.oom) {
		buf_free(&b);
		return wfs_fail(s->c, "%s %s/" STAGE "/journal: %s", s->op, s->dir,
				n < 0 ? strerror(errno) : "out of memory");
	}
	why[0] = 0;
	body = b.p + SEAL_LEN;
	if (b.len < SEAL_LEN || memcmp(b.p, "seal ", 5) || b.p[SEAL_LEN - 1] != '\n') {
		snprintf(why, sizeof(why), "it has no seal");
	} else if (!journal_key(s, 0, key, why, sizeof(why))) {
		unsigned char d = 0;
		blen = b.len - SEAL_LEN;
		journal_seal(s, key, body, blen, seal);
		for (i = 0; i < 64; i++)
			d |= (unsigned char)(seal[i] ^ b.p[5 + i]);
		if (d)
			snprintf(why, sizeof(why), "its seal does not match %s/" WFS_DIR "/key", s->dir);
	}
	if (why[0]) {
		buf_free(&b);
		return wfs_fail(s->c, "%s %s/" STAGE "/journal: refused, not written by a restore "
				      "of this directory (%s); left in place, nothing changed: remove %s/" STAGE " to go on",
				s->op, s->dir, why, s->dir);
	}
	if (blen > 17)
		nl = memchr(body + 17, '\n', blen - 17);
	if (blen < 17 || body[16] != '\n' || !nl) {
		buf_free(&b);
		return wfs_fail(s->c, "%s %s/" STAGE "/journal: malformed", s->op, s->dir);
	}
	memcpy(id, body, 16);
	id[16] = 0;
	if (snapshot_manifest_parse(s->c->arena, nl + 1, blen - (size_t)(nl + 1 - body),
				    t, err, sizeof(err))) {
		rc = wfs_fail(s->c, "%s %s/" STAGE "/journal: %s", s->op, s->dir, err);
	} else {
		*store = arena_strndup(s->c->arena, body + 17, (size_t)(nl - body - 17));
		rc = !(t->info.id = arena_strdup(s->c->arena, id)) || !*store;
		for (i = 0; i < t->n; i++)
			t->v[i].mode &= 0777; /* never setuid, setgid or sticky */
	}
	buf_free(&b);
	return rc;
}

/* Phase 2 from the journal, if one is there; else drop any staging. */
static int do_recover(struct snap *s)
{
	struct snap_manifest t, cur;
	char id[17] = "", *store, *here;
	int fd = open_stage(s, 0), jfd, rc, sfd = -1, keep = -1;

	if (fd < 0)
		return *s->c->err ? -1 : 0;
	jfd = openat(fd, "journal", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (jfd < 0) {
		close(fd);
		drop_stage(s); /* interrupted before the commit: the old tree */
		return 0;
	}
	rc = read_journal(s, jfd, id, &store, &t);
	close(jfd);
	/* The objects come from the restore's own store when this call
	 * names another one (and that one is still there). */
	if (!rc && *store && (here = store_abs(s)) && strcmp(here, store)) {
		sfd = open_store(s->c, s->op, store, 0);
		*s->c->err = 0;
		if (sfd >= 0) {
			keep = s->storefd;
			s->storefd = sfd;
		}
	}
	if (!rc)
		rc = scan_tree(s, &cur, 0);
	if (!rc)
		rc = apply(s, &t, &cur, fd);
	if (sfd >= 0) {
		s->storefd = keep;
		close(sfd);
	}
	close(fd);
	if (!rc)
		drop_stage(s);
	return rc;
}

int wfs_restore(struct wfs_ctx *c, const struct wfs_snap_opts *o,
		const char *ref, struct wfs_snap_diff *d)
{
	struct snap s;
	struct snap_manifest t, cur;
	size_t i;
	int sfd = -1, jfd, rc;

	rc = diff_open(c, &s, "restore", 1, o, ref, &t, &cur, d);
	if (!rc) {
		drop_stage(&s);
		rc = (sfd = open_stage(&s, 1)) < 0;
	}
	/* Phase 1: stage what differs; the tree is untouched. */
	for (i = 0; !rc && i < t.n; i++) {
		const struct snap_ent *e = &t.v[i], *now = find_ent(&cur, e->path);
		char name[24];
		snprintf(name, sizeof(name), "%zu", i);
		if (e->type != 'd' && !(now && now->type == e->type && !memcmp(now->hash, e->hash, 32)))
			rc = wfs_expired(c) ? -1 : stage(&s, sfd, e, name);
	}
	/* The commit point: the journal names the snapshot. */
	if (!rc) {
		unsigned char key[KEY_LEN];
		char why[PATH_MAX + 160], seal[65], *where = store_abs(&s);
		struct buf jb;

		buf_init(&jb);
		buf_printf(&jb, "seal %064d\n", 0);
		buf_add(&jb, t.info.id, 16);
		buf_printf(&jb, "\n%s\n", where && !strchr(where, '\n') ? where : "");
		manifest_text(&t, &jb);
		if (journal_key(&s, 1, key, why, sizeof(why))) {
			rc = wfs_fail(c, "restore %s", why);
		} else if (!jb.oom) {
			journal_seal(&s, key, jb.p + SEAL_LEN, jb.len - SEAL_LEN, seal);
			memcpy(jb.p + 5, seal, 64);
		}
		errno = 0;
		jfd = rc || jb.oom ? -1 : openat(sfd, "journal.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (!rc && (jfd < 0 || fd_sink(&jfd, jb.p, jb.len) || fsync(jfd) ||
			    close(jfd) || renameat(sfd, "journal.tmp", sfd, "journal") || fsync(sfd)))
			rc = wfs_fail_errno(c, "restore", STAGE "/journal", errno ? errno : ENOMEM);
		buf_free(&jb);
	}
	if (!rc)
		rc = apply(&s, &t, &cur, sfd);
	if (sfd >= 0)
		close(sfd);
	if (!rc)
		drop_stage(&s);
	else if (sfd >= 0 && !exists_at(s.dirfd, STAGE "/journal")) {
		char keep[1024];
		memcpy(keep, c->err, sizeof(keep));
		drop_stage(&s); /* failed before the commit: the old tree stays */
		memcpy(c->err, keep, sizeof(keep));
	}
	snap_close(&s);
	return rc;
}

/* ---- JSON ---- */

void wfs_snap_info_json(struct buf *b, const struct wfs_snap_info *i)
{
	buf_puts(b, "{\"id\":");
	json_cstr(b, i->id ? i->id : "");
	buf_puts(b, ",\"tag\":");
	json_cstr(b, i->tag ? i->tag : "");
	buf_printf(b, ",\"time\":%lld,\"files\":%llu,\"dirs\":%llu,\"symlinks\":%llu,\"bytes\":%llu",
		   i->time, i->files, i->dirs, i->symlinks, i->bytes);
	if (i->new_bytes)
		buf_printf(b, ",\"new_objects\":%llu,\"new_bytes\":%llu", i->new_objects, i->new_bytes);
	if (i->previous) {
		buf_puts(b, ",\"previous\":");
		json_cstr(b, i->previous);
	}
	buf_putc(b, '}');
}

static void paths_json(struct buf *b, const char *key, const char **v, size_t n)
{
	size_t i;

	buf_printf(b, ",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(b, ',');
		json_cstr(b, v[i]);
	}
	buf_putc(b, ']');
}

void wfs_restore_json(struct buf *b, const struct wfs_snap_diff *d)
{
	buf_puts(b, "{\"id\":");
	json_cstr(b, d->id ? d->id : "");
	paths_json(b, "deleted", d->added, d->nadded);
	paths_json(b, "recreated", d->removed, d->nremoved);
	paths_json(b, "reverted", d->modified, d->nmodified);
	buf_putc(b, '}');
}

void wfs_snap_diff_json(struct buf *b, const struct wfs_snap_diff *d)
{
	buf_puts(b, "{\"id\":");
	json_cstr(b, d->id ? d->id : "");
	paths_json(b, "added", d->added, d->nadded);
	paths_json(b, "removed", d->removed, d->nremoved);
	paths_json(b, "modified", d->modified, d->nmodified);
	buf_putc(b, '}');
}
