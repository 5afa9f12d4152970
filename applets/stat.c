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
 */
#define FOR_stat
#include "applet_opts.h"
#include "applet.h"
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
