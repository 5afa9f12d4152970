/* unpack.c - a gzip tar into a directory, safely
 *
 * APPLET(unpack, "input|i: max-bytes#<0=0 progress same-permissions|p", 1, 1, APPLET_CLI_ONLY|APPLET_WRITES)
 *
 * config APPLET_UNPACK
 *	bool "unpack: a gzip tar into a directory, never outside it"
 *	default y
 *	help
 *	  usage: wickfs unpack [--input FILE] [--max-bytes N] [--progress]
 *	                       [--same-permissions] DIR < ARCHIVE
 *
 *	  Extract a gzip-compressed tar (ustar, pax or GNU; one or more gzip
 *	  members) into DIR, created when missing. Regular files, directories
 *	  and symlinks are written with their mtimes and their modes less the
 *	  umask (for root too) and never setuid or setgid; other types are
 *	  skipped and listed. An entry that would land outside DIR (an absolute
 *	  name, "..", or a path through a symlink, one made by the archive
 *	  included) is refused and the error names it. Each file is written
 *	  to a temporary name and renamed into place, so a truncated or corrupt
 *	  archive leaves no partial file (entries completed before it remain).
 *	  The gzip CRC comes at the end of the stream: damage that inflate
 *	  itself cannot see is reported there, after the entries before it.
 *	  Data: {"files","dirs","symlinks","bytes","compressed_bytes",
 *	  "skipped":[...],"skipped_total"}.
 *
 *	  -i, --input FILE  read the archive from FILE instead of stdin
 *	  --max-bytes N     refuse archives that decompress to more than N
 *	                    bytes, tar headers included (default 4 GiB, or
 *	                    WICKFS_UNPACK_MAX): the gzip-bomb bound
 *	  --progress        files, bytes and rate on stderr while unpacking,
 *	                    redrawn on a terminal, else a line every 5 s
 *	  -p, --same-permissions  the stored modes, not cut by the umask
 *	                    (still never setuid or setgid)
 *
 *	  Example: wickfs unpack --input /tmp/src.tar.gz restored
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#define FOR_unpack
#include "applet_opts.h"
#include "applet.h"
#include "archive.h"

int unpack_main(struct req *r)
{
	struct wfs_unpack_opts o = {0};
	struct wfs_archive_result res;
	struct wfs_progress prog;
	const char *input = opt_str(r, OPT_input);
	long long max = opt_num(r, OPT_max_bytes);
	int rc;

	if (max < 0)
		return reply_error(r, "unpack: --max-bytes takes a byte count");
	o.dir = r->argv[0];
	o.max_bytes = (unsigned long long)max;
	o.same_permissions = opt_has(r, OPT_same_permissions);
	o.in_fd = r->in_fd >= 0 ? r->in_fd : 0;
	o.progress = req_progress(r, OPT_progress, &prog);
	rc = input ? wfs_unpack_file(r->ctx, &o, input, &res) : wfs_unpack(r->ctx, &o, &res);
	if (rc)
		return reply_ctx_error(r);
	reply_ok_begin(r);
	wfs_archive_json(r->out, &res);
	return reply_ok_end(r);
}
