/* ls.c - list a directory
 *
 * APPLET(ls, "depth# long", 0, 1, 0)
 *
 * config APPLET_LS
 *	bool "ls: list a directory as JSON"
 *	default y
 *	help
 *	  usage: wickfs ls [--depth N] [--long] [PATH]
 *
 *	  List PATH (default ".", also for ""), sorted by name:
 *	  [{"name","type","size"}], type "file", "dir" or "symlink",
 *	  size from lstat.
 *
 *	  --depth N  list N levels (1: PATH only; 0: no limit); names are
 *	             relative to PATH ("sub/f.txt"), each directory followed
 *	             by its contents; symlinks are listed, never entered
 *	  --long     add "mode" (octal), "perm" ("-rw-r--r--"), "mtime"
 *	             (RFC 3339), "mtime_unix" and a symlink's "link_target"
 */
#include "applet.h"
#include "fsops.h"
#include "json.h"

int ls_main(struct req *r)
{
	const char *path = r->argc && r->argv[0][0] ? r->argv[0] : ".";
	struct wfs_dirent *e;
	size_t n, i;
	long long depth = opt_num(r, "depth", 1);
	int lng = opt_has(r, "long");

	if (depth < 0)
		return reply_error(r, "ls %s: --depth must be 0 (no limit) or more", path);
	if (depth != 1 || lng) {
		struct buf b;
		int rc;
		buf_init(&b);
		rc = wfs_ls_tree(r->ctx, path, (int)(depth > 1000 ? 0 : depth), lng, &b);
		if (!rc) {
			reply_ok_begin(r);
			buf_add(r->out, b.p, b.len);
			reply_ok_end(r);
		}
		buf_free(&b);
		return rc ? reply_ctx_error(r) : 0;
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
		buf_printf(r->out, ",\"size\":%lld}", e[i].size);
	}
	buf_putc(r->out, ']');
	return reply_ok_end(r);
}
