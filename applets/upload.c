/* upload.c - a file, or a tree as a tar.gz, received in chunks of base64
 *
 * APPLET(upload, "offset#<0 last tree", 1, 1, APPLET_WRITES)
 *
 * config APPLET_UPLOAD
 *	bool "upload: the receiving side of download"
 *	default y
 *	depends on APPLET_DOWNLOAD
 *	help
 *	  usage: wickfs upload [--offset N] [--last] [--tree] PATH < BASE64
 *
 *	  Write a base64 chunk at --offset of PATH.wickfs-part (--tree:
 *	  DIR/.wickfs/upload.tar.gz); --last renames it to PATH (--tree:
 *	  unpacks it into DIR). Data: {"path","offset","bytes","size"}.
 *
 *	  Example: base64 < data.bin | wickfs upload data.bin
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define FOR_upload
#include "applet_opts.h"
#include "applet.h"
#include "archive.h"
#include "base64.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "json.h"

/* The directory the part file lives in, opened (beneath the root when
 * confined: no step by name after the check), and the part's name in it:
 * PATH/.wickfs/upload.tar.gz (made) for a tree, else PATH.wickfs-part
 * beside PATH. -1 with the error set. */
static int part_dir(struct req *r, const char *path, int tree, const char **name,
		    const char **base)
{
	int dfd, wfd, e;

	if (tree) {
		dfd = fs_open_dir_made(r->ctx, "upload", path);
		if (dfd < 0)
			return -1;
		mkdirat(dfd, ".wickfs", 0755);
		wfd = openat(dfd, ".wickfs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(dfd);
		if (wfd < 0)
			return wfs_fail(r->ctx, "upload %s/.wickfs: %s", path, strerror(e));
		*name = "upload.tar.gz";
		return wfd;
	}
	dfd = fs_open_parent(r->ctx, "upload", path, base);
	*name = dfd < 0 ? NULL : arena_printf(r->arena, "%s.wickfs-part", *base);
	if (dfd >= 0 && !*name) {
		close(dfd);
		return wfs_fail(r->ctx, "upload %s: out of memory", path);
	}
	return dfd;
}

int upload_main(struct req *r)
{
	const char *path = r->argv[0], *in, *part, *name = NULL, *base = NULL;
	long long off = opt_num(r, OPT_offset);
	int tree = opt_has(r, OPT_tree), fd, dfd, rc = 0;
	struct wfs_archive_result res;
	unsigned char *raw;
	size_t len, i, k = 0;
	struct stat st;
	char *txt;
	long n = -1;

	if (req_stdin(r, &in, &len))
		return reply_error(r, "upload %s: reading stdin: %s", path, strerror(errno));
	raw = arena_alloc(r->arena, len + 4);
	txt = arena_alloc(r->arena, len + 1);
	for (i = 0; txt && i < len; i++)
		if (!strchr(" \t\r\n", in[i]))
			txt[k++] = in[i];
	if (raw && txt)
		n = base64_decode(txt, k, raw);
	if (n < 0)
		return reply_error(r, "upload %s: stdin is not base64", path);
	part = arena_printf(r->arena, tree ? "%s/.wickfs/upload.tar.gz" : "%s.wickfs-part", path);
	/* checked before anything is made: a refusal creates nothing (a
	 * tree's spool is made in PATH/.wickfs by descriptors, not a path) */
	if (!part || wfs_confine(r->ctx, "upload", path) ||
	    (!tree && wfs_confine(r->ctx, "upload", part)))
		return part ? reply_ctx_error(r) : reply_error(r, "upload %s: out of memory", path);
	dfd = part_dir(r, path, tree, &name, &base);
	if (dfd < 0)
		return reply_ctx_error(r);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (off ? 0 : O_TRUNC), 0644);
	if (fd < 0 || fstat(fd, &st))
		rc = reply_error(r, "upload %s: %s", part, strerror(errno));
	else if (st.st_size < off)
		rc = reply_error(r, "upload %s: offset %lld but %lld bytes received so far", path, off,
				 (long long)st.st_size);
	else if (ftruncate(fd, (off_t)off) || pwrite(fd, raw, (size_t)n, (off_t)off) != n)
		rc = reply_error(r, "upload %s: %s", part, strerror(errno));
	if (fd >= 0 && close(fd) && !rc)
		rc = reply_error(r, "upload %s: %s", part, strerror(errno));
	if (!rc && opt_has(r, OPT_last) && !tree && renameat(dfd, name, dfd, base))
		rc = reply_error(r, "upload %s: %s", path, strerror(errno));
	if (!rc && opt_has(r, OPT_last) && tree) {
		struct wfs_unpack_opts u = {path, openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), 0, NULL, 0};
		rc = u.in_fd < 0 ? wfs_fail(r->ctx, "upload %s: %s", part, strerror(errno))
				 : wfs_unpack(r->ctx, &u, &res);
		if (u.in_fd >= 0)
			close(u.in_fd);
		unlinkat(dfd, name, 0);
		if (rc)
			rc = reply_ctx_error(r);
	}
	close(dfd);
	if (rc)
		return rc;
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, path);
	buf_printf(r->out, ",\"offset\":%lld,\"bytes\":%ld,\"size\":%lld", off, n, off + n);
	if (opt_has(r, OPT_last))
		buf_puts(r->out, ",\"done\":true");
	if (opt_has(r, OPT_last) && tree) {
		buf_puts(r->out, ",\"unpacked\":");
		wfs_archive_json(r->out, &res);
	}
	buf_putc(r->out, '}');
	return reply_ok_end(r);
}
