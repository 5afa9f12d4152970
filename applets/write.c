/* write.c - replace a file with stdin
 *
 * APPLET(write, "", 1, 1, APPLET_REF(1)|APPLET_LOOP_OK)
 *
 * config APPLET_WRITE
 *	bool "write: replace a file atomically with stdin"
 *	default y
 *	help
 *	  usage: wickfs write PATH < CONTENT
 *
 *	  Write stdin to PATH: parents are created, the replacement is atomic
 *	  (a temporary file in the same directory, then rename), an existing
 *	  file keeps its mode (and owner when run as root), a symlink is
 *	  written through to its target, a new file gets 0666 & ~umask.
 *	  Data: {"path","bytes_written"}. WICKFS_FSYNC=1 syncs before the
 *	  rename.
 */
#include <errno.h>
#include <string.h>
#define FOR_write
#include "applet.h"
#include "json.h"

int write_main(struct req *r)
{
	const char *data;
	size_t len;

	if (req_stdin(r, &data, &len))
		return reply_error(r, "write %s: reading stdin: %s", r->argv[0],
				   strerror(errno));
	if (wfs_write(r->ctx, r->argv[0], data, len))
		return reply_ctx_error(r);
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_printf(r->out, ",\"bytes_written\":%zu}", len);
	return reply_ok_end(r);
}
