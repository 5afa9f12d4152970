/* applypatch_fs.c - apply an "*** Begin Patch" plan to files, all or none
 *
 * 1. Every path is resolved (beneath the root when confined) and locked,
 *    in the byte order of the resolved paths, so two patches over the same
 *    files cannot wait on each other; a file named twice is an error.
 * 2. Every new content is computed and staged in a temp file in its
 *    target's directory. Any failure so far removes the temps: nothing
 *    changed.
 * 3. The temps are renamed over their targets, then moved-from and deleted
 *    files are removed. Each rename is atomic, so each file is old or new;
 *    a kill between two renames leaves the files renamed so far new, the
 *    others old, with their temps (".wickfs-tmp-*") left beside them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "confine.h"
#include "ctx.h"
#include "edit.h"
#include "fs.h"

#define OP "apply-patch"

struct slot {
	const struct applypatch_file *f;
	const char *path; /* as in the patch */
	char *resolved;
	int create; /* add, or the destination of a move */
	int dest;   /* the destination of a move */
	struct wfs_locked l;
	char *tmp; /* staged new content */
	int locked;
};

/* Prefix the message with the patch line it is about. */
static int at_line(struct wfs_ctx *c, size_t line)
{
	char msg[sizeof(c->err)];

	memcpy(msg, c->err, sizeof(msg));
	return wfs_fail(c, "patch line %zu: %s", line, msg);
}

static int by_resolved(const void *a, const void *b)
{
	const struct slot *x = *(struct slot *const *)a, *y = *(struct slot *const *)b;

	return strcmp(x->resolved, y->resolved);
}

/* Resolve every slot, refuse duplicates, lock them in order. */
static int lock_all(struct wfs_ctx *c, struct slot *s, size_t n)
{
	struct slot **order = arena_alloc(c->arena, n * sizeof(*order));
	size_t i;

	if (!order)
		return wfs_fail(c, OP ": out of memory");
	for (i = 0; i < n; i++) {
		s[i].resolved = c->root ? wfs_confine_canon(c, OP, s[i].path)
					: fs_resolve_links(c, s[i].path);
		if (!s[i].resolved)
			return at_line(c, s[i].f->patch_line);
		order[i] = &s[i];
	}
	qsort(order, n, sizeof(*order), by_resolved);
	for (i = 0; i + 1 < n; i++)
		if (!strcmp(order[i]->resolved, order[i + 1]->resolved)) {
			wfs_fail(c, OP " %s: the patch names this file twice", order[i + 1]->path);
			return at_line(c, order[i + 1]->f->patch_line);
		}
	for (i = 0; i < n; i++) {
		if (wfs_lock_file(c, OP, order[i]->path, order[i]->create, &order[i]->l))
			return at_line(c, order[i]->f->patch_line);
		order[i]->locked = 1;
	}
	return 0;
}

/* The new content of slot s (an add or an update), staged in dst's dir. */
static int stage(struct wfs_ctx *c, struct slot *s, struct slot *dst)
{
	const struct applypatch_file *f = s->f;
	char msg[512], *old;
	struct buf nb;
	size_t len;
	int rc;

	if (f->op == APPLYPATCH_ADD)
		return wfs_stage(c, OP, dst->l.dirfd, dst->path, f->content,
				 f->content_len, NULL, &dst->tmp);
	if (fs_read_fd(c, OP, s->path, s->l.fd, &s->l.st, &old, &len))
		return -1;
	buf_init(&nb);
	if (applypatch_update(f, old, len, &nb, msg, sizeof(msg)))
		rc = wfs_fail(c, OP " %s", msg); /* msg names the file */
	else if (nb.oom)
		rc = wfs_fail(c, OP " %s: out of memory", s->path);
	else
		rc = wfs_stage(c, OP, dst->l.dirfd, dst->path, nb.p ? nb.p : "",
			       nb.len, &s->l.st, &dst->tmp);
	buf_free(&nb);
	return rc;
}

/* Slots: one per file, plus one per move destination right after it. */
/* A relative path of the patch under c->rel_base, when it is set. */
static const char *under_base(struct wfs_ctx *c, const char *path)
{
	if (!c->rel_base || path[0] == '/')
		return path;
	return arena_printf(c->arena, "%s/%s", c->rel_base, path);
}

static struct slot *make_slots(struct wfs_ctx *c, const struct applypatch_plan *p,
			       size_t *n)
{
	struct slot *s = arena_alloc(c->arena, 2 * p->nfiles * sizeof(*s) + 1);
	size_t i, k = 0;

	if (!s)
		return NULL;
	memset(s, 0, 2 * p->nfiles * sizeof(*s) + 1);
	for (i = 0; i < p->nfiles; i++) {
		const struct applypatch_file *f = &p->files[i];
		s[k].f = f;
		s[k].path = under_base(c, f->path);
		s[k++].create = f->op == APPLYPATCH_ADD;
		if (f->op == APPLYPATCH_UPDATE && f->move_to) {
			s[k].f = f;
			s[k].path = under_base(c, f->move_to);
			s[k].dest = 1;
			s[k++].create = 1;
		}
	}
	*n = k;
	for (i = 0; i < k; i++)
		if (!s[i].path)
			return NULL; /* out of memory */
	return s;
}

static int stage_all(struct wfs_ctx *c, struct slot *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct applypatch_file *f = s[i].f;
		struct slot *dst = &s[i];

		if (s[i].dest || f->op == APPLYPATCH_DELETE)
			continue; /* a move destination, or nothing to write */
		if (f->op == APPLYPATCH_UPDATE && f->move_to)
			dst = &s[i + 1];
		if (stage(c, &s[i], dst))
			return at_line(c, f->patch_line);
	}
	return 0;
}

/* Renames first, removals after: a kill midway never loses a file that
 * is only moved. */
static int commit_all(struct wfs_ctx *c, struct slot *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].tmp) {
			if (wfs_commit(c, OP, s[i].l.dirfd, s[i].tmp, s[i].l.name, s[i].path))
				return at_line(c, s[i].f->patch_line);
			s[i].tmp = NULL;
		}
	for (i = 0; i < n; i++) {
		const struct applypatch_file *f = s[i].f;
		int gone = f->op == APPLYPATCH_DELETE ||
			   (f->op == APPLYPATCH_UPDATE && f->move_to);
		if (s[i].dest || !gone)
			continue;
		if (unlinkat(s[i].l.dirfd, s[i].l.name, 0)) {
			wfs_fail_errno(c, OP, s[i].path, errno);
			return at_line(c, f->patch_line);
		}
	}
	return 0;
}

static void release(struct slot *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i].tmp)
			unlinkat(s[i].l.dirfd, s[i].tmp, 0);
		if (s[i].locked)
			wfs_unlock(&s[i].l);
	}
}

static int list_changes(struct wfs_ctx *c, const struct applypatch_plan *p,
			struct wfs_patched **files, size_t *n)
{
	static const char *const names[] = {"add", "delete", "update"};
	size_t i;

	*files = arena_alloc(c->arena, p->nfiles * sizeof(**files) + 1);
	if (!*files)
		return wfs_fail(c, OP ": out of memory");
	for (i = 0; i < p->nfiles; i++) {
		(*files)[i].op = names[p->files[i].op];
		(*files)[i].path = p->files[i].path;
		(*files)[i].move_to = p->files[i].move_to;
	}
	*n = p->nfiles;
	return 0;
}

int wfs_apply_patch(struct wfs_ctx *c, const char *text, size_t len,
		    struct wfs_patched **files, size_t *n)
{
	struct applypatch_plan plan;
	struct slot *s;
	size_t ns = 0;
	char msg[512];
	int rc;

	if (applypatch_parse(c->arena, text, len, &plan, msg, sizeof(msg)))
		return wfs_fail(c, OP ": %s", msg);
	s = make_slots(c, &plan, &ns);
	if (!s)
		return wfs_fail(c, OP ": out of memory");
	rc = lock_all(c, s, ns);
	if (!rc)
		rc = stage_all(c, s, ns);
	if (!rc)
		rc = commit_all(c, s, ns);
	release(s, ns);
	return rc ? -1 : list_changes(c, &plan, files, n);
}
