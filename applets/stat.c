/* stat.c - a path's metadata
 *
 * APPLET(stat, "follow", 1, 1, APPLET_LOOP_OK|APPLET_LOOP_DIR)
 *
 * config APPLET_STAT
 *	bool "stat: a path's metadata as JSON"
 *	default y
 *	help
 *	  usage: wickfs stat [--follow] PATH
 *
 *	  Data: {"path","type","size","mode","perm","uid","gid","nlink",
 *	  "mtime","mtime_unix","ctime","ctime_unix","atime","atime_unix"}
 *	  and "link_target" for a symlink. mode is octal ("0644"), perm the
 *	  ls form ("-rw-r--r--"), times RFC 3339 UTC with nanoseconds and
 *	  epoch seconds. A symlink is described itself, not its target.
 *
 *	  --follow  describe what a symlink points to (confined: only
 *	            beneath the root)
 *
 *	  Example: wickfs -t stat go.mod
 */
#define FOR_stat
#include "applet_opts.h"
#include <string.h>
#include "applet.h"
#include "text.h"
#include "fsops.h"

int stat_main(struct req *r)
{
	int follow = opt_has(r, OPT_follow);
	struct buf b;
	int rc;

	buf_init(&b);
	rc = wfs_stat_json(r->ctx, r->argv[0], follow, &b);
	return reply_buf(r, &b, rc);
}

/* 2026-01-02T03:04:05.123456789Z as stat prints it. */
static void put_time(struct buf *b, const char *label, const char *t)
{
	size_t n = t ? strlen(t) : 0;

	if (!n)
		return;
	buf_printf(b, "%s: %.10s %.*s +0000\n", label, t, n > 12 ? (int)(n - 12) : 0,
		   n > 12 ? t + 11 : "");
}

/* As stat(1) prints a file. */
int stat_text(struct req *r, int ok, const struct json_val *v)
{
	const char *s;

	if (!ok)
		return text_error(r, v->str);
	s = text_str(v, "link_target");
	buf_printf(r->out, "  File: %s%s%s\n", text_str(v, "path") ? text_str(v, "path") : "",
		   s ? " -> " : "", s ? s : "");
	buf_printf(r->out, "  Size: %-10lld Links: %-5lld Type: %s\n", text_num(v, "size"),
		   text_num(v, "nlink"), text_str(v, "type") ? text_str(v, "type") : "");
	buf_printf(r->out, "Access: (%s/%s)  Uid: %lld  Gid: %lld\n",
		   text_str(v, "mode") ? text_str(v, "mode") : "",
		   text_str(v, "perm") ? text_str(v, "perm") : "", text_num(v, "uid"),
		   text_num(v, "gid"));
	put_time(r->out, "Access", text_str(v, "atime"));
	put_time(r->out, "Modify", text_str(v, "mtime"));
	put_time(r->out, "Change", text_str(v, "ctime"));
	return 0;
}
