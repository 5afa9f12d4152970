/* ours.c - the tools the reference server lacks, which its users ask for:
 * content search, reads by line range, patches, commands. Named for a
 * model; each is one call of the operation the applet of that job makes.
 */
#include <string.h>
#include "archive.h"
#include "diff.h"
#include "fsops.h"
#include "lines.h"
#include "snapshot.h"
#include "ctx.h"
#include "edit.h"
#include "fs.h"
#include "mcp_int.h"

static size_t cap_of(const struct mcp_call *c)
{
	return c->s->max_result ? c->s->max_result : MCP_RESULT_MAX;
}

/* path, or the first allowed directory when the argument is absent */
static const char *path_or_first(struct mcp_call *c, const char *key)
{
	if (!mcp_get(c->args, key))
		return mcp_path(c, c->s->dirs[0]);
	return mcp_path_arg(c, key);
}

int mcp_grep(struct mcp_call *c)
{
	struct wfs_grep_opts o = {0};
	struct wfs_grep_result res;
	const char **inc = NULL;
	long long ctx = 0, max = 200;
	size_t ninc = 0, i;
	int given, files = 0;

	o.path = path_or_first(c, "path");
	if (!o.path || mcp_arg_str(c, "pattern", 1, &o.pattern, NULL) ||
	    mcp_arg_strs(c, "include", 0, &inc, &ninc) ||
	    mcp_arg_bool(c, "ignoreCase", &o.ignore_case) ||
	    mcp_arg_bool(c, "fixedStrings", &o.fixed) ||
	    mcp_arg_bool(c, "filesWithMatches", &files) ||
	    mcp_arg_int(c, "context", &ctx, &given) || mcp_arg_int(c, "maxResults", &max, &given))
		return -1;
	if (ctx < 0 || ctx > 100 || max < 0)
		return wfs_fail(c->ctx, "grep: context takes 0 to 100, maxResults 0 or more");
	o.before = o.after = (int)ctx;
	o.max = (long)max;
	o.include = inc;
	o.ninclude = (int)ninc;
	o.files_with_matches = files;
	o.walk.gitignore = 1;
	if (wfs_grep(c->ctx, &o, &res))
		return -1;
	buf_puts(&c->data, "{\"matches\":[");
	for (i = 0; i < res.n; i++) {
		const struct wfs_grep_match *m = &res.matches[i];
		if (i)
			buf_putc(&c->text, '\n');
		if (files) {
			buf_puts(&c->text, m->file);
		} else {
			buf_printf(&c->text, "%s%c%lld%c", m->file, m->context ? '-' : ':', m->line,
				   m->context ? '-' : ':');
			buf_add(&c->text, m->text ? m->text : "", m->text ? m->text_len : 0);
		}
		if (m->context || c->data.len > cap_of(c))
			continue;
		buf_puts(&c->data, c->data.p[c->data.len - 1] == '[' ? "{\"file\":" : ",{\"file\":");
		json_cstr(&c->data, m->file);
		buf_printf(&c->data, ",\"line\":%lld,\"text\":", m->line);
		json_str(&c->data, m->text ? m->text : "", m->text ? m->text_len : 0);
		buf_putc(&c->data, '}');
	}
	buf_printf(&c->data, "],\"truncated\":%s}", res.truncated ? "true" : "false");
	if (!res.n)
		buf_puts(&c->text, "No matches found");
	if (res.truncated)
		buf_printf(&c->text, "\n[... stopped at maxResults %lld: narrow the path or "
				     "pattern, or raise maxResults]",
			   max);
	return 0;
}

int mcp_read_lines(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	long long offset = 1, limit = LINES_LIMIT;
	struct lines_page page;
	int given;
	char *d;
	size_t n;

	if (!path || mcp_arg_int(c, "offset", &offset, &given) ||
	    mcp_arg_int(c, "limit", &limit, &given))
		return -1;
	if (offset < 1 || limit < 1)
		return wfs_fail(c->ctx, "read_lines %s: offset and limit count lines: 1 or more",
				path);
	if (wfs_read(c->ctx, path, &d, &n))
		return -1;
	lines_page(d, n, (size_t)offset, (size_t)limit, 0, &c->text, &page);
	if (page.more)
		buf_printf(&c->text, "\n[... lines %zu-%zu of %zu shown; call read_lines with "
				     "offset %zu for more]",
			   page.first, page.first + page.shown - 1, page.total,
			   page.first + page.shown);
	else if (!page.shown)
		buf_printf(&c->text, "[no line %lld: the file has %zu lines]", offset, page.total);
	return 0;
}

int mcp_apply_patch(struct mcp_call *c)
{
	struct wfs_patched *f;
	const char *text = NULL;
	size_t len = 0, n, i;

	c->ctx->rel_base = c->s->dirs[0]; /* not the process's: HTTP sessions differ */
	if (mcp_arg_str(c, "patch", 1, &text, &len) || !mcp_path(c, c->s->dirs[0]) ||
	    wfs_apply_patch(c->ctx, text, len, &f, &n))
		return -1;
	buf_puts(&c->text, "Applied:");
	for (i = 0; i < n; i++) {
		buf_printf(&c->text, "\n%s %s", f[i].op, f[i].path);
		if (f[i].move_to)
			buf_printf(&c->text, " -> %s", f[i].move_to);
	}
	return 0;
}

static void put_stream(struct buf *b, const char *name, const struct buf *s, int cut)
{
	buf_printf(b, ",\"%s\":", name);
	json_str(b, s->p ? s->p : "", s->len);
	buf_printf(b, ",\"%sTruncated\":%s", name, cut ? "true" : "false");
}

int mcp_run_command(struct mcp_call *c)
{
	struct wfs_exec_opts o = {0};
	struct wfs_exec_result res;
	long long timeout = 60;
	int given;

	o.cwd = path_or_first(c, "cwd");
	if (!o.cwd || mcp_arg_str(c, "command", 1, &o.command, NULL) ||
	    mcp_arg_str(c, "stdin", 0, &o.in, &o.in_len) ||
	    mcp_arg_int(c, "timeout", &timeout, &given))
		return -1;
	if (timeout < 1 || timeout > 86400)
		return wfs_fail(c->ctx, "run_command: timeout takes 1 to 86400 seconds");
	o.root = c->ctx->root;
	o.cwd_label = "cwd";
	o.timeout_ms = timeout * 1000;
	o.max_output = cap_of(c);
	if (wfs_exec(c->ctx, &o, &res))
		return -1;
	buf_add(&c->text, res.out.p ? res.out.p : "", res.out.len);
	if (res.out_truncated)
		buf_puts(&c->text, "\n[... stdout truncated]");
	if (res.err.len) {
		buf_puts(&c->text, c->text.len ? "\n[stderr]\n" : "[stderr]\n");
		buf_add(&c->text, res.err.p, res.err.len);
		if (res.err_truncated)
			buf_puts(&c->text, "\n[... stderr truncated]");
	}
	if (res.timed_out)
		buf_printf(&c->text, "\n[timed out after %lld s: the command was killed]", timeout);
	buf_printf(&c->text, "\n[exit code %d]", res.exit_code);
	buf_printf(&c->data, "{\"exitCode\":%d,\"timedOut\":%s", res.exit_code,
		   res.timed_out ? "true" : "false");
	put_stream(&c->data, "stdout", &res.out, res.out_truncated);
	put_stream(&c->data, "stderr", &res.err, res.err_truncated);
	buf_putc(&c->data, '}');
	buf_free(&res.out);
	buf_free(&res.err);
	return 0;
}

/* ---- the operations of our applets, their JSON as text and data ---- */

int mcp_stat(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path");
	int follow = 0;

	if (!path || mcp_arg_bool(c, "follow", &follow) ||
	    wfs_stat_json(c->ctx, path, follow, &c->data))
		return -1;
	buf_add(&c->text, c->data.p, c->data.len);
	return 0;
}

int mcp_delete_file(struct mcp_call *c)
{
	const char *path = mcp_path_arg(c, "path"), *given = NULL;
	long long removed = 0;
	int recursive = 0;

	if (!path || mcp_arg_str(c, "path", 1, &given, NULL) ||
	    mcp_arg_bool(c, "recursive", &recursive) ||
	    wfs_rm(c->ctx, path, recursive, 0, &removed))
		return -1;
	buf_printf(&c->text, "Successfully deleted %s (%lld entr%s)", given, removed,
		   removed == 1 ? "y" : "ies");
	return 0;
}

int mcp_copy_file(struct mcp_call *c)
{
	const char *src = mcp_path_arg(c, "source"), *dst, *root = c->ctx->root;
	const char *gs = NULL, *gd = NULL, *landed;
	long long copied = 0;
	int recursive = 0;

	if (!src || !(dst = mcp_path_arg(c, "destination")) ||
	    mcp_arg_str(c, "source", 1, &gs, NULL) || mcp_arg_str(c, "destination", 1, &gd, NULL) ||
	    mcp_arg_bool(c, "recursive", &recursive))
		return -1;
	if (strcmp(root, c->ctx->root))
		return wfs_fail(c->ctx, "copy %s %s: the two paths are in different allowed "
					"directories",
				src, dst);
	if (wfs_cp(c->ctx, src, dst, recursive, 1, &copied, &landed))
		return -1;
	buf_printf(&c->text, "Successfully copied %s to %s (%lld entr%s)", gs, gd, copied,
		   copied == 1 ? "y" : "ies");
	return 0;
}

int mcp_diff(struct mcp_call *c)
{
	const char *a = mcp_path_arg(c, "path"), *b = NULL, *content = NULL, *ga = NULL;
	const char *gb = NULL;
	char *da, *db;
	size_t na, nb;
	struct diff d;

	if (!a || mcp_arg_str(c, "path", 1, &ga, NULL) ||
	    mcp_arg_str(c, "otherPath", 0, &gb, NULL) ||
	    mcp_arg_str(c, "content", 0, &content, &nb))
		return -1;
	if (!gb == !content)
		return mcp_bad_arg(c, "otherPath", "or content is needed (one of them)");
	if (wfs_read(c->ctx, a, &da, &na))
		return -1;
	db = (char *)content;
	if (gb && (!(b = mcp_path(c, gb)) || wfs_read(c->ctx, b, &db, &nb)))
		return -1;
	if (diff_compute(&d, da, na, db, nb, 3))
		return wfs_fail(c->ctx, "diff %s: out of memory", a);
	diff_unified(&d, &c->text, ga, gb ? gb : "content");
	buf_printf(&c->data, "{\"added\":%zu,\"removed\":%zu}", d.added, d.removed);
	diff_free(&d);
	if (!c->text.len)
		buf_puts(&c->text, "No differences");
	return 0;
}

/* The directory of a snapshot tool: path, or the first allowed one. */
static int snap_opts(struct mcp_call *c, struct wfs_snap_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->dir = path_or_first(c, "path");
	return o->dir ? 0 : -1;
}

static int json_result(struct mcp_call *c)
{
	if (!c->data.len)
		return -1;
	buf_add(&c->text, c->data.p, c->data.len);
	return 0;
}

int mcp_snapshot(struct mcp_call *c)
{
	struct wfs_snap_opts o;
	struct wfs_snap_info info;

	if (snap_opts(c, &o) || mcp_arg_str(c, "tag", 0, &o.tag, NULL) ||
	    wfs_snapshot(c->ctx, &o, &info))
		return -1;
	wfs_snap_info_json(&c->data, &info);
	return json_result(c);
}

int mcp_snapshots(struct mcp_call *c)
{
	struct wfs_snap_opts o;
	struct wfs_snap_info *l;
	size_t n, i;

	if (snap_opts(c, &o) || wfs_snapshots(c->ctx, &o, &l, &n))
		return -1;
	buf_puts(&c->data, "{\"snapshots\":[");
	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(&c->data, ',');
		wfs_snap_info_json(&c->data, &l[i]);
	}
	buf_puts(&c->data, "]}");
	return json_result(c);
}

/* restore, or with onlyShow the changes since the snapshot */
int mcp_restore(struct mcp_call *c)
{
	struct wfs_snap_opts o;
	struct wfs_snap_diff d;
	const char *ref = NULL;

	if (snap_opts(c, &o) || mcp_arg_str(c, "snapshot", 1, &ref, NULL) ||
	    wfs_restore(c->ctx, &o, ref, &d))
		return -1;
	wfs_restore_json(&c->data, &d);
	return json_result(c);
}

int mcp_snapshot_diff(struct mcp_call *c)
{
	struct wfs_snap_opts o;
	struct wfs_snap_diff d;
	const char *ref = NULL;

	if (snap_opts(c, &o) || mcp_arg_str(c, "snapshot", 1, &ref, NULL) ||
	    wfs_snap_diff(c->ctx, &o, ref, &d))
		return -1;
	wfs_snap_diff_json(&c->data, &d);
	return json_result(c);
}

/* pack and unpack: an archive file and a directory in one allowed one. */
static int same_root(struct mcp_call *c, const char *op, const char *a, const char *b,
		     const char *root)
{
	if (strcmp(root, c->ctx->root))
		return wfs_fail(c->ctx, "%s %s %s: the two paths are in different allowed "
					"directories",
				op, a, b);
	return 0;
}

int mcp_pack(struct mcp_call *c)
{
	struct wfs_pack_opts o = {0};
	struct wfs_archive_result res;
	const char *out, *root;
	long long level = 6;
	size_t n = 0;
	int given;

	if (!(o.dir = path_or_first(c, "path")))
		return -1;
	root = c->ctx->root;
	if (!(out = mcp_path_arg(c, "output")) || same_root(c, "pack", o.dir, out, root) ||
	    mcp_arg_strs(c, "exclude", 0, &o.exclude, &n) ||
	    mcp_arg_bool(c, "gitignore", &o.gitignore) || mcp_arg_int(c, "level", &level, &given))
		return -1;
	if (level < 0 || level > 9)
		return mcp_bad_arg(c, "level", "is a gzip level, 0 to 9");
	o.nexclude = (int)n;
	o.level = (int)level;
	if (wfs_pack_file(c->ctx, &o, out, &res))
		return -1;
	wfs_archive_json(&c->data, &res);
	return json_result(c);
}

int mcp_unpack(struct mcp_call *c)
{
	struct wfs_unpack_opts o = {0};
	struct wfs_archive_result res;
	const char *in = mcp_path_arg(c, "archive"), *root = c->ctx->root;

	if (!in || !(o.dir = path_or_first(c, "destination")) ||
	    same_root(c, "unpack", in, o.dir, root) || wfs_unpack_file(c->ctx, &o, in, &res))
		return -1;
	wfs_archive_json(&c->data, &res);
	return json_result(c);
}
