/* glob.c - wfs_glob: the walk plus pattern matching */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "globwalk.h"
#include "globmatch.h"
#include "ctx.h"
#include "walk.h"

struct glob_state {
	struct wfs_ctx *c;
	const struct wfs_glob_opts *o;
	int collect_all;
	const char **files;
	struct timespec *mtime; /* with sort_mtime: each file's, from the walk */
	size_t n, cap, mcap;    /* mcap: mtime's room */
	int truncated, oom;
	int too_complex; /* an extended pattern spent its step budget */
	struct walk_errors errors;
};

static void glob_failed(void *arg, const char *path, int err)
{
	struct glob_state *g = arg;

	walk_error_add(g->c, &g->errors, path, err);
}

static int type_ok(const struct glob_state *g, const struct walk_ent *e)
{
	switch (g->o->type) {
	case 'f': return e->type == WALK_FILE;
	case 'd': return e->type == WALK_DIR && e->depth > 0;
	case 'l': return e->type == WALK_LINK;
	default: return e->type != WALK_DIR;
	}
}

static int glob_visit(void *arg, const struct walk_ent *e)
{
	struct glob_state *g = arg;
	int m;

	if (!type_ok(g, e))
		return WALK_CONTINUE;
	m = globmatch_entry_opts(g->o->pattern, e->depth ? e->rel : e->name, e->name,
				 g->o->match_flags);
	if (m < 0) {
		g->too_complex = 1;
		return WALK_STOP;
	}
	if (!m)
		return WALK_CONTINUE;
	if (arena_grow(g->c->arena, &g->files, &g->cap, g->n + 1, sizeof(*g->files)) ||
	    (g->o->sort_mtime && arena_grow(g->c->arena, &g->mtime, &g->mcap, g->n + 1,
					    sizeof(*g->mtime)))) {
		g->oom = 1;
		return WALK_STOP;
	}
	if (g->o->sort_mtime) {
		/* by the walk's descriptor, not the path: nothing is looked
		 * up outside the tree the walk holds */
		struct stat st;
		g->mtime[g->n].tv_sec = 0;
		g->mtime[g->n].tv_nsec = 0;
		if (!fstatat(e->dirfd, e->at, &st,
			     AT_SYMLINK_NOFOLLOW | (*e->at ? 0 : AT_EMPTY_PATH)))
			g->mtime[g->n] = st.st_mtim;
	}
	g->files[g->n] = arena_strdup(g->c->arena, e->path);
	if (!g->files[g->n]) {
		g->oom = 1;
		return WALK_STOP;
	}
	g->n++;
	if (!g->collect_all && g->o->max > 0 && (long)g->n >= g->o->max) {
		g->truncated = 1;
		return WALK_STOP;
	}
	return WALK_CONTINUE;
}

struct mtime_ent {
	const char *path;
	long long sec, nsec;
};

static int mtime_cmp(const void *a, const void *b)
{
	const struct mtime_ent *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? 1 : -1;
	if (x->nsec != y->nsec)
		return x->nsec < y->nsec ? 1 : -1;
	return strcmp(x->path, y->path);
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int wfs_glob(struct wfs_ctx *c, const struct wfs_glob_opts *o,
	     struct wfs_glob_result *res)
{
	struct glob_state g = {0};
	size_t i;
	int fd, rc;

	g.c = c;
	g.o = o;
	res->errors = NULL;
	if (globmatch_path_opts(o->pattern, "", o->match_flags) < 0)
		return wfs_fail(c, "glob: bad pattern \"%s\": an unclosed [, { or (, a trailing \\, "
				   "or over %d {a,b} expansions",
				o->pattern, GLOB_BRACE_MAX);
	g.collect_all = o->sort_mtime || o->sort_name;
	if (walk_open_root(c, "glob", o->path, O_PATH, &fd))
		return -1;
	if (fd >= 0) {
		struct walk_opts wo = o->walk;
		wo.on_error = glob_failed;
		rc = wfs_walk(c, o->path, fd, &wo, glob_visit, &g);
		close(fd);
		if (rc)
			return -1;
	}
	if (g.oom)
		return wfs_fail(c, "glob %s: out of memory", o->path);
	if (g.too_complex)
		return wfs_fail(c, "glob: pattern \"%s\" too complex: its groups took over a "
				   "million steps on one name",
				o->pattern);
	if (o->failglob && !g.n)
		return wfs_fail(c, "glob: no match for \"%s\" in %s (--failglob)", o->pattern,
				o->path);
	if (g.errors.total && (res->errors = arena_alloc(c->arena, sizeof(*res->errors))))
		*res->errors = g.errors;
	if (o->sort_mtime && g.n) {
		struct mtime_ent *m = arena_alloc(c->arena, g.n * sizeof(*m));
		if (!m)
			return wfs_fail(c, "glob %s: out of memory", o->path);
		for (i = 0; i < g.n; i++) {
			m[i].path = g.files[i];
			m[i].sec = (long long)g.mtime[i].tv_sec;
			m[i].nsec = g.mtime[i].tv_nsec;
		}
		qsort(m, g.n, sizeof(*m), mtime_cmp);
		for (i = 0; i < g.n; i++)
			g.files[i] = m[i].path;
	} else if (o->sort_name && g.n) {
		qsort(g.files, g.n, sizeof(*g.files), path_cmp);
	}
	if (g.collect_all && o->max > 0 && (long)g.n > o->max) {
		g.n = (size_t)o->max;
		g.truncated = 1;
	}
	res->files = g.files;
	res->n = g.n;
	res->truncated = g.truncated;
	return 0;
}
