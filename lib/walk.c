/* walk.c - lexical pre-order directory walk, as Go's filepath.WalkDir
 *
 * Each directory is read whole, sorted by byte order and closed before its
 * children are visited, so the walk holds no descriptors while it recurses
 * and memory is bounded by the names on the current path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"
#include "walk.h"

static const char *const skip_dirs[] = {"node_modules", "__pycache__", "vendor"};

static const char *const skip_exts[] = {
	"png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "zip", "tar", "gz",
	"bz2", "xz", "7z", "pdf", "doc", "docx", "xls", "xlsx", "so", "dylib",
	"dll", "exe", "o", "a", "wasm", "pyc", "class", "mp3", "mp4", "avi",
	"mov", "wav", "flac"};

int walk_skip_dir(const struct walk_opts *o, const char *name)
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

/* Read a directory's names and types (d_type, or lstat when unknown),
 * sorted by name. */
static int read_names(const char *path, struct name_list *l)
{
	size_t pcap = 4096, plen = 0, cap = 64;
	struct dirent *d;
	DIR *dir;
	int fd;

	memset(l, 0, sizeof(*l));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -1;
	}
	l->pool = malloc(pcap);
	l->ents = malloc(cap * sizeof(*l->ents));
	if (!l->pool || !l->ents)
		goto fail;
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name) + 1;
		unsigned char t;
		struct stat st;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		switch (d->d_type) {
		case DT_REG: t = WALK_FILE; break;
		case DT_DIR: t = WALK_DIR; break;
		case DT_LNK: t = WALK_LINK; break;
		case DT_UNKNOWN:
			if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW))
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
		memcpy(l->pool + plen, d->d_name, len);
		l->ents[l->n].off = plen;
		l->ents[l->n].type = t;
		l->n++;
		plen += len;
	}
	closedir(dir);
	qsort_r(l->ents, l->n, sizeof(*l->ents), name_cmp, l->pool);
	return 0;
fail:
	closedir(dir);
	names_free(l);
	errno = ENOMEM;
	return -1;
}

struct walker {
	struct wfs_ctx *c;
	const struct walk_opts *o;
	walk_fn fn;
	void *arg;
	const char *prefix; /* the cleaned root: "." and "/" are special */
};

/* Go's Join(root, rel) for a rel made of plain names. */
static char *join_root(const struct walker *w, const char *rel)
{
	const char *p = w->prefix;
	size_t a = strlen(p), b = strlen(rel);
	char *s;

	if (!strcmp(p, "."))
		return strdup(rel);
	s = malloc(a + b + 2);
	if (!s)
		return NULL;
	memcpy(s, p, a);
	if (strcmp(p, "/"))
		s[a++] = '/';
	memcpy(s + a, rel, b + 1);
	return s;
}

static char *join_rel(const char *rel, const char *name)
{
	size_t a = strlen(rel), b = strlen(name);
	char *s = malloc(a + b + 2);

	if (!s)
		return NULL;
	if (a) {
		memcpy(s, rel, a);
		s[a++] = '/';
	}
	memcpy(s + a, name, b + 1);
	return s;
}

static int walk_dir(struct walker *w, const char *path, const char *rel,
		    int depth)
{
	struct name_list l;
	size_t i;
	int rc = WALK_CONTINUE;

	if (wfs_expired(w->c))
		return -1;
	if (read_names(path, &l))
		return WALK_CONTINUE; /* unreadable: skipped, as the reference */
	for (i = 0; i < l.n && rc == WALK_CONTINUE; i++) {
		const char *name = l.pool + l.ents[i].off;
		struct walk_ent e;
		char *crel = join_rel(rel, name);
		char *child = crel ? join_root(w, crel) : NULL;
		int r;

		if (!child) {
			free(crel);
			rc = wfs_fail(w->c, "walk %s: out of memory", path);
			break;
		}
		e.path = child;
		e.rel = crel;
		e.name = name;
		e.type = (enum walk_type)l.ents[i].type;
		e.depth = depth + 1;
		if (e.type == WALK_DIR && walk_skip_dir(w->o, name))
			r = WALK_SKIP;
		else
			r = w->fn(w->arg, &e);
		if (r == WALK_STOP || r < 0)
			rc = r;
		else if (e.type == WALK_DIR && r != WALK_SKIP)
			rc = walk_dir(w, child, crel, depth + 1);
		free(child);
		free(crel);
	}
	names_free(&l);
	return rc;
}

int walk(struct wfs_ctx *c, const char *root, const struct walk_opts *o,
	 walk_fn fn, void *arg)
{
	struct walker w = {c, o, fn, arg, NULL};
	struct walk_ent e;
	struct stat st;
	int r;

	if (!root || !*root)
		root = ".";
	/* The root is followed when it is a symlink, and never skipped for
	 * its own name: `wickfs grep x` searches ".". */
	if (stat(root, &st))
		return 0;
	e.path = root;
	e.rel = "";
	e.name = path_base(root);
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
	r = walk_dir(&w, w.prefix, "", 0);
	return r < 0 ? -1 : 0;
}
