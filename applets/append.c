/* append.c - add stdin to the end of a file
 *
 * APPLET(append, "", 1, 1, APPLET_LOOP_OK|APPLET_WRITES|APPLET_STDIN)
 *
 * config APPLET_APPEND
 *	bool "append: add stdin to the end of a file"
 *	default y
 *	help
 *	  usage: wickfs append PATH < CONTENT
 *
 *	  Add stdin at the end of PATH (made, with its parents, when
 *	  missing). It takes the lock edit and write take, so concurrent
 *	  appends and edits of one file never lose each other. A symlink is
 *	  written through to its target. Data: {"path","bytes_written"}.
 *
 *	  Example: printf 'one more line\n' | wickfs append notes.txt
 */
#include <errno.h>
#include <string.h>
#define FOR_append
#include "applet_opts.h"
#include "applet.h"
#include "fsops.h"

int append_main(struct req *r)
{
	const char *data;
	size_t len;

	if (req_stdin(r, &data, &len))
		return reply_error(r, "append %s: reading stdin: %s", r->argv[0],
				   strerror(errno));
	if (wfs_append(r->ctx, "append", r->argv[0], data, len))
		return reply_ctx_error(r);
	return reply_path_num(r, "bytes_written", (long long)len);
}
