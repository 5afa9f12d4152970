/* write.c - replace a file with stdin
 *
 * APPLET(write, "no-clobber append !no-clobber,append", 1, 1, APPLET_REF(1)|APPLET_LOOP_OK)
 *
 * config APPLET_WRITE
 *	bool "write: replace a file atomically with stdin"
 *	default y
 *	help
 *	  usage: wickfs write [--no-clobber|--append] PATH < CONTENT
 *
 *	  Write stdin to PATH: parents are created, the replacement is atomic
 *	  (a temporary file in the same directory, then rename), an existing
 *	  file keeps its mode (and owner when run as root), a symlink is
 *	  written through to its target, a new file gets 0666 & ~umask.
 *	  Data: {"path","bytes_written"}. WICKFS_FSYNC=1 syncs before the
 *	  rename.
 *
 *	  --no-clobber  fail when PATH exists (also when it appears meanwhile)
 *	  --append      add stdin at the end instead, as `wickfs append` does
 */
#include <errno.h>
#include <string.h>
#define FOR_write
#include "applet.h"
#include "fsops.h"

int write_main(struct req *r)
{
	int no_clobber = opt_has(r, OPT_no_clobber), append = opt_has(r, OPT_append);
	const char *data;
	size_t len;
	int rc;

	if (req_stdin(r, &data, &len))
		return reply_error(r, "write %s: reading stdin: %s", r->argv[0],
				   strerror(errno));
	rc = append ? wfs_append(r->ctx, "write", r->argv[0], data, len)
		    : wfs_write(r->ctx, r->argv[0], data, len, no_clobber);
	if (rc)
		return reply_ctx_error(r);
	return reply_path_num(r, "bytes_written", (long long)len);
}
