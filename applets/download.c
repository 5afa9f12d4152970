/* download.c - a file, or a tree as a tar.gz, in chunks of base64
 *
 * APPLET(download, "offset#<0 limit#<1>7340032=4194304 tree remove", 1, 1, 0)
 *
 * config APPLET_DOWNLOAD
 *	bool "download, upload: move files and trees in chunks"
 *	default y
 *	help
 *	  usage: wickfs download [--offset N] [--limit N] [--remove] FILE
 *	         wickfs download --tree [--limit N] DIR
 *
 *	  FILE from --offset, at most --limit bytes (4 MiB; 7 at most), as
 *	  base64: {"path","offset","bytes","size","eof","data"}. --tree packs
 *	  DIR into a spool file ("path"); --remove deletes FILE at its end.
 *
 *	  Example: wickfs download --offset 0 --limit 1048576 dist/app.tar.gz
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define FOR_download
#include "applet_opts.h"
#include "applet.h"
#include "archive.h"
#include "base64.h"
#include "confine.h"
#include "fs.h"
#include "json.h"

/* Pack DIR into a new spool file beneath it; its path, or NULL. */
static const char *spool_tree(struct req *r, const char *dir)
{
	static const char *skip[] = {".wickfs"};
	struct wfs_pack_opts o = {dir, skip, 1, 6, 0, 0, -1, 0, NULL};
	struct wfs_archive_result res;
	char *name = arena_printf(r->arena, "download-%d-%lld.tar.gz", (int)getpid(), wfs_now_ns());
	char *spool = arena_printf(r->arena, "%s/.wickfs/%s", dir, name);
	int dfd, wfd;

	if (!spool || !name || wfs_confine(r->ctx, "download", dir)) {
		reply_ctx_error(r);
		return NULL;
	}
	/* made through descriptors opened beneath the root */
	dfd = fs_open_dir(r->ctx, "download", dir);
	if (dfd < 0) {
		reply_ctx_error(r);
		return NULL;
	}
	mkdirat(dfd, ".wickfs", 0755);
	wfd = openat(dfd, ".wickfs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	o.out_fd = wfd < 0 ? -1 : openat(wfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o.out_fd < 0) {
		reply_error(r, "download %s: %s", spool, strerror(errno));
		if (wfd >= 0)
			close(wfd);
		return NULL;
	}
	if (wfs_pack(r->ctx, &o, &res) | close(o.out_fd)) {
		unlinkat(wfd, name, 0);
		close(wfd);
		reply_ctx_error(r);
		return NULL;
	}
	close(wfd);
	return spool;
}

/* PATH names a spool of download --tree (DIR/.wickfs/download-*.tar.gz):
 * the one file under wickfs's own state a later chunk may read and
 * remove by its path. */
static int is_spool(const char *path)
{
	const char *base = strrchr(path, '/'), *dir;
	size_t n;

	if (!base || base == path)
		return 0;
	for (dir = base; dir > path && dir[-1] != '/'; dir--)
		;
	n = strlen(++base);
	return (size_t)(base - 1 - dir) == sizeof(WFS_STATE_DIR) - 1 &&
	       !memcmp(dir, WFS_STATE_DIR, sizeof(WFS_STATE_DIR) - 1) &&
	       !strncmp(base, "download-", 9) && n > 16 && !strcmp(base + n - 7, ".tar.gz");
}

int download_main(struct req *r)
{
	const char *path = r->argv[0], *spool = NULL;
	long long off = opt_num(r, OPT_offset), lim = opt_num(r, OPT_limit);
	struct stat st;
	ssize_t got = 0;
	char *data;
	size_t n = 0;
	int fd, eof, own;

	/* the spool and --remove write: the only option-dependent writes */
	if ((opt_has(r, OPT_tree) || opt_has(r, OPT_remove)) &&
	    wfs_writable(r->ctx, "download", path))
		return reply_ctx_error(r);
	if (opt_has(r, OPT_tree) && !(path = spool = spool_tree(r, path)))
		return 1;
	own = spool || is_spool(path);
	r->ctx->own_state += own;
	fd = fs_open_regular(r->ctx, "download", path, &st);
	r->ctx->own_state -= own;
	if (fd < 0)
		return reply_ctx_error(r);
	if (off < st.st_size)
		n = (size_t)(st.st_size - off < lim ? st.st_size - off : lim);
	if (wfs_budget_take(r->ctx, "download", path, n)) {
		close(fd);
		return reply_ctx_error(r);
	}
	data = arena_alloc(r->arena, n + 1);
	while (data && n && (got = pread(fd, data, n, (off_t)off)) < 0 && errno == EINTR)
		;
	close(fd);
	if (!data || got < 0)
		return reply_error(r, "download %s: %s", path, data ? strerror(errno) : "out of memory");
	eof = off + got >= st.st_size;
	if (eof && (spool || opt_has(r, OPT_remove))) {
		const char *base;
		int dfd, e;
		r->ctx->own_state += own;
		dfd = fs_open_parent(r->ctx, "download", path, &base);
		r->ctx->own_state -= own;
		if (dfd < 0)
			return reply_ctx_error(r);
		e = unlinkat(dfd, base, 0) ? errno : 0;
		close(dfd);
		if (e)
			return reply_error(r, "download %s: %s", path, strerror(e));
	}
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, path);
	if (spool)
		buf_puts(r->out, ",\"spool\":true");
	buf_printf(r->out, ",\"offset\":%lld,\"bytes\":%zd,\"size\":%lld,\"eof\":%s,\"data\":\"",
		   off, got, (long long)st.st_size, eof ? "true" : "false");
	base64_encode(r->out, (const unsigned char *)data, (size_t)got);
	buf_puts(r->out, "\"}");
	return reply_ok_end(r);
}
