/* tools.c - the reference filesystem server's tools, with its names,
 * arguments and result text, so that a model sees the same thing.
 *
 * Each acts through the wfs_* operations on the path mcp_path gives, with
 * ctx->root the allowed directory that holds it. Where the reference is
 * silent about a danger (edit_file's oldText found more than once) the
 * tool refuses and says so.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "diff.h"
#include "fsops.h"
#include "globmatch.h"
#include "base64.h"
#include "bytes.h"
#include "confine.h"
#include "ctx.h"
#include "edit.h"
#include "fs.h"
#include "path.h"
#include "walk.h"
#include "mcp_int.h"

/* ---- reading ---- */

/* CRLF to LF in place, as the reference reads text for tail and edits. */
static size_t lf_only(char *p, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++)
		if (!(p[i] == '\r' && i + 1 < n && p[i + 1] == '\n'))
			p[o++] = p[i];
	return o;
}

static int read_text(struct mcp_call *c, const char *path, char **data, size_t *len)
{
	return wfs_read(c->ctx, path, data, len);
}

int mcp_read_text_file(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	long long head = 0, tail = 0;
	int has_head, has_tail;
	char *d;
	size_t n, i, k;

	if (!path || mcp_arg_int(c, "head", &head, &has_head) ||
	    mcp_arg_int(c, "tail", &tail, &has_tail))
		return -1;
	if (head && tail)
		return wfs_fail(c->ctx, "Cannot specify both head and tail parameters simultaneously");
	if (head < 0 || tail < 0)
		return wfs_fail(c->ctx, "%s %s: head and tail count lines: 1 or more",
				c->tool, path);
	if (read_text(c, path, &d, &n))
		return -1;
	if (tail) {
		/* the last N pieces between newlines, a final "" included */
		n = lf_only(d, n);
		for (i = n, k = 0; i > 0; i--)
			if (d[i - 1] == '\n' && ++k == (size_t)tail)
				break;
		buf_add(&c->text, d + i, n - i);
	} else if (head) {
		for (i = 0, k = 0; i < n; i++)
			if (d[i] == '\n' && ++k == (size_t)head)
				break;
		if (i == n && n && d[n - 1] == '\n')
			i--; /* fewer lines: all of them, no final newline */
		buf_add(&c->text, d, i);
	} else {
		buf_add(&c->text, d, n);
	}
	return 0;
}

const char *mcp_mime_of(const char *path)
{
	/* clang-format off */
	static const char *const map[][2] = {
		{".png", "image/png"}, {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"},
		{".gif", "image/gif"}, {".webp", "image/webp"}, {".bmp", "image/bmp"},
		{".svg", "image/svg+xml"}, {".mp3", "audio/mpeg"}, {".wav", "audio/wav"},
		{".ogg", "audio/ogg"}, {".flac", "audio/flac"},
	};
	/* clang-format on */
	const char *base = path_base(path), *dot = strrchr(base, '.');
	size_t i;

	for (i = 0; dot && dot != base && i < sizeof(map) / sizeof(*map); i++)
		if (!strcasecmp(dot, map[i][0]))
			return map[i][1];
	return "application/octet-stream";
}

int mcp_read_media_file(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path"), *mime, *p;
	struct buf *b = &c->content;
	char *d;
	size_t n;

	if (!path || read_text(c, path, &d, &n))
		return -1;
	mime = mcp_mime_of(path);
	if (!strncmp(mime, "image/", 6) || !strncmp(mime, "audio/", 6)) {
		buf_printf(b, "[{\"type\":\"%.5s\",\"data\":\"", mime);
		base64_encode(b, (const unsigned char *)d, n);
		buf_printf(b, "\",\"mimeType\":\"%s\"}]", mime);
		return 0;
	}
	buf_puts(b, "[{\"type\":\"resource\",\"resource\":{\"uri\":\"file://");
	for (p = path; *p; p++) {
		/* the bytes Node's pathToFileURL escapes */
		if (strchr("\"\\%#?<>`{}[]|^", *p) || (unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			buf_printf(b, "%%%02X", (unsigned char)*p);
		else
			buf_putc(b, *p);
	}
	buf_printf(b, "\",\"mimeType\":\"%s\",\"blob\":\"", mime);
	base64_encode(b, (const unsigned char *)d, n);
	buf_puts(b, "\"}}]");
	return 0;
}

int mcp_read_multiple_files(struct mcp_call *c)
{
	const char **paths, *path;
	size_t n, i, len;
	char *d;

	if (mcp_arg_strs(c, "paths", 1, &paths, &n))
		return -1;
	if (!n)
		return mcp_bad_arg(c, "paths", "needs at least one path");
	for (i = 0; i < n; i++) {
		if (i)
			buf_puts(&c->text, "\n---\n");
		path = mcp_path(c, paths[i]);
		if (path && !read_text(c, path, &d, &len)) {
			buf_printf(&c->text, "%s:\n", paths[i]);
			buf_add(&c->text, d, len);
			buf_putc(&c->text, '\n');
		} else {
			buf_printf(&c->text, "%s: Error - %s", paths[i], c->ctx->err);
		}
	}
	return 0;
}

/* ---- writing ---- */

int mcp_write_file(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path"), *given = NULL, *content = NULL;
	size_t len = 0;

	if (!path || mcp_arg_str(c, "path", 1, &given, NULL) ||
	    mcp_arg_str(c, "content", 1, &content, &len) ||
	    wfs_write(c->ctx, path, content, len, 0))
		return -1;
	buf_printf(&c->text, "Successfully wrote to %s", given);
	return 0;
}

int mcp_create_directory(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path"), *given = NULL;
	int created;

	if (!path || mcp_arg_str(c, "path", 1, &given, NULL) ||
	    wfs_mkdir(c->ctx, path, 1, &created))
		return -1;
	buf_printf(&c->text, "Successfully created directory %s", given);
	return 0;
}

int mcp_move_file(struct mcp_call *c)
{
	const char *src = mcp_path_arg(c, "source"), *dst, *root = c->ctx->root;
	const char *gs = NULL, *gd = NULL, *landed, *type;
	int copied, yes;

	if (!src || !(dst = mcp_path_arg(c, "destination")) ||
	    mcp_arg_str(c, "source", 1, &gs, NULL) ||
	    mcp_arg_str(c, "destination", 1, &gd, NULL))
		return -1;
	/* one root per operation: the confinement holds both ends there */
	if (strcmp(root, c->ctx->root))
		return wfs_fail(c->ctx, "move %s %s: the two paths are in different allowed "
					"directories; copy and delete instead",
				src, dst);
	if (wfs_exists(c->ctx, dst, &yes, &type))
		return -1;
	if (yes)
		return wfs_fail(c->ctx, "Destination already exists: %s", dst);
	if (wfs_mv(c->ctx, src, dst, 1, &copied, &landed))
		return -1;
	buf_printf(&c->text, "Successfully moved %s to %s", gs, gd);
	return 0;
}

/* ---- edit_file ---- */

static int is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* A line without its surrounding white space. */
struct span {
	const char *p;
	size_t n;
};

static struct span trimmed(struct span l)
{
	while (l.n && is_space(*l.p)) {
		l.p++;
		l.n--;
	}
	while (l.n && is_space(l.p[l.n - 1]))
		l.n--;
	return l;
}

static size_t indent_of(struct span l)
{
	size_t i = 0;

	while (i < l.n && is_space(l.p[i]))
		i++;
	return i;
}

/* Split p[0..n) at every '\n' (n+1 pieces for n newlines), in the arena. */
static struct span *split_lines(struct arena *a, const char *p, size_t n, size_t *count)
{
	size_t k = bytes_count(p, n, '\n') + 1, i = 0;
	struct span *v = arena_alloc(a, k * sizeof(*v));
	const char *end = p + n;

	if (!v)
		return NULL;
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		v[i].p = p;
		v[i++].n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (!nl)
			break;
		p = nl + 1;
	}
	*count = k;
	return v;
}

static size_t count_of(const char *hay, size_t n, const char *needle, size_t m)
{
	size_t k = 0;
	const char *p = hay, *end = hay + n;

	while (m && (p = memmem(p, (size_t)(end - p), needle, m))) {
		k++;
		p += m;
	}
	return k;
}

/* Apply one edit to cur (LF only) into out; -1 with ctx->err set. */
static int edit_one(struct mcp_call *c, const char *path, int nth, struct buf *cur,
		    char *old, size_t olen, char *new, size_t nlen, struct buf *out)
{
	struct span *cl, *ol, *nl;
	size_t ncl, nol, nnl, i, j, at = 0, hits;
	const char *hit, *cp = cur->p ? cur->p : ""; /* an empty file: no buffer */

	olen = lf_only(old, olen);
	nlen = lf_only(new, nlen);
	if (!olen)
		return wfs_fail(c->ctx, "edit_file %s: edit %d: oldText is empty", path, nth);
	hits = count_of(cp, cur->len, old, olen);
	if (hits > 1)
		return wfs_fail(c->ctx, "edit_file %s: edit %d: oldText occurs %zu times; add "
					"surrounding lines to make it unique (nothing was changed)",
				path, nth, hits);
	if (hits == 1) {
		hit = memmem(cp, cur->len, old, olen);
		buf_add(out, cp, (size_t)(hit - cp));
		buf_add(out, new, nlen);
		buf_add(out, hit + olen, cur->len - (size_t)(hit - cp) - olen);
		return 0;
	}
	/* line by line, white space around each line ignored */
	cl = split_lines(c->a, cp, cur->len, &ncl);
	ol = split_lines(c->a, old, olen, &nol);
	nl = split_lines(c->a, new, nlen, &nnl);
	if (!cl || !ol || !nl)
		return wfs_fail(c->ctx, "edit_file %s: out of memory", path);
	for (i = 0, hits = 0; nol <= ncl && i <= ncl - nol; i++) {
		for (j = 0; j < nol; j++) {
			struct span a = trimmed(cl[i + j]), b = trimmed(ol[j]);
			if (a.n != b.n || memcmp(a.p, b.p, a.n))
				break;
		}
		if (j == nol && !hits++)
			at = i;
	}
	if (!hits)
		return wfs_fail(c->ctx, "Could not find exact match for edit:\n%.*s", (int)olen, old);
	if (hits > 1)
		return wfs_fail(c->ctx, "edit_file %s: edit %d: oldText matches %zu places (white "
					"space aside); add surrounding lines to make it unique "
					"(nothing was changed)",
				path, nth, hits);
	for (i = 0; i < at; i++) {
		buf_add(out, cl[i].p, cl[i].n);
		buf_putc(out, '\n');
	}
	/* the first line takes the file's indentation; later ones keep their
	 * indentation relative to oldText's */
	for (j = 0; j < nnl; j++) {
		size_t fi = indent_of(cl[at]), ni = indent_of(nl[j]);
		size_t oi = j < nol ? indent_of(ol[j]) : 0;
		if (j)
			buf_putc(out, '\n');
		if (j && !(oi && ni)) {
			buf_add(out, nl[j].p, nl[j].n);
			continue;
		}
		buf_add(out, cl[at].p, fi);
		for (i = oi; j && i < ni; i++)
			buf_putc(out, ' ');
		buf_add(out, nl[j].p + ni, nl[j].n - ni);
	}
	for (i = at + nol; i < ncl; i++) {
		buf_putc(out, '\n');
		buf_add(out, cl[i].p, cl[i].n);
	}
	return 0;
}

/* The reference's diff: jsdiff's two-file patch, "Index:" and rule first,
 * every hunk range with its count. */
static void put_diff(struct buf *out, const char *path, const char *a, size_t an,
		     const char *b, size_t bn)
{
	struct diff d;
	struct buf u;
	size_t i = 0;

	buf_printf(out, "Index: %s\n"
			"===================================================================\n"
			"--- %s\toriginal\n+++ %s\tmodified\n",
		   path, path, path);
	if (diff_compute(&d, a, an, b, bn, 4)) {
		out->oom = 1;
		return;
	}
	buf_init(&u);
	diff_unified(&d, &u, "a", "b");
	diff_free(&d);
	/* skip GNU's two header lines, add ",1" where GNU leaves it out */
	for (i = 0; i < u.len;) {
		const char *l = u.p + i, *e = memchr(l, '\n', u.len - i);
		size_t n = e ? (size_t)(e - l) + 1 : u.len - i;
		if (!strncmp(l, "--- ", 4) || !strncmp(l, "+++ ", 4)) {
		} else if (!strncmp(l, "@@ -", 4)) {
			size_t x = 3;
			buf_puts(out, "@@ ");
			while (x < n && l[x] != '@') {
				size_t w = strcspn(l + x, " \n");
				buf_add(out, l + x, w);
				if (!memchr(l + x, ',', w))
					buf_puts(out, ",1");
				buf_putc(out, ' ');
				x += w + 1;
			}
			buf_puts(out, "@@\n");
		} else {
			buf_add(out, l, n);
		}
		i += n;
	}
	buf_free(&u);
}

int mcp_edit_file(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	const struct json_val *edits = mcp_get(c->args, "edits");
	struct buf cur, next, diff, *out_buf;
	int dry = 0, rc = -1, ticks = 3, crlf;
	char *d, *orig;
	size_t n, i, olen;

	if (!path || mcp_arg_bool(c, "dryRun", &dry))
		return -1;
	if (!edits || edits->type != JSON_ARR)
		return mcp_bad_arg(c, "edits", "is required (an array of {oldText, newText})");
	for (i = 0; i < edits->len; i++) {
		const struct json_val *o = mcp_get(&edits->items[i], "oldText");
		const struct json_val *w = mcp_get(&edits->items[i], "newText");
		if (!o || o->type != JSON_STR || !w || w->type != JSON_STR)
			return mcp_bad_arg(c, "edits", "must hold objects with string oldText and newText");
	}
	if (read_text(c, path, &d, &n))
		return -1;
	olen = n;
	n = lf_only(d, n);
	/* every line ended CRLF: it is written back so (the reference writes
	 * the whole file with LF endings, silently) */
	crlf = n < olen && bytes_count(d, n, '\n') == olen - n;
	orig = d;
	olen = n;
	buf_init(&cur);
	buf_init(&next);
	buf_init(&diff);
	buf_add(&cur, d, n);
	for (i = 0; i < edits->len; i++) {
		const struct json_val *o = mcp_get(&edits->items[i], "oldText");
		const struct json_val *w = mcp_get(&edits->items[i], "newText");
		char *old = arena_strndup(c->a, o->str, o->len);
		char *new = arena_strndup(c->a, w->str, w->len);
		struct buf t;
		if (!old || !new) {
			wfs_fail(c->ctx, "edit_file %s: out of memory", path);
			goto out;
		}
		buf_reset(&next);
		if (edit_one(c, path, (int)i + 1, &cur, old, o->len, new, w->len, &next))
			goto out;
		t = cur;
		cur = next;
		next = t;
	}
	if (cur.oom || next.oom) {
		wfs_fail(c->ctx, "edit_file %s: out of memory", path);
		goto out;
	}
	put_diff(&diff, path, orig, olen, cur.p ? cur.p : "", cur.len);
	while (diff.len && memmem(diff.p, diff.len, "``````````", (size_t)ticks))
		ticks++;
	if (crlf) {
		buf_reset(&next);
		for (i = 0; i < cur.len; i++) {
			if (cur.p[i] == '\n')
				buf_putc(&next, '\r');
			buf_putc(&next, cur.p[i]);
		}
	}
	out_buf = crlf ? &next : &cur;
	if (!dry && wfs_write(c->ctx, path, out_buf->p ? out_buf->p : "", out_buf->len, 0))
		goto out;
	buf_printf(&c->text, "%.*sdiff\n", ticks, "``````````````````````````````");
	buf_add(&c->text, diff.p, diff.len);
	buf_printf(&c->text, "%.*s\n\n", ticks, "``````````````````````````````");
	rc = 0;
out:
	buf_free(&cur);
	buf_free(&next);
	buf_free(&diff);
	return rc;
}

/* ---- listings ---- */

int mcp_list_directory(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	struct wfs_dirent *e;
	size_t n, i;

	if (!path || wfs_ls(c->ctx, path, &e, &n))
		return -1;
	for (i = 0; i < n; i++)
		buf_printf(&c->text, "%s%s %s", i ? "\n" : "",
			   strcmp(e[i].type, "dir") ? "[FILE]" : "[DIR]", e[i].name);
	return 0;
}

/* The reference's sizes: "0 B", "512 B", "1.50 KB" (two decimals). */
static void put_size(struct buf *b, unsigned long long n, int width)
{
	static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
	unsigned long long div = 1, hundredths;
	char s[40];
	int i = 0;

	while (i < 4 && n >= div * 1024) {
		div *= 1024;
		i++;
	}
	if (!i) {
		snprintf(s, sizeof(s), "%llu B", n);
	} else {
		hundredths = (n * 100 + div / 2) / div;
		snprintf(s, sizeof(s), "%llu.%02llu %s", hundredths / 100, hundredths % 100,
			 units[i]);
	}
	buf_printf(b, "%*s", width, s);
}

/* A byte's rank in the order of JavaScript's localeCompare (ICU's root
 * collation) for ASCII: white space and punctuation, digits, then letters
 * with case folded; other bytes after them. */
static int rank(unsigned char ch)
{
	static const char order[] = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789"
				    "abcdefghijklmnopqrstuvwxyz";
	const char *p;

	if (ch >= 'A' && ch <= 'Z')
		ch |= 0x20;
	p = ch ? strchr(order, ch) : NULL;
	return p ? (int)(p - order) : 128 + ch;
}

static int by_name(const void *x, const void *y)
{
	const struct wfs_dirent *a = x, *b = y;
	const unsigned char *p = (const unsigned char *)a->name;
	const unsigned char *q = (const unsigned char *)b->name;

	for (; *p && *q; p++, q++)
		if (rank(*p) != rank(*q))
			return rank(*p) - rank(*q);
	if (*p || *q)
		return *p ? 1 : -1;
	return -strcmp(a->name, b->name); /* then lower case first */
}

static int by_size(const void *x, const void *y)
{
	const struct wfs_dirent *a = x, *b = y;

	/* largest first, a directory by its own size as the reference does */
	if (a->size != b->size)
		return a->size < b->size ? 1 : -1;
	return strcmp(a->name, b->name); /* stable on the listing's order */
}

int mcp_list_directory_with_sizes(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path"), *sort = "name";
	struct wfs_dirent *e;
	size_t n, i, files = 0, dirs = 0;
	unsigned long long total = 0;

	if (!path || mcp_arg_str(c, "sortBy", 0, &sort, NULL))
		return -1;
	if (strcmp(sort, "name") && strcmp(sort, "size"))
		return mcp_bad_arg(c, "sortBy", "must be \"name\" or \"size\"");
	if (wfs_ls(c->ctx, path, &e, &n))
		return -1;
	qsort(e, n, sizeof(*e), *sort == 'n' ? by_name : by_size);
	for (i = 0; i < n; i++) {
		int dir = !strcmp(e[i].type, "dir");
		size_t chars = 0;
		const char *p;

		for (p = e[i].name; *p; p++)
			chars += ((unsigned char)*p & 0xc0) != 0x80;
		buf_printf(&c->text, "%s %s%*s ", dir ? "[DIR]" : "[FILE]", e[i].name,
			   chars < 30 ? (int)(30 - chars) : 0, "");
		if (!dir)
			put_size(&c->text, (unsigned long long)e[i].size, 10);
		buf_putc(&c->text, '\n');
		dirs += dir;
		files += !dir;
		total += dir ? 0 : (unsigned long long)e[i].size;
	}
	buf_printf(&c->text, "\nTotal: %zu files, %zu directories\nCombined size: ", files, dirs);
	put_size(&c->text, total, 0);
	return 0;
}

/* minimatch with dot:true, as near as our glob gets. */
static int matches(const char *pat, const char *rel)
{
	return globmatch_path(pat, rel) == 1;
}

static int excluded(const char **pats, size_t n, const char *rel, int bare_too)
{
	const char *p;
	size_t i;

	for (i = 0; i < n; i++) {
		if (matches(pats[i], rel))
			return 1;
		/* the tree's rule: a name without '*' excludes it anywhere,
		 * as "**\/NAME" would */
		if (bare_too && !strchr(pats[i], '*'))
			for (p = strchr(rel, '/'); p; p = strchr(p + 1, '/'))
				if (matches(pats[i], p + 1))
					return 1;
	}
	return 0;
}

struct tree_node {
	const char *name;
	int dir;
	struct tree_node *child, *last, *next;
};

struct walk_state {
	struct mcp_call *c;
	const char **excl;
	size_t nexcl;
	const char *pattern;          /* search_files */
	struct tree_node *stack[512]; /* directory_tree: the open directory per depth */
	int oom, deep;
	size_t found;
};

static int tree_visit(void *arg, const struct walk_ent *e)
{
	struct walk_state *w = arg;
	struct tree_node *t, *parent;

	if (!e->depth)
		return WALK_CONTINUE;
	if (excluded(w->excl, w->nexcl, e->rel, 1))
		return WALK_SKIP;
	if (e->depth >= 512) {
		w->deep = 1;
		return WALK_SKIP;
	}
	/* the text of more nodes than this would be cut anyway */
	if (++w->found > (w->c->s->max_result ? w->c->s->max_result : MCP_RESULT_MAX) / 16)
		return WALK_STOP;
	t = arena_alloc(w->c->a, sizeof(*t));
	if (!t) {
		w->oom = 1;
		return WALK_STOP;
	}
	memset(t, 0, sizeof(*t));
	t->name = arena_strdup(w->c->a, e->name);
	t->dir = e->type == WALK_DIR;
	parent = w->stack[e->depth - 1];
	if (parent->last)
		parent->last->next = t;
	else
		parent->child = t;
	parent->last = t;
	w->stack[e->depth] = t;
	return WALK_CONTINUE;
}

/* JSON.stringify(tree, null, 2) */
static void put_tree(struct buf *b, const struct tree_node *t, int depth)
{
	const struct tree_node *k;

	if (!t->child) {
		buf_puts(b, "[]");
		return;
	}
	buf_puts(b, "[\n");
	for (k = t->child; k; k = k->next) {
		buf_printf(b, "%*s{\n%*s\"name\": ", depth * 4 + 2, "", depth * 4 + 4, "");
		json_cstr(b, k->name);
		buf_printf(b, ",\n%*s\"type\": \"%s\"", depth * 4 + 4, "",
			   k->dir ? "directory" : "file");
		if (k->dir) {
			buf_printf(b, ",\n%*s\"children\": ", depth * 4 + 4, "");
			put_tree(b, k, depth + 1);
		}
		buf_printf(b, "\n%*s}%s\n", depth * 4 + 2, "", k->next ? "," : "");
	}
	buf_printf(b, "%*s]", depth * 4, "");
}

static int walk_from(struct mcp_call *c, const char *op, const char *path,
		     walk_fn fn, struct walk_state *w)
{
	struct walk_opts o = {1, 1, 0, NULL};
	int fd, rc;

	if (walk_open_root(c->ctx, op, path, O_PATH, &fd))
		return -1;
	if (fd < 0)
		return wfs_fail(c->ctx, "%s %s: no such directory", op, path);
	rc = wfs_walk(c->ctx, path, fd, &o, fn, w);
	close(fd);
	if (!rc && w->oom)
		rc = wfs_fail(c->ctx, "%s %s: out of memory", op, path);
	return rc;
}

int mcp_directory_tree(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	struct walk_state w = {0};
	struct tree_node root = {0};

	w.c = c;
	w.stack[0] = &root;
	if (!path || mcp_arg_strs(c, "excludePatterns", 0, &w.excl, &w.nexcl) ||
	    walk_from(c, "directory_tree", path, tree_visit, &w))
		return -1;
	put_tree(&c->text, &root, 0);
	if (w.deep)
		buf_puts(&c->text, "\n[directories deeper than 512 levels left out]");
	return 0;
}

static int search_visit(void *arg, const struct walk_ent *e)
{
	struct walk_state *w = arg;

	if (!e->depth)
		return WALK_CONTINUE;
	if (excluded(w->excl, w->nexcl, e->rel, 0))
		return WALK_SKIP;
	/* a link that leads out is no result, as the reference validates */
	if (e->type == WALK_LINK && wfs_confine(w->c->ctx, "search_files", e->path))
		return WALK_CONTINUE;
	if (matches(w->pattern, e->rel)) {
		buf_printf(&w->c->text, "%s%s", w->found++ ? "\n" : "", e->path);
		if (w->c->text.len > (w->c->s->max_result ? w->c->s->max_result : MCP_RESULT_MAX))
			return WALK_STOP; /* capped by the answer anyway */
	}
	return WALK_CONTINUE;
}

int mcp_search_files(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	struct walk_state w = {0};

	w.c = c;
	if (!path || mcp_arg_str(c, "pattern", 1, &w.pattern, NULL) ||
	    mcp_arg_strs(c, "excludePatterns", 0, &w.excl, &w.nexcl))
		return -1;
	if (globmatch_path(w.pattern, "") < 0)
		return mcp_bad_arg(c, "pattern", "is not a valid glob (an unclosed [ or {)");
	if (walk_from(c, "search_files", path, search_visit, &w))
		return -1;
	c->ctx->err[0] = 0;
	if (!w.found)
		buf_puts(&c->text, "No matches found");
	return 0;
}

/* ---- get_file_info, list_allowed_directories ---- */

/* A time as JavaScript's Date prints it, in UTC. */
static void put_date(struct buf *b, const char *key, const struct json_val *st,
		     const char *field)
{
	static const char days[] = "SunMonTueWedThuFriSat";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const struct json_val *v = mcp_get(st, field);
	time_t t = v ? (time_t)v->num : 0;
	struct tm tm;

	wfs_gmtime(t, &tm);
	buf_printf(b, "%s: %.3s %.3s %02d %d %02d:%02d:%02d GMT+0000 (Coordinated Universal Time)\n",
		   key, days + 3 * tm.tm_wday, months + 3 * tm.tm_mon, tm.tm_mday,
		   tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

int mcp_get_file_info(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	const struct json_val *type, *size, *mode;
	struct json_val st;
	struct buf j;
	char err[128];
	int rc;

	if (!path)
		return -1;
	buf_init(&j);
	rc = wfs_stat_json(c->ctx, path, 1, &j);
	if (!rc && (j.oom || json_parse(c->a, j.p, j.len, &st, err, sizeof(err))))
		rc = wfs_fail(c->ctx, "get_file_info %s: out of memory", path);
	buf_free(&j);
	if (rc)
		return -1;
	type = mcp_get(&st, "type");
	size = mcp_get(&st, "size");
	mode = mcp_get(&st, "mode");
	buf_printf(&c->text, "size: %s\n", size ? size->str : "0");
	/* no birth time from stat: the change time stands for it */
	put_date(&c->text, "created", &st, "ctime_unix");
	put_date(&c->text, "modified", &st, "mtime_unix");
	put_date(&c->text, "accessed", &st, "atime_unix");
	buf_printf(&c->text, "isDirectory: %s\nisFile: %s\npermissions: %s",
		   type && !strcmp(type->str, "dir") ? "true" : "false",
		   type && !strcmp(type->str, "file") ? "true" : "false",
		   mode && mode->len >= 3 ? mode->str + mode->len - 3 : "");
	return 0;
}

int mcp_list_allowed_directories(struct mcp_call *c)
{
	size_t i;

	buf_puts(&c->text, "Allowed directories:");
	/* as given too when a link leads to it, as the reference lists it */
	for (i = 0; i < c->s->ndirs; i++) {
		if (strcmp(c->s->given[i], c->s->dirs[i]))
			buf_printf(&c->text, "\n%s", c->s->given[i]);
		buf_printf(&c->text, "\n%s", c->s->dirs[i]);
	}
	return 0;
}
