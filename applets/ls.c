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
 */
#define FOR_ls
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"
#include "json.h"

int ls_main(struct req *r)
{
	const char *path = r->argc && r->argv[0][0] ? r->argv[0] : ".";
	struct wfs_dirent *e;
	size_t n, i;
	int depth = (int)opt_num(r, OPT_depth), lng = opt_has(r, OPT_long);

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
