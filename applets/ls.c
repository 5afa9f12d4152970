/* ls.c - list a directory
 *
 * APPLET(ls, "depth#<0>1000=1 long", 0, 1, APPLET_REF(1)|APPLET_LOOP_OK|APPLET_LOOP_DIR)
 *
 * config APPLET_LS
 *	bool "ls: list a directory as JSON"
 *	default y
 *	help
 *	  usage: wickfs ls [PATH]
 *
 *	  List PATH (default ".", also for ""), sorted by name:
 *	  [{"name","type","size"}], type "file", "dir" or "symlink",
 *	  size from lstat. A fifo, socket or device is a "file", as the
 *	  reference says, with "kind" naming it as stat does.
 *
 *	  --depth N  list N levels (1: PATH only, the default; 0: no limit);
 *	             names are relative to PATH ("sub/f.txt"), each
 *	             directory followed by its contents; symlinks are
 *	             listed, never entered
 *	  --long     add "mode" (octal), "perm" ("-rw-r--r--"), "mtime"
 *	             (RFC 3339), "mtime_unix" and a symlink's "link_target"
 *
 *	  Example: wickfs -t ls --depth 2 src
 */
#define FOR_ls
#include "applet_opts.h"
#include <stdio.h>
#include <string.h>
#include "applet.h"
#include "fsops.h"
#include "json.h"
#include "path.h"
#include "text.h"

int ls_main(struct req *r)
{
	const char *path = r->argc && r->argv[0][0] ? r->argv[0] : ".";
	struct wfs_dirent *e;
	size_t n, i;
	/* text: ls -l's columns, so the long fields */
	int depth = (int)opt_num(r, OPT_depth), lng = opt_has(r, OPT_long) || r->text;

	if (depth != 1 || lng) {
		struct buf b;
		int rc;
		buf_init(&b);
		rc = wfs_ls_tree(r->ctx, path, depth, lng, &b);
		return reply_buf(r, &b, rc);
	}
	if (wfs_ls(r->ctx, path, &e, &n))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_putc(r->out, '[');
	for (i = 0; i < n; i++) {
		buf_puts(r->out, i ? ",{\"name\":" : "{\"name\":");
		json_cstr(r->out, e[i].name);
		path_escaped_field(r->out, "name_escaped", e[i].name);
		buf_puts(r->out, ",\"type\":");
		json_cstr(r->out, e[i].type);
		buf_printf(r->out, ",\"size\":%lld", e[i].size);
		if (e[i].kind) { /* additive: the reference calls these files */
			buf_puts(r->out, ",\"kind\":");
			json_cstr(r->out, e[i].kind);
		}
		buf_putc(r->out, '}');
	}
	buf_putc(r->out, ']');
	return reply_ok_end(r);
}

/* As ls -l: mode, size (right-aligned), modification time, name. */
int ls_text(struct req *r, int ok, const struct json_val *v)
{
	size_t i, w = 1;
	char num[32];

	if (!ok)
		return text_error(r, v->str);
	if (!v || v->type != JSON_ARR)
		return 0;
	for (i = 0; i < v->len; i++) {
		size_t k = (size_t)snprintf(num, sizeof(num), "%lld", text_num(&v->items[i], "size"));
		w = k > w ? k : w;
	}
	for (i = 0; i < v->len; i++) {
		const struct json_val *e = &v->items[i];
		const char *perm = text_str(e, "perm"), *mt = text_str(e, "mtime");
		const char *type = text_str(e, "type");

		buf_printf(r->out, "%s %*lld %.10s %.5s %s%s\n", perm ? perm : "?", (int)w,
			   text_num(e, "size"), mt ? mt : "", mt && strlen(mt) > 11 ? mt + 11 : "",
			   text_str(e, "name") ? text_str(e, "name") : "",
			   type && !strcmp(type, "dir") ? "/" : "");
	}
	return 0;
}
