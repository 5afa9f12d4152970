/* pack.c - a directory tree as a gzip-compressed tar
 *
 * APPLET(pack, "output|o: exclude* gitignore level#<0>9=6 threads#<0=0 whole-seconds progress", 1, 1, APPLET_CLI_ONLY)
 *
 * config APPLET_PACK
 *	bool "pack: a tree as a gzip tar, compressed on every core"
 *	default y
 *	help
 *	  usage: wickfs pack [--output FILE] [--exclude GLOB]... [--gitignore]
 *	                     [--level N] [--threads N] [--whole-seconds]
 *	                     [--progress] DIR
 *
 *	  Write DIR's tree as a gzip-compressed tar (ustar, with pax headers
 *	  for long names, large sizes and sub-second mtimes), compressed in
 *	  parallel blocks into one standard gzip stream (GNU tar and gzip read
 *	  it). Regular files, directories, symlinks, modes and mtimes are kept;
 *	  other file types are skipped and listed. Names are relative to DIR.
 *	  Data: {"files","dirs","symlinks","bytes","compressed_bytes",
 *	  "skipped":[...],"skipped_total"}.
 *
 *	  Without --output the archive goes to stdout (never to a terminal)
 *	  and the envelope to stderr; with --output FILE (written to a
 *	  temporary name, then renamed) the envelope goes to stdout.
 *
 *	  -o, --output FILE  write the archive to FILE
 *	  --exclude GLOB     leave out entries matching GLOB (repeatable; a
 *	                     GLOB with "/" matches the path relative to DIR)
 *	  --gitignore        leave out what the .gitignore files in the tree
 *	                     name (as git reads them; .git itself stays unless
 *	                     excluded)
 *	  --level N          gzip level 0-9 (default 6)
 *	  --threads N        compression workers (default: the cores, at most
 *	                     8; WICKFS_THREADS)
 *	  --whole-seconds    store mtimes in whole seconds: no pax header per
 *	                     entry, about 3% smaller for trees of small files
 *	  --progress         files, bytes and rate on stderr while packing,
 *	                     redrawn on a terminal, else a line every 5 s
 *
 *	  Example: wickfs pack --output /tmp/src.tar.gz --gitignore .
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#define FOR_pack
#include "applet_opts.h"
#include "applet.h"
#include "archive.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"

/* Without --output, stdout carries the archive: envelopes go to stderr. */
static int reply_elsewhere(struct req *r, int to_stderr, int rc)
{
	if (to_stderr && r->out->len) {
		buf_add(r->err, r->out->p, r->out->len);
		buf_reset(r->out);
	}
	return rc;
}

int pack_main(struct req *r)
{
	struct wfs_pack_opts o = {0};
	struct wfs_archive_result res;
	struct wfs_progress prog;
	const char *output = opt_str(r, OPT_output);
	int rc;

	o.dir = r->argv[0];
	o.level = (int)opt_num(r, OPT_level);
	o.threads = (int)opt_num(r, OPT_threads);
	o.whole_seconds = opt_has(r, OPT_whole_seconds);
	o.nexclude = opt_list(r, OPT_exclude, &o.exclude);
	o.gitignore = opt_has(r, OPT_gitignore);
	o.progress = req_progress(r, OPT_progress, &prog);
	if (o.level < 0 || o.level > 9 || o.threads < 0)
		return reply_elsewhere(r, !output, reply_error(r, "pack: --level takes 0-9, --threads a count"));
	if (output) {
		rc = wfs_pack_file(r->ctx, &o, output, &res);
	} else if (isatty(1)) {
		return reply_elsewhere(r, 1, reply_error(r, "pack: refusing to write an archive to a terminal (use --output FILE)"));
	} else {
		o.out_fd = 1;
		rc = wfs_pack(r->ctx, &o, &res);
	}
	if (rc)
		return reply_elsewhere(r, !output, reply_ctx_error(r));
	reply_ok_begin(r);
	wfs_archive_json(r->out, &res);
	return reply_elsewhere(r, !output, reply_ok_end(r));
}
