/* walk.c - lexical pre-order directory walk, as Go's filepath.WalkDir
 *
 * Each directory is read whole and sorted by byte order before its
 * children are visited; memory is bounded by the names on the current
 * path. Everything is opened relative to the directory's descriptor,
 * which stays open while its children are visited (one per level): a
 * directory is entered by openat(O_DIRECTORY | O_NOFOLLOW), so one swapped
 * for a symlink meanwhile is not entered, and no path string is ever
 * rebuilt and opened.
 */
#include <dirent.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "path.h"
#include "globmatch.h"
#include "ignore.h"
#include "json.h"
#include "walk.h"

static const char *const skip_dirs[] = {"node_modules", "__pycache__", "vendor"};

static const char *const skip_exts[] = {
	"png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "zip", "tar", "gz",
	"bz2", "xz", "7z", "pdf", "doc", "docx", "xls", "xlsx", "so", "dylib",
	"dll", "exe", "o", "a", "wasm", "pyc", "class", "mp3", "mp4", "avi",
	"mov", "wav", "flac"};

static int skip_dir(const struct walk_opts *o, const char *name)
{
	size_t i;

	if (name[0] == '.' && !o->hidden)
		return 1;
	if (o->no_skip)
		return 0;
	for (i = 0; i < sizeof(skip_dirs) / sizeof(skip_dirs[0]); i++)
		if (!strcmp(name, skip_dirs[i]))
			return 1;
	return 0;
}

int walk_skip_ext(const char *name)
{
	const char *dot = strrchr(name, '.');
	size_t i;

	if (!dot)
		return 0;
	for (i = 0; i < sizeof(skip_exts) / sizeof(skip_exts[0]); i++)
		if (!strcasecmp(dot + 1, skip_exts[i]))
			return 1;
	return 0;
}

struct name_ent {
	size_t off;
	unsigned char type;
};

struct name_list {
	char *pool;
	struct name_ent *ents;
	size_t n;
	size_t pcap, cap; /* allocated sizes, kept for reuse */
};

static int name_cmp(const void *a, const void *b, void *pool)
{
	return strcmp((const char *)pool + ((const struct name_ent *)a)->off,
		      (const char *)pool + ((const struct name_ent *)b)->off);
}

static enum walk_type type_of(mode_t m)
{
	if (S_ISREG(m))
		return WALK_FILE;
	if (S_ISDIR(m))
		return WALK_DIR;
	if (S_ISLNK(m))
		return WALK_LINK;
	return WALK_OTHER;
}

static void names_free(struct name_list *l)
{
	free(l->pool);
	free(l->ents);
	memset(l, 0, sizeof(*l));
}

/* The kernel's directory record, as getdents64 returns it. */
struct kdirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Read the names and types (d_type, or lstat when unknown) of the
 * directory open at fd (at its start), sorted by name. getdents64 on a
 * raw descriptor: no DIR, no fcntl and fstat per directory. l's buffers
 * are reused across calls. */
static int read_names(int fd, struct name_list *l)
{
	size_t pcap = l->pcap, plen = 0, cap = l->cap;
	char dbuf[32768];
	long k;

	l->n = 0;
	if (!l->pool || !l->ents) {
		pcap = 4096;
		cap = 64;
		l->pool = malloc(pcap);
		l->ents = malloc(cap * sizeof(*l->ents));
		if (!l->pool || !l->ents)
			goto fail;
	}
	while ((k = syscall(SYS_getdents64, fd, dbuf, sizeof(dbuf))) > 0) {
		long off;
		for (off = 0; off < k;) {
			struct kdirent *d = (struct kdirent *)(dbuf + off);
			size_t len = strlen(d->name) + 1;
			unsigned char t;
			struct stat st;

			off += d->reclen;
			if (d->name[0] == '.' && (!d->name[1] ||
						  (d->name[1] == '.' && !d->name[2])))
				continue;
			switch (d->type) {
			case DT_REG: t = WALK_FILE; break;
			case DT_DIR: t = WALK_DIR; break;
			case DT_LNK: t = WALK_LINK; break;
			case DT_UNKNOWN:
				if (fstatat(fd, d->name, &st, AT_SYMLINK_NOFOLLOW))
					continue; /* vanished: skipped, as the reference */
				t = (unsigned char)type_of(st.st_mode);
				break;
			default: t = WALK_OTHER;
			}
			if (plen + len > pcap) {
				char *np;
				while (plen + len > pcap)
					pcap *= 2;
				np = realloc(l->pool, pcap);
				if (!np)
					goto fail;
				l->pool = np;
			}
			if (l->n == cap) {
				struct name_ent *ne;
				cap *= 2;
				ne = realloc(l->ents, cap * sizeof(*ne));
				if (!ne)
					goto fail;
				l->ents = ne;
			}
			memcpy(l->pool + plen, d->name, len);
			l->ents[l->n].off = plen;
			l->ents[l->n].type = t;
			l->n++;
			plen += len;
		}
	}
	l->pcap = pcap;
	l->cap = cap;
	if (k < 0)
		return -1;
	qsort_r(l->ents, l->n, sizeof(*l->ents), name_cmp, l->pool);
	return 0;
fail:
	names_free(l);
	errno = ENOMEM;
	return -1;
}

struct walker {
	struct wfs_ctx *c;
	const struct walk_opts *o;
	walk_fn fn;
	void *arg;
	const char *prefix;      /* the cleaned root: "." and "/" are special */
	struct ignore_set *ign;  /* innermost .gitignore in effect */
	struct name_list *lists; /* one per depth, reused across directories */
	int nlists;
	char *buf; /* the current path: the root's prefix, then rel */
	size_t cap, rel_off;
};

/* Make room for n more bytes in the path buffer. */
static int path_room(struct walker *w, size_t len, size_t n)
{
	char *nb;

	if (len + n + 1 <= w->cap)
		return 0;
	while (len + n + 1 > w->cap)
		w->cap = w->cap ? w->cap * 2 : 256;
	nb = realloc(w->buf, w->cap);
	if (!nb)
		return -1;
	w->buf = nb;
	return 0;
}

/* Walk the directory open at fd (owned: closed here), whose path is
 * w->buf[0..len): the root joined with its relative path, as Go's Join
 * gives it. Entries are appended to the same buffer, so the walk
 * allocates nothing per entry. */
static int walk_dir(struct walker *w, int fd, size_t len, int depth)
{
	struct ignore_set *outer = w->ign, *mine = NULL;
	const char *dirpath = len == w->rel_off ? w->prefix : w->buf;
	const char *rel = w->buf + w->rel_off;
	size_t i;
	int rc = WALK_CONTINUE;

	if (wfs_expired(w->c)) {
		close(fd);
		return -1;
	}
	if (depth >= w->nlists) {
		int n = w->nlists ? w->nlists * 2 : 16;
		struct name_list *nl = realloc(w->lists, (size_t)n * sizeof(*nl));
		if (!nl) {
			close(fd);
			return wfs_fail(w->c, "walk %s: out of memory", dirpath);
		}
		memset(nl + w->nlists, 0, (size_t)(n - w->nlists) * sizeof(*nl));
		w->lists = nl;
		w->nlists = n;
	}
	if (read_names(fd, &w->lists[depth])) {
		int e = errno;
		close(fd);
		if (w->o->on_error && walk_error_worth(e))
			w->o->on_error(w->arg, dirpath, e);
		return WALK_CONTINUE; /* unreadable: skipped, told when asked */
	}
	if (w->o->gitignore && (mine = ignore_load(fd, w->c->root != NULL, rel, outer)))
		w->ign = mine;
	/* w->lists and w->buf may move in deeper calls: index, don't keep */
	for (i = 0; i < w->lists[depth].n && rc == WALK_CONTINUE; i++) {
		struct name_list *l = &w->lists[depth];
		const char *name = l->pool + l->ents[i].off;
		size_t nlen = strlen(name), add = nlen + (len > w->rel_off);
		struct walk_ent e;
		char *p;
		int r;

		if (path_room(w, len, add)) {
			rc = wfs_fail(w->c, "walk %s: out of memory", w->prefix);
			break;
		}
		p = w->buf + len;
		if (len > w->rel_off)
			*p++ = '/';
		memcpy(p, name, nlen + 1);
		e.path = w->buf;
		e.rel = w->buf + w->rel_off;
		e.name = name;
		e.dirfd = fd;
		e.at = name;
		e.type = (enum walk_type)l->ents[i].type;
		e.depth = depth + 1;
		if (e.type == WALK_DIR && (skip_dir(w->o, name) ||
					   (w->c->root && !strcmp(name, WFS_STATE_DIR))))
			r = WALK_SKIP; /* confined: wickfs's own state is not walked */
		else if (w->ign && ignore_match(w->ign, e.rel, name, e.type == WALK_DIR))
			r = WALK_SKIP;
		else
			r = w->fn(w->arg, &e);
		if (r == WALK_STOP || r < 0) {
			rc = r;
		} else if (e.type == WALK_DIR && r != WALK_SKIP) {
			/* not followed: a directory swapped for a link since
			 * it was listed is skipped, as one that vanished */
			int sub = fs_openat_raw(fd, l->pool + l->ents[i].off,
						O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
			if (sub >= 0)
				rc = walk_dir(w, sub, len + add, depth + 1);
			else if (w->o->on_error && walk_error_worth(errno))
				w->o->on_error(w->arg, w->buf, errno);
		}
		w->buf[len] = 0;
	}
	w->ign = outer;
	ignore_free(mine);
	close(fd);
	return rc;
}

int wfs_walk(struct wfs_ctx *c, const char *root, int rootfd,
	     const struct walk_opts *o, walk_fn fn, void *arg)
{
	struct walker w;
	struct walk_ent e;
	struct stat st;
	int r, fd;

	memset(&w, 0, sizeof(w));
	w.c = c;
	w.o = o;
	w.fn = fn;
	w.arg = arg;
	if (!root || !*root)
		root = ".";
	/* The root is the caller's descriptor (a symlink root was followed
	 * by its open), and is never skipped for its own name: `wickfs grep
	 * x` searches ".". */
	if (fstat(rootfd, &st))
		return 0;
	e.path = root;
	e.rel = "";
	e.name = path_base(root);
	e.dirfd = rootfd;
	e.at = "";
	e.type = type_of(st.st_mode);
	e.depth = 0;
	r = fn(arg, &e);
	if (r < 0)
		return -1;
	if (r != WALK_CONTINUE || e.type != WALK_DIR)
		return 0;
	w.prefix = path_clean(c->arena, root);
	if (!w.prefix)
		return wfs_fail(c, "walk %s: out of memory", root);
	/* Go's Join: "." adds nothing, "/" adds no second slash. */
	w.rel_off = !strcmp(w.prefix, ".") ? 0 : strlen(w.prefix) + !!strcmp(w.prefix, "/");
	if (path_room(&w, 0, w.rel_off))
		return wfs_fail(c, "walk %s: out of memory", root);
	if (w.rel_off)
		snprintf(w.buf, w.cap, "%s%s", w.prefix, strcmp(w.prefix, "/") ? "/" : "");
	else
		w.buf[0] = 0;
	/* a reading descriptor of its own: rootfd may be O_PATH */
	fd = fs_openat_raw(rootfd, ".", O_RDONLY | O_DIRECTORY);
	if (fd < 0 && o->on_error && walk_error_worth(errno))
		o->on_error(arg, root, errno);
	r = fd < 0 ? 0 : walk_dir(&w, fd, w.rel_off, 0);
	while (w.nlists > 0)
		names_free(&w.lists[--w.nlists]);
	free(w.lists);
	free(w.buf);
	return r < 0 ? -1 : 0;
}

int walk_open_root(struct wfs_ctx *c, const char *op, const char *root,
		   int flags, int *fd)
{
	if (!root || !*root)
		root = ".";
	*fd = c->root ? wfs_confined_open(c, op, root, flags)
		      : fs_open_raw(root, flags);
	if (*fd >= 0)
		return 0;
	/* A root that does not exist finds nothing, as the reference; one
	 * that cannot be read (as GNU grep says) or that the confinement
	 * refuses is an error. */
	if (c->root && errno == EXDEV)
		return -1;
	if (errno != ENOENT && errno != ENOTDIR) {
		int e = errno;
		c->err[0] = 0;
		return wfs_fail_errno(c, op, root, e);
	}
	c->err[0] = 0;
	return 0;
}

int walk_error_worth(int err)
{
	return err != ENOENT && err != ENOTDIR && err != ELOOP && err != EXDEV;
}

void walk_error_add(struct wfs_ctx *c, struct walk_errors *e, const char *path, int err)
{
	char eb[128];

	if (e->total++ >= WALK_MAX_ERRORS)
		return;
	if (!e->v && !(e->v = arena_alloc(c->arena, WALK_MAX_ERRORS * sizeof(*e->v))))
		return;
	e->v[e->n].path = arena_strdup(c->arena, path);
	e->v[e->n].error = arena_strdup(c->arena, wfs_strerror(err, eb, sizeof(eb)));
	if (e->v[e->n].path && e->v[e->n].error)
		e->n++;
}

void walk_errors_json(struct buf *b, const struct walk_errors *e)
{
	size_t i;

	if (!e || !e->total)
		return;
	buf_puts(b, ",\"errors\":[");
	for (i = 0; i < e->n; i++) {
		buf_puts(b, i ? ",{\"path\":" : "{\"path\":");
		json_cstr(b, e->v[i].path);
		buf_puts(b, ",\"error\":");
		json_cstr(b, e->v[i].error);
		buf_putc(b, '}');
	}
	buf_printf(b, "],\"errors_total\":%llu", e->total);
}
