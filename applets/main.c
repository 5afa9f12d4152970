/* main.c - the multicall entry: pick an applet by argv[0] or argv[1] */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "applet.h"
#include "daemon.h"
#include "bytes.h"
#include "confine.h"
#include "ctx.h"
#include "fs.h"
#include "overlay.h"
#include "path.h"
#include "settings.h"
#include "wfs_features.h"

static void usage(int f)
{
	size_t i;

	dprintf(f, "wickfs %s: filesystem tools and command execution for agents\n\n"
		   "usage: wickfs APPLET [ARGS...]   (or run as APPLET / wickfs-APPLET)\n"
		   "       wickfs --list | --version | --help | help APPLET\n"
		   "       wickfs --install [-s] DIR  (wickfs-APPLET links in DIR: hard,\n"
		   "                                  else symbolic; -s or a root: symbolic;\n"
		   "                                  refused in read-only mode)\n"
		   "       wickfs --root DIR APPLET ...  (confined to DIR, as WICKFS_ROOT=DIR;\n"
		   "                                      relative paths are relative to DIR)\n"
#ifdef CONFIG_FEATURE_OVERLAY
		   "       wickfs --overlay NAME APPLET ...  (through overlay NAME's layer,\n"
		   "                              as WICKFS_OVERLAY=NAME: wickfs help overlay)\n"
#endif
		   "       wickfs -t APPLET ...  (answers as text for people, as\n"
		   "                              WICKFS_OUTPUT=text; grep 1 when nothing\n"
		   "                              matched, diff 1 when files differ,\n"
		   "                              exists 1 when missing, exec the\n"
		   "                              command's status)\n"
		   "       wickfs --escaped-paths APPLET ...  (arguments as ls's \"name_escaped\"\n"
		   "                              gives a name that is not UTF-8: \\xHH, \\\\)\n\n"
		   "applets:",
		WFS_VERSION);
	for (i = 0; i < applet_count; i++)
		dprintf(f, " %s", applet_table[i].name);
	dprintf(f, "\n");
}

/* Our own path: /proc/self/exe, or (no /proc, as in a bare chroot)
 * argv[0] made absolute, or found in PATH. */
static int find_self(const char *argv0, char *out, size_t outlen)
{
	const char *path = getenv("PATH");
	char cwd[PATH_MAX];
	ssize_t n;

	n = readlink("/proc/self/exe", out, outlen - 1);
	if (n > 0) {
		out[n] = 0;
		return 0;
	}
	if (strchr(argv0, '/')) {
		if (argv0[0] != '/' && !getcwd(cwd, sizeof(cwd)))
			return -1;
		n = snprintf(out, outlen, "%s%s%s", argv0[0] == '/' ? "" : cwd,
			     argv0[0] == '/' ? "" : "/", argv0);
		return n < 0 || (size_t)n >= outlen ? -1 : access(out, X_OK);
	}
	while (path && *path) {
		size_t len = strcspn(path, ":");
		n = snprintf(out, outlen, "%.*s/%s", (int)len, len ? path : ".", argv0);
		if (n > 0 && (size_t)n < outlen && !access(out, X_OK))
			return 0;
		path += len + (path[len] == ':');
	}
	errno = ENOENT;
	return -1;
}

/* One DIR/wickfs-APPLET link (name in the directory dfd, dst for the
 * messages). A hard link where it can be made; across filesystems (a
 * tmpfs /tmp, a bind mount) or where the filesystem refuses hard links,
 * a symbolic link to our absolute path. One stdout line says which. */
static int install_one(const char *self, int dfd, const char *name,
		       const char *dst, int symbolic)
{
	int link_errno = 0;

	if (unlinkat(dfd, name, 0) && errno != ENOENT) {
		dprintf(2, "wickfs: unlink %s: %s\n", dst, strerror(errno));
		return 1;
	}
	if (!symbolic) {
		if (!linkat(AT_FDCWD, self, dfd, name, 0)) {
			dprintf(1, "%s: hard link to %s\n", dst, self);
			return 0;
		}
		link_errno = errno;
	}
	if (symlinkat(self, dfd, name)) {
		if (link_errno)
			dprintf(2, "wickfs: link %s: %s; symlink: %s\n", dst,
				strerror(link_errno), strerror(errno));
		else
			dprintf(2, "wickfs: symlink %s: %s\n", dst, strerror(errno));
		return 1;
	}
	if (link_errno)
		dprintf(1, "%s: symbolic link to %s (no hard link: %s)\n", dst, self,
			strerror(link_errno));
	else
		dprintf(1, "%s: symbolic link to %s\n", dst, self);
	return 0;
}

/* --install writes, so read-only mode refuses it. Under a root DIR must
 * resolve beneath it, as every path, and is made and used through a
 * descriptor opened there; the links are symbolic, since a hard link
 * would bring the binary itself into the workspace (append and chmod
 * change a file in place). */
/* Not inlined: its 8 KB of path buffers stay off main's stack. */
__attribute__((noinline)) static int install_links(const char *argv0, int argc, char **argv)
{
	int symbolic = 0, rc = 0, dfd = -1;
	char self[PATH_MAX], dst[PATH_MAX], name[64];
	struct settings set;
	struct arena arena;
	struct wfs_ctx ctx;
	const char *dir;
	size_t i;

	if (argc > 0 && !strcmp(argv[0], "-s")) {
		symbolic = 1;
		argc--;
		argv++;
	}
	if (argc != 1) {
		dprintf(2, "usage: wickfs --install [-s] DIR\n");
		return 2;
	}
	dir = argv[0];
	arena_init(&arena);
	wfs_ctx_init_root(&ctx, &arena, NULL);
	rc = settings_from_env(&set, environ, ctx.err, sizeof(ctx.err));
	if (!rc)
		wfs_ctx_init(&ctx, &arena, &set);
	if (rc || wfs_writable(&ctx, "--install", dir)) {
		dprintf(2, "wickfs: %s\n", ctx.err);
		rc = 1;
	} else if (find_self(argv0, self, sizeof(self))) {
		dprintf(2, "wickfs: cannot find own binary (no /proc, and %s is not in PATH): %s\n",
			argv0, strerror(errno));
		rc = 1;
	} else if ((dfd = fs_open_dir_made(&ctx, "--install", dir)) < 0) {
		dprintf(2, "wickfs: %s\n", ctx.err);
		rc = 1;
	}
	symbolic |= ctx.root != NULL;
	for (i = 0; dfd >= 0 && i < applet_count; i++) {
		snprintf(name, sizeof(name), "wickfs-%s", applet_table[i].name);
		if ((size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >= sizeof(dst)) {
			dprintf(2, "wickfs: %s/%s: path too long\n", dir, name);
			rc = 1;
			continue;
		}
		rc |= install_one(self, dfd, name, dst, symbolic);
	}
	if (dfd >= 0)
		close(dfd);
	arena_free(&arena);
	return rc;
}

/* A one-shot process leaves its memory to exit: freeing it (munmap and
 * madvise calls) was a third of a small read's whole time. Sanitizer
 * builds free it, so that their leak check sees the leaks that matter. */
#ifndef WFS_CLEAN_UP
#if defined(__SANITIZE_ADDRESS__)
#define WFS_CLEAN_UP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WFS_CLEAN_UP 1
#endif
#endif
#endif

int main(int argc, char **argv)
{
	const char *name = path_base(argc > 0 ? argv[0] : "wickfs");
	const struct applet *a = applet_alias(name);
	struct arena arena;
	struct buf out, err;
	struct settings set;
	struct wfs_ctx ctx;
	struct req r;
	int rc, escaped = 0, ov = 0;
#ifdef CONFIG_FEATURE_OVERLAY
	static char ov_err[PATH_MAX + 256]; /* static: off main's stack */
	const char *ov_name, *root;
#else
	const char *ov_err = "WICKFS_OVERLAY: this wickfs is built without overlays "
			     "(CONFIG_FEATURE_OVERLAY): refused, nothing ran";
#endif

	if (argc >= 2 && !strcmp(argv[1], "__session"))
		return session_save(argc, argv);
	if (!a || !strcmp(name, "wickfs")) {
		/* --root DIR: the workspace every path must stay in; through the
		 * environment, so commands and nested calls inherit it. */
		/* -t, --text: answers for people (as WICKFS_OUTPUT=text), through
		 * the environment too, for nested calls. */
		for (;;) {
			if (argc >= 3 && !strcmp(argv[1], "--root")) {
				if (!*argv[2] || setenv("WICKFS_ROOT", argv[2], 1)) {
					dprintf(2, "wickfs: --root needs a directory\n");
					return 2;
				}
				argc -= 2;
				argv += 2;
#ifdef CONFIG_FEATURE_OVERLAY
			} else if (argc >= 3 && !strcmp(argv[1], "--overlay")) {
				if (!*argv[2] || setenv("WICKFS_OVERLAY", argv[2], 1)) {
					dprintf(2, "wickfs: --overlay needs a name\n");
					return 2;
				}
				argc -= 2;
				argv += 2;
#endif
			} else if (argc >= 2 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "--text"))) {
				setenv("WICKFS_OUTPUT", "text", 1);
				argc--;
				argv++;
			} else if (argc >= 2 && !strcmp(argv[1], "--escaped-paths")) {
				escaped = 1;
				argc--;
				argv++;
			} else {
				break;
			}
		}
		if (argc < 2) {
			usage(2);
			return 2;
		}
		if (!strcmp(argv[1], "--version")) {
#ifdef WFS_MUSL_VERSION
			dprintf(1, "wickfs %s (musl %s, zlib %s)\n", WFS_VERSION, WFS_MUSL_VERSION,
				zlibVersion());
#else
			dprintf(1, "wickfs %s (zlib %s)\n", WFS_VERSION, zlibVersion());
#endif
			return 0;
		}
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			usage(1);
			return 0;
		}
		/* help APPLET: reachable even where APPLET --help is taken
		 * literally (the reference's form: `read --help` reads a file). */
		if (!strcmp(argv[1], "help")) {
			a = argc > 2 ? applet_alias(argv[2]) : NULL;
			if (argc > 2 && !a) {
				dprintf(2, "wickfs: unknown applet '%s'\n", argv[2]);
				return 2;
			}
			if (a) {
				struct arena ha;
				const char *h;

				arena_init(&ha);
				h = applet_help(a, &ha);
				if (h)
					bytes_write_all(1, h, strlen(h));
				arena_free(&ha);
				if (!h) {
					dprintf(2, "wickfs: help %s: out of memory\n", a->name);
					return 1;
				}
			} else
				usage(1);
			return 0;
		}
		if (!strcmp(argv[1], "--list")) {
			for (size_t i = 0; i < applet_count; i++)
				dprintf(1, "%s\n", applet_table[i].name);
			return 0;
		}
		if (!strcmp(argv[1], "--install"))
			return install_links(argv[0], argc - 2, argv + 2);
		a = applet_alias(argv[1]);
		if (!a) {
			dprintf(2, "wickfs: unknown applet '%s'\n", argv[1]);
			usage(2);
			return 2;
		}
		argc--;
		argv++;
	}
#ifdef CONFIG_FEATURE_OVERLAY
	/* --overlay: the view first, so that the applet runs unchanged in it
	 * (overlay itself acts on the real tree and its layers) */
	ov_name = getenv("WICKFS_OVERLAY");
	if (ov_name && *ov_name && strcmp(a->name, "overlay")) {
		/* the root made absolute first: overlay_enter leaves the
		 * working directory in DIR's view */
		root = getenv("WICKFS_ROOT");
		if (root && *root && wfs_realpath(root, ov_err) && !setenv("WICKFS_ROOT", ov_err, 1))
			root = getenv("WICKFS_ROOT"); /* not ov_err: the error goes there */
		ov = overlay_enter(ov_name, root && *root ? root : ".", ov_err, sizeof(ov_err));
	}
#else
	/* asked for a layer this build cannot give: never the real tree */
	ov = getenv("WICKFS_OVERLAY") && *getenv("WICKFS_OVERLAY");
#endif
	/* A small request allocates nothing (malloc's first call alone is
	 * three system calls, each chunk or buffer one more and its faults).
	 * In .bss: a page costs only when touched, and the answer's buffer
	 * is big because json_str reserves six bytes a byte, in 4 KB runs. */
	static _Alignas(16) unsigned char first_chunk[8192], first_out[65536];
	arena_init_mem(&arena, first_chunk, sizeof(first_chunk));
	buf_init_mem(&out, first_out, sizeof(first_out));
	buf_init(&err);
	req_init(&r, &arena, &ctx, &out, &err);
	r.in_fd = 0;
	r.out_stream = 1;
	r.escaped_paths = escaped;
	/* Every setting, once, from the environment (after --root above). */
	wfs_ctx_init_root(&ctx, &arena, NULL);
	rc = settings_from_env(&set, environ, ctx.err, sizeof(ctx.err));
	if (!rc)
		wfs_ctx_init(&ctx, &arena, &set);
	r.text = !rc && set.text;
	if (rc || ov) {
		reply_error(&r, "%s", rc ? ctx.err : ov_err);
		rc = 1;
	} else if (ctx.root && !ctx.root_errno && chdir(ctx.root)) {
		/* relative paths are relative to the root, as in the daemon */
		reply_error(&r, "workspace root %s (WICKFS_ROOT): %s", ctx.root, strerror(errno));
		rc = 1;
	} else {
		rc = applet_run(a, &r, argc - 1, argv + 1);
	}
	bytes_write_all(2, err.p, err.len);
	bytes_write_all(1, out.p, out.len);
#if WFS_CLEAN_UP
	buf_free(&out);
	buf_free(&err);
	arena_free(&arena);
#endif
	return rc;
}
