/* archive.c - pack: walk -> tar -> parallel gzip -> fd;
 *             unpack: fd -> gzip reader -> tar reader -> files.
 *
 * Unpack never resolves a path string: it walks each entry's name one
 * component at a time from the target directory's descriptor with
 * O_NOFOLLOW, so neither "..", nor an absolute name, nor a symlink (one
 * the archive made a moment ago included) can lead it out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "archive.h"
#include "bytes.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "globmatch.h"
#include "ignore.h"
#include "gzpar.h"
#include "json.h"
#include "settings.h"
#include "tar.h"

#define IO_BUF (128 * 1024)
#define MAX_DEPTH 256

static void note_skipped(struct wfs_ctx *c, struct wfs_archive_result *res,
			 const char *path)
{
	if (res->skipped_total++ >= ARCHIVE_MAX_SKIPPED)
		return;
	if (!res->skipped)
		res->skipped = arena_alloc(c->arena, ARCHIVE_MAX_SKIPPED * sizeof(char *));
	if (res->skipped)
		res->skipped[res->nskipped++] = arena_strdup(c->arena, path);
}

/* ---- progress ---- */

static void progress_start(struct wfs_progress *p)
{
	if (p)
		p->start_ns = p->last_ns = (unsigned long long)wfs_now_ns();
}

/* Hand p->fn the line for these counts: at most every p->every_ns (four
 * times a second by default), and always when done. Integer tenths: no floating point in the binary. */
static void progress_tick(struct wfs_progress *p, const char *verb,
			  unsigned long long files, unsigned long long bytes,
			  int done)
{
	unsigned long long t, us, rate;
	char line[128];

	if (!p || !p->start_ns)
		return;
	t = (unsigned long long)wfs_now_ns();
	if (!done && t - p->last_ns < (p->every_ns ? p->every_ns : 250000000ULL))
		return;
	p->last_ns = t;
	us = (t - p->start_ns) / 1000;
	rate = bytes * 10 / (us ? us : 1); /* bytes per microsecond = MB/s */
	snprintf(line, sizeof(line), "%s: %llu files, %llu.%llu MB, %llu.%llu MB/s",
		 verb, files, bytes / 1000000, bytes / 100000 % 10, rate / 10, rate % 10);
	p->fn(p->arg, line, done);
}

/* ---- pack ---- */

struct packer {
	struct wfs_ctx *c;
	const struct wfs_pack_opts *o;
	struct wfs_archive_result *res;
	struct gzpar_writer *gz;
	struct tar_writer tw;
	dev_t out_dev;
	ino_t out_ino;
	int out_is_file;
	char *buf;
	struct ignore_set *ign;        /* innermost .gitignore in effect */
	unsigned long long done_bytes; /* file data read so far, for progress */
};

static int pack_sink(void *arg, const void *p, size_t n)
{
	return gzpar_writer_write(arg, p, n);
}

static int gz_sink(void *arg, const void *p, size_t n)
{
	return bytes_write_all(*(int *)arg, p, n);
}

/* A tar or gzip failure as the operation's error. */
static int pack_fail(struct packer *k)
{
	const char *gz = gzpar_writer_error(k->gz);

	if (*gz)
		return wfs_fail(k->c, "pack %s: %s", k->o->dir, gz);
	return wfs_fail(k->c, "pack %s: %s", k->o->dir, k->tw.err);
}

static void entry_from_stat(const struct packer *k, struct tar_entry *e,
			    const char *rel, const struct stat *st, char type)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->name = rel;
	e->linkname = "";
	e->mode = st->st_mode & 07777;
	e->mtime = st->st_mtim.tv_sec;
	e->mtime_nsec = k->o->whole_seconds ? 0 : st->st_mtim.tv_nsec;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
}

static int pack_file(struct packer *k, int dirfd, const char *name,
		     const char *rel)
{
	struct tar_entry e;
	struct stat st;
	unsigned long long left;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return wfs_fail(k->c, "pack %s: %s", rel, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return wfs_fail(k->c, "pack %s: changed while packed", rel);
	}
	entry_from_stat(k, &e, rel, &st, TAR_FILE);
	e.size = (unsigned long long)st.st_size;
	if (tar_write_header(&k->tw, &e))
		goto tar_fail;
	for (left = e.size; left;) {
		size_t want = left < IO_BUF ? (size_t)left : IO_BUF;
		ssize_t n = read(fd, k->buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			close(fd);
			return wfs_fail(k->c, "pack %s: %s", rel, strerror(err));
		}
		if (n == 0)
			break; /* it shrank: zeros keep the archive consistent */
		if (tar_write_data(&k->tw, k->buf, (size_t)n))
			goto tar_fail;
		left -= (size_t)n;
		k->done_bytes += (size_t)n;
		progress_tick(k->o->progress, "pack", k->res->files, k->done_bytes, 0);
	}
	if (tar_write_fill(&k->tw))
		goto tar_fail;
	close(fd);
	k->res->files++;
	k->res->bytes += e.size;
	return 0;
tar_fail:
	close(fd);
	return pack_fail(k);
}

static int pack_symlink(struct packer *k, int dirfd, const char *name,
			const char *rel, const struct stat *st)
{
	struct tar_entry e;
	size_t cap = (size_t)st->st_size + 2;
	char *target;
	ssize_t n;

	if (cap > 65536)
		cap = 65536;
	target = malloc(cap);
	if (!target)
		return wfs_fail(k->c, "pack %s: out of memory", rel);
	n = readlinkat(dirfd, name, target, cap - 1);
	if (n < 0) {
		free(target);
		return wfs_fail(k->c, "pack %s: %s", rel, strerror(errno));
	}
	target[n] = 0;
	entry_from_stat(k, &e, rel, st, TAR_SYMLINK);
	e.linkname = target;
	n = tar_write_header(&k->tw, &e);
	free(target);
	if (n)
		return pack_fail(k);
	k->res->symlinks++;
	return 0;
}

static int pack_dir(struct packer *k, int dirfd, const char *prefix,
		    int depth);

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of one directory, sorted (so archives are reproducible). */
char **archive_list_dir(int dirfd, size_t *n)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	size_t cap = 0;
	struct dirent *de;

	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (*n == cap) {
			char **p = realloc(names, (cap = cap * 2 + 64) * sizeof(*p));
			if (!p)
				break;
			names = p;
		}
		if (!(names[*n] = strdup(de->d_name)))
			break;
		(*n)++;
	}
	closedir(d);
	if (!names)
		names = malloc(sizeof(char *));
	if (names)
		qsort(names, *n, sizeof(*names), name_cmp);
	return names;
}

static int excluded(const struct packer *k, const char *rel, const char *name)
{
	int i;

	for (i = 0; i < k->o->nexclude; i++)
		if (globmatch_entry(k->o->exclude[i], rel, name) == 1)
			return 1;
	return 0;
}

static int pack_one(struct packer *k, int dirfd, const char *name,
		    const char *rel, int depth)
{
	struct stat st;
	struct tar_entry e;
	int fd, r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : wfs_fail(k->c, "pack %s: %s", rel, strerror(errno));
	if (excluded(k, rel, name) ||
	    (k->ign && ignore_match(k->ign, rel, name, S_ISDIR(st.st_mode))) ||
	    (S_ISDIR(st.st_mode) && !strcmp(name, WFS_STATE_DIR)))
		return 0;
	if (k->out_is_file && st.st_dev == k->out_dev && st.st_ino == k->out_ino)
		return 0; /* our own output, inside the tree */
	if (S_ISREG(st.st_mode))
		return pack_file(k, dirfd, name, rel);
	if (S_ISLNK(st.st_mode))
		return pack_symlink(k, dirfd, name, rel, &st);
	if (!S_ISDIR(st.st_mode)) {
		note_skipped(k->c, k->res, rel);
		return 0;
	}
	if (depth >= MAX_DEPTH)
		return wfs_fail(k->c, "pack %s: deeper than %d levels", rel, MAX_DEPTH);
	entry_from_stat(k, &e, rel, &st, TAR_DIR);
	if (tar_write_header(&k->tw, &e))
		return pack_fail(k);
	k->res->dirs++;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return wfs_fail(k->c, "pack %s: %s", rel, strerror(errno));
	r = pack_dir(k, fd, rel, depth + 1);
	close(fd);
	return r;
}

static int pack_dir(struct packer *k, int dirfd, const char *prefix,
		    int depth)
{
	size_t n, i, plen = strlen(prefix);
	char **names = archive_list_dir(dirfd, &n);
	struct ignore_set *outer = k->ign, *mine = NULL;
	int r = 0;

	if (!names)
		return wfs_fail(k->c, "pack %s: %s", *prefix ? prefix : k->o->dir,
				strerror(errno ? errno : ENOMEM));
	if (k->o->gitignore &&
	    (mine = ignore_load(dirfd, k->c->root != NULL, prefix, outer)))
		k->ign = mine;
	for (i = 0; i < n; i++) {
		if (!r) {
			size_t len = strlen(names[i]);
			char *rel = malloc(plen + len + 2);
			if (!rel) {
				r = wfs_fail(k->c, "pack %s: out of memory", prefix);
			} else {
				if (plen)
					sprintf(rel, "%s/%s", prefix, names[i]);
				else
					memcpy(rel, names[i], len + 1);
				r = wfs_expired(k->c) ? -1 : pack_one(k, dirfd, names[i], rel, depth);
				free(rel);
			}
		}
		free(names[i]);
	}
	free(names);
	k->ign = outer;
	ignore_free(mine);
	return r;
}

int wfs_pack(struct wfs_ctx *c, const struct wfs_pack_opts *o,
	     struct wfs_archive_result *res)
{
	struct packer k = {c, o, res, NULL, {0}, 0, 0, 0, NULL, NULL, 0};
	struct stat st;
	int fd, r = -1, out_fd = o->out_fd;

	memset(res, 0, sizeof(*res));
	if (wfs_confine(c, "pack", o->dir))
		return -1;
	/* confined: opened beneath the root, as the check is no guard
	 * against a directory swapped for a symlink since */
	fd = c->root ? fs_open_dir(c, "pack", o->dir)
		     : open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return c->root ? -1 : wfs_fail(c, "pack %s: %s", o->dir, strerror(errno));
	if (!fstat(out_fd, &st) && S_ISREG(st.st_mode)) {
		k.out_is_file = 1;
		k.out_dev = st.st_dev;
		k.out_ino = st.st_ino;
	}
	k.buf = malloc(IO_BUF);
	/* no --threads: WICKFS_THREADS, when a number; <= 0 the cores */
	k.gz = gzpar_writer_open(o->level,
				 o->threads > 0 || c->set->threads_bad ? o->threads : (int)c->set->threads,
				 gz_sink, &out_fd);
	if (!k.buf || !k.gz) {
		wfs_fail(c, "pack %s: out of memory", o->dir);
		goto out;
	}
	tar_writer_init(&k.tw, pack_sink, k.gz);
	progress_start(o->progress);
	if (pack_dir(&k, fd, "", 0))
		goto out;
	if (tar_write_end(&k.tw) || gzpar_writer_finish(k.gz)) {
		pack_fail(&k);
		goto out;
	}
	res->gz_bytes = gzpar_writer_out_bytes(k.gz);
	r = 0;
out:
	progress_tick(o->progress, "pack", res->files, k.done_bytes, 1);
	gzpar_writer_free(k.gz);
	free(k.buf);
	close(fd);
	return r;
}

/* ---- unpack ---- */

struct pending_dir {
	int fd;
	char *path;
	unsigned mode;
	struct timespec mtime;
};

struct unpacker {
	struct wfs_ctx *c;
	const struct wfs_unpack_opts *o;
	struct wfs_archive_result *res;
	struct gzpar_reader *gz;
	struct tar_reader *tr;
	int rootfd;
	char *parent_path; /* the cached parent directory ... */
	int parent_fd;     /* ... and its descriptor */
	struct pending_dir dirs[MAX_DEPTH];
	int ndirs;
	unsigned long long limit;
	unsigned seq;
	char *buf;
	unsigned long long done_bytes; /* file data written, for progress */
	unsigned mask;                 /* what of an entry's mode is applied */
};

static ssize_t unpack_source(void *arg, void *p, size_t n)
{
	return gzpar_reader_read(arg, p, n);
}

static const char *unpack_source_error(void *arg)
{
	return gzpar_reader_error(arg);
}

static ssize_t fd_source(void *arg, void *p, size_t n)
{
	return read(*(int *)arg, p, n);
}

/* Directory metadata waits until the directory's entries are written
 * (else a 0555 directory could not be filled and every entry would move
 * its mtime). Archives list a directory's entries right after it. */
static void finish_dir(struct pending_dir *d)
{
	struct timespec ts[2] = {{0, UTIME_OMIT}, d->mtime};

	fchmod(d->fd, d->mode);
	futimens(d->fd, ts);
	close(d->fd);
	free(d->path);
}

/* Finish the pending directories that PATH is not inside. */
static void leave_dirs(struct unpacker *u, const char *path)
{
	while (u->ndirs) {
		struct pending_dir *d = &u->dirs[u->ndirs - 1];
		size_t n = strlen(d->path);
		if (path && !strncmp(path, d->path, n) && path[n] == '/')
			break;
		finish_dir(d);
		u->ndirs--;
	}
}

/* The entry's name as clean components joined by '/', in *out (malloc).
 * -1 with the reason set for absolute names and "..". */
static int clean_name(struct unpacker *u, const char *name, char **out)
{
	size_t n = strlen(name), w = 0;
	const char *p = name;
	char *s;

	if (name[0] == '/')
		return wfs_fail(u->c, "unpack %s: refused: an absolute name", name);
	s = malloc(n + 1);
	if (!s)
		return wfs_fail(u->c, "unpack %s: out of memory", name);
	while (*p) {
		size_t len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			free(s);
			return wfs_fail(u->c, "unpack %s: refused: \"..\" would leave %s",
					name, u->o->dir);
		}
		if (len == sizeof(WFS_STATE_DIR) - 1 && !memcmp(p, WFS_STATE_DIR, len)) {
			free(s);
			return wfs_fail(u->c, "unpack %s: refused: " WFS_STATE_DIR " is reserved "
					      "for wickfs's own state (snapshots, restores, overlays)",
					name);
		}
		if (len && !(len == 1 && p[0] == '.')) {
			if (w)
				s[w++] = '/';
			memcpy(s + w, p, len);
			w += len;
		}
		p += len;
		while (*p == '/')
			p++;
	}
	s[w] = 0;
	*out = s;
	return 0;
}

/* Open (creating when missing) the directory PATH beneath the root, one
 * component at a time, never following a symlink. */
static int open_dir_path(struct unpacker *u, const char *entry,
			 const char *path)
{
	int fd = dup(u->rootfd);
	const char *p = path;
	char comp[NAME_MAX + 1];

	while (fd >= 0 && *p) {
		size_t len = strcspn(p, "/");
		int next;

		if (len > NAME_MAX) {
			close(fd);
			return wfs_fail(u->c, "unpack %s: a name component is too long", entry);
		}
		memcpy(comp, p, len);
		comp[len] = 0;
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(fd, comp, 0755) && errno != EEXIST) {
				int e = errno;
				close(fd);
				return wfs_fail(u->c, "unpack %s: mkdir %.*s: %s", entry,
						(int)(p - path + len), path, strerror(e));
			}
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			int e = errno;
			struct stat st;
			int link = !fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode);
			close(fd);
			if (link)
				return wfs_fail(u->c, "unpack %s: refused: %.*s is a symlink", entry,
						(int)(p - path + len), path);
			return wfs_fail(u->c, "unpack %s: %.*s: %s", entry,
					(int)(p - path + len), path, strerror(e));
		}
		close(fd);
		fd = next;
		p += len;
		while (*p == '/')
			p++;
	}
	if (fd < 0)
		return wfs_fail(u->c, "unpack %s: %s", entry, strerror(errno));
	return fd;
}

/* The parent directory of PATH (cached: archives list siblings together).
 * *base gets the last component. */
static int parent_of(struct unpacker *u, const char *entry, char *path,
		     const char **base)
{
	char *slash = strrchr(path, '/');
	const char *dir = "";
	int fd;

	*base = path;
	if (slash) {
		*slash = 0;
		dir = path;
		*base = slash + 1;
	}
	if (u->parent_path && !strcmp(u->parent_path, dir))
		fd = u->parent_fd;
	else {
		fd = open_dir_path(u, entry, dir);
		if (fd >= 0) {
			if (u->parent_path) {
				close(u->parent_fd);
				free(u->parent_path);
			}
			u->parent_path = strdup(dir);
			u->parent_fd = fd;
			if (!u->parent_path) {
				close(fd);
				fd = wfs_fail(u->c, "unpack %s: out of memory", entry);
			}
		}
	}
	if (slash)
		*slash = '/';
	return fd;
}

/* A fresh temporary name in the parent: created exclusively. */
static int make_temp(struct unpacker *u, int dirfd, char *tmp, size_t len,
		     const char *target)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		struct timespec ts;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(tmp, len, ".wickfs-unpack-%d-%u-%lx", (int)getpid(),
			 u->seq++, (unsigned long)ts.tv_nsec);
		if (target)
			r = symlinkat(target, dirfd, tmp);
		else
			r = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (r >= 0 || errno != EEXIST)
			return r;
	}
	return -1;
}

/* Room for SIZE more bytes: the limit and the file system's free space. */
static int check_room(struct unpacker *u, const char *entry, int dirfd,
		      unsigned long long size)
{
	struct statvfs sv;
	unsigned long long used = gzpar_reader_out_bytes(u->gz);

	if (size > u->limit || used + size > u->limit)
		return wfs_fail(u->c, "unpack %s: refused: declared size %llu exceeds the limit of %llu bytes",
				entry, size, u->limit);
	if (!fstatvfs(dirfd, &sv) &&
	    size / sv.f_frsize > (unsigned long long)sv.f_bavail)
		return wfs_fail(u->c, "unpack %s: refused: declared size %llu exceeds the free space",
				entry, size);
	return 0;
}

static int unpack_file(struct unpacker *u, const struct tar_entry *e,
		       int dirfd, const char *base)
{
	char tmp[96];
	struct timespec ts[2] = {{0, UTIME_OMIT}, {e->mtime, e->mtime_nsec}};
	int fd;
	ssize_t n;

	if (check_room(u, e->name, dirfd, e->size))
		return -1;
	fd = make_temp(u, dirfd, tmp, sizeof(tmp), NULL);
	if (fd < 0)
		return wfs_fail(u->c, "unpack %s: creating a temporary file: %s", e->name, strerror(errno));
	while ((n = tar_read(u->tr, u->buf, IO_BUF)) > 0) {
		if (bytes_write_all(fd, u->buf, (size_t)n)) {
			wfs_fail(u->c, "unpack %s: %s", e->name, strerror(errno));
			goto fail;
		}
		u->done_bytes += (size_t)n;
		progress_tick(u->o->progress, "unpack", u->res->files, u->done_bytes, 0);
	}
	if (n < 0) {
		wfs_fail(u->c, "unpack: %s", tar_error(u->tr));
		goto fail;
	}
	if (fchmod(fd, e->mode & u->mask) || futimens(fd, ts) || close(fd)) {
		fd = -1;
		wfs_fail(u->c, "unpack %s: %s", e->name, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, base)) {
		wfs_fail(u->c, "unpack %s: %s", e->name, strerror(errno));
		goto fail;
	}
	u->res->files++;
	u->res->bytes += e->size;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
	return -1;
}

static int unpack_symlink(struct unpacker *u, const struct tar_entry *e,
			  int dirfd, const char *base)
{
	char tmp[96];
	struct timespec ts[2] = {{0, UTIME_OMIT}, {e->mtime, e->mtime_nsec}};

	if (make_temp(u, dirfd, tmp, sizeof(tmp), e->linkname) < 0)
		return wfs_fail(u->c, "unpack %s: %s", e->name, strerror(errno));
	utimensat(dirfd, tmp, ts, AT_SYMLINK_NOFOLLOW);
	if (renameat(dirfd, tmp, dirfd, base)) {
		int err = errno;
		unlinkat(dirfd, tmp, 0);
		return wfs_fail(u->c, "unpack %s: %s", e->name, strerror(err));
	}
	u->res->symlinks++;
	return 0;
}

static int unpack_dir(struct unpacker *u, const struct tar_entry *e,
		      const char *path, int dirfd, const char *base)
{
	struct pending_dir *d;
	struct stat st;
	int fd;

	if (mkdirat(dirfd, base, 0700) && errno != EEXIST)
		return wfs_fail(u->c, "unpack %s: %s", e->name, strerror(errno));
	fd = openat(dirfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int link = !fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode);
		return wfs_fail(u->c, "unpack %s: %s", e->name,
				link ? "refused: a symlink is in the way" : "exists and is not a directory");
	}
	u->res->dirs++;
	if (u->ndirs == MAX_DEPTH) {
		fchmod(fd, (e->mode & u->mask) | 0700); /* too deep to defer */
		close(fd);
		return 0;
	}
	d = &u->dirs[u->ndirs];
	d->path = strdup(path);
	if (!d->path) {
		close(fd);
		return wfs_fail(u->c, "unpack %s: out of memory", e->name);
	}
	d->fd = fd;
	d->mode = e->mode & u->mask;
	d->mtime.tv_sec = e->mtime;
	d->mtime.tv_nsec = e->mtime_nsec;
	u->ndirs++;
	return 0;
}

static int unpack_entry(struct unpacker *u, const struct tar_entry *e)
{
	char *path = NULL;
	const char *base;
	int dirfd, r;

	if (clean_name(u, e->name, &path))
		return -1;
	leave_dirs(u, path);
	if (!*path) { /* "./": the target itself */
		free(path);
		return 0;
	}
	if (e->type != TAR_FILE && e->type != TAR_DIR && e->type != TAR_SYMLINK) {
		note_skipped(u->c, u->res, e->name);
		free(path);
		return 0;
	}
	dirfd = parent_of(u, e->name, path, &base);
	if (dirfd < 0)
		r = -1;
	else if (e->type == TAR_FILE)
		r = unpack_file(u, e, dirfd, base);
	else if (e->type == TAR_SYMLINK)
		r = unpack_symlink(u, e, dirfd, base);
	else
		r = unpack_dir(u, e, path, dirfd, base);
	free(path);
	return r;
}

/* After the end marker: read the gzip stream to its end, so a bad CRC or
 * a cut trailer is still reported. */
static int drain_rest(struct unpacker *u)
{
	ssize_t n;

	while ((n = gzpar_reader_read(u->gz, u->buf, IO_BUF)) > 0)
		;
	if (n < 0)
		return wfs_fail(u->c, "unpack %s: after the last entry: %s", u->o->dir,
				gzpar_reader_error(u->gz));
	return 0;
}

int wfs_unpack(struct wfs_ctx *c, const struct wfs_unpack_opts *o,
	       struct wfs_archive_result *res)
{
	struct unpacker *u;
	struct tar_entry e;
	int in_fd = o->in_fd, r = -1, s;

	memset(res, 0, sizeof(*res));
	if (wfs_confine(c, "unpack", o->dir))
		return -1;
	if (!c->root && mkdir(o->dir, 0755) && errno != EEXIST)
		return wfs_fail(c, "unpack %s: %s", o->dir, strerror(errno));
	u = calloc(1, sizeof(*u));
	if (!u)
		return wfs_fail(c, "unpack %s: out of memory", o->dir);
	u->c = c;
	u->o = o;
	u->res = res;
	u->parent_fd = -1;
	u->limit = o->max_bytes ? o->max_bytes : c->set->unpack_max;
	/* Never setuid or setgid; the umask too unless asked to keep the
	 * archive's permissions (for root as well: an archive here is
	 * input from elsewhere, not a backup being restored). */
	u->mask = 01777 & (o->same_permissions ? 07777 : ~fs_umask());
	/* confined: made and opened beneath the root, as for pack */
	u->rootfd = c->root ? fs_open_dir_made(c, "unpack", o->dir)
			    : open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (u->rootfd < 0) {
		if (!c->root)
			wfs_fail(c, "unpack %s: %s", o->dir, strerror(errno));
		goto out;
	}
	u->buf = malloc(IO_BUF);
	u->gz = gzpar_reader_open(fd_source, &in_fd, u->limit);
	u->tr = u->gz ? tar_reader_open(unpack_source, unpack_source_error, u->gz) : NULL;
	if (!u->buf || !u->tr) {
		wfs_fail(c, "unpack %s: out of memory", o->dir);
		goto out;
	}
	progress_start(o->progress);
	while ((s = tar_next(u->tr, &e)) == 1) {
		if (wfs_expired(c) || unpack_entry(u, &e))
			goto out;
	}
	if (s < 0) {
		wfs_fail(c, "unpack: %s", tar_error(u->tr));
		goto out;
	}
	r = drain_rest(u);
	res->gz_bytes = gzpar_reader_in_bytes(u->gz);
out:
	progress_tick(o->progress, "unpack", res->files, u->done_bytes, 1);
	leave_dirs(u, NULL);
	if (u->parent_path) {
		close(u->parent_fd);
		free(u->parent_path);
	}
	if (u->rootfd >= 0)
		close(u->rootfd);
	tar_reader_free(u->tr);
	gzpar_reader_free(u->gz);
	free(u->buf);
	free(u);
	return r;
}

void wfs_archive_json(struct buf *b, const struct wfs_archive_result *r)
{
	size_t i;

	buf_printf(b, "{\"files\":%llu,\"dirs\":%llu,\"symlinks\":%llu,\"bytes\":%llu,"
		      "\"compressed_bytes\":%llu,\"skipped\":[",
		   r->files, r->dirs, r->symlinks, r->bytes, r->gz_bytes);
	for (i = 0; i < r->nskipped; i++) {
		if (i)
			buf_putc(b, ',');
		json_cstr(b, r->skipped[i] ? r->skipped[i] : "");
	}
	buf_printf(b, "],\"skipped_total\":%llu}", r->skipped_total);
}

int wfs_pack_file(struct wfs_ctx *c, struct wfs_pack_opts *o, const char *output,
		  struct wfs_archive_result *res)
{
	const char *base = NULL;
	char tmp[300];
	int fd, dfd, rc;

	if (wfs_writable(c, "pack", output) || wfs_confine(c, "pack", output))
		return -1;
	/* the temp and the rename go through the directory opened (beneath
	 * the root when confined), never by name again */
	dfd = fs_open_parent(c, "pack", output, &base);
	if (dfd < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), "%.200s.wickfs-tmp-%d", base, (int)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = wfs_fail(c, "pack %s: %s", output, strerror(errno));
		close(dfd);
		return rc;
	}
	o->out_fd = fd;
	rc = wfs_pack(c, o, res);
	if (close(fd) && !rc)
		rc = wfs_fail(c, "pack %s: %s", output, strerror(errno));
	if (!rc && renameat(dfd, tmp, dfd, base))
		rc = wfs_fail(c, "pack %s: %s", output, strerror(errno));
	if (rc)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}

int wfs_unpack_file(struct wfs_ctx *c, struct wfs_unpack_opts *o, const char *input,
		    struct wfs_archive_result *res)
{
	struct stat st;
	int rc;

	o->in_fd = fs_open_regular(c, "unpack", input, &st); /* confined there */
	if (o->in_fd < 0)
		return -1;
	rc = wfs_unpack(c, o, res);
	close(o->in_fd);
	return rc;
}
