/* overlay.c - copy-on-write layers over a directory: start, list, diff,
 * commit, discard, and entering one.
 *
 * The layer, DIR/.wickfs/overlay/NAME, is overlayfs's own: upper/ holds
 * what changed (whiteouts, char devices 0/0, for what was deleted; an
 * opaque directory, xattr trusted. or user.overlay.opaque "y", for one
 * that replaced what was there), work/ is the kernel's. The kernel
 * writes it: overlay_enter mounts overlayfs on DIR in a mount namespace
 * of the process's own, and every applet and command then runs
 * unchanged, reading through the layer and writing into it. Like the
 * snapshot store, DIR/.wickfs is out of reach of confined applets and
 * of archives; through the view the layer's own upper/ and work/ are
 * the kernel's traps (ELOOP), and what a command writes under
 * DIR/.wickfs there lands in upper/.wickfs, which diff and commit leave
 * out.
 *
 * meta records, at start, the inode, ctime and size of every entry of
 * DIR (struct mrec, then the path and a NUL: a file of this machine's
 * own, like the layer). A commit first checks every path it would
 * change against it (a real file changed, created or deleted since is
 * refused, naming it, and nothing is applied; a directory the layer
 * only adds to must still be a directory, then and again when applied;
 * a directory deleted or replaced is checked itself, not what lies
 * deeper), then writes its journal (layer/commit: the paths asked
 * for), then moves each entry of upper/ into place by rename(2) (a file
 * is old or new, never partly written; its upper copy goes with it),
 * deletes what whiteouts name and replaces opaque directories,
 * and last rewrites meta and removes the journal. Killed half-way, the
 * tree holds some entries new and the rest old, each whole; the next
 * `overlay commit NAME` sees the journal and finishes the same commit
 * without the checks (they passed), and --overlay refuses the layer
 * until then. The journal is trusted as the layer is: writing either
 * takes access to DIR itself. A commit while the layer is mounted
 * somewhere is undefined, as overlayfs says of changing a layer
 * underneath.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "bytes.h"
#include "confine.h"
#include "diff.h"
#include "edit.h"
#include "fs.h"
#include "fsops.h"
#include "json.h"
#include "mounts.h"
#include "overlay.h"
#include "path.h"
#include "walk.h"

#define LAYERS WFS_STATE_DIR "/overlay"
#define UP "../../.." /* DIR, from its layer */
#define BADNAME "%s %s: not a name for an overlay (letters, digits, '.', '_', '-')"

/* meta's records: this, then the path and a NUL */
struct mrec {
	unsigned long long ino, size; /* ino 0: absent */
	long long ct;
};
struct ment {
	struct mrec r;
	char *path;
};

enum {
	ADDED,
	CHANGED,
	DELETED,
	MODE
};
enum {
	P_DIFF,
	P_CHECK,
	P_APPLY
};

struct ov {
	struct wfs_ctx *c;
	const char *op, *name, *dir;
	char *lp; /* DIR/.wickfs/overlay/NAME */
	int dirfd, lfd, pass, finishing, want_text;
	struct ment *m;
	size_t nm, sorted, cm;
	char **paths;
	int np;
	unsigned char *hit;
	struct buf lists[4], text;
	size_t nl[4];
};

static int good_name(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	return n && !s[n] && n <= 64 && strcmp(s, ".") && strcmp(s, "..");
}

static struct mrec state(const struct stat *st)
{
	struct mrec r = {st->st_ino, st->st_size, st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec};

	return r;
}

static int ment_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ment *)a)->path, ((const struct ment *)b)->path);
}

static void put_ment(struct buf *b, const struct mrec *r, const char *path)
{
	buf_add(b, r, sizeof(*r));
	buf_add(b, path, strlen(path) + 1);
}

/* start: one record per entry of DIR but DIR/.wickfs */
static int rec(void *arg, const struct walk_ent *e)
{
	struct ov *o = arg;
	struct stat st;

	if (!*e->rel)
		return WALK_CONTINUE;
	if (e->depth == 1 && !strcmp(e->name, WFS_STATE_DIR))
		return WALK_SKIP;
	if (!fstatat(e->dirfd, e->at, &st, AT_SYMLINK_NOFOLLOW)) {
		struct mrec r = state(&st);
		put_ment(&o->text, &r, e->rel);
		o->nm++;
	}
	return WALK_CONTINUE;
}

/* The layer's file NAME: written whole from b, else read into *d. */
static int lfile(struct ov *o, const char *name, struct buf *b, char **d, size_t *len)
{
	char *p = arena_printf(o->c->arena, "%s/%s", o->lp, name);
	int rc;

	o->c->own_state++;
	rc = !p || (b && b->oom) ? wfs_fail(o->c, "%s %s: out of memory", o->op, name)
	     : b                 ? wfs_write(o->c, p, b->p ? b->p : "", b->len, 0)
				 : wfs_read(o->c, p, d, len);
	o->c->own_state--;
	return rc;
}

static int load_meta(struct ov *o)
{
	char *d = NULL, *p;
	size_t len = 0;

	if (lfile(o, "meta", NULL, &d, &len))
		return -1;
	/* (read NUL-terminated: a cut record's path ends there) */
	for (p = d; p + sizeof(struct mrec) < d + len; p += strlen(p) + 1) {
		struct ment e;
		memcpy(&e.r, p, sizeof(e.r));
		e.path = p += sizeof(e.r);
		if (arena_grow(o->c->arena, &o->m, &o->cm, o->nm + 1, sizeof(e)))
			return wfs_fail(o->c, "%s %s: out of memory", o->op, o->name);
		o->m[o->nm++] = e;
	}
	if (o->nm)
		qsort(o->m, o->nm, sizeof(*o->m), ment_cmp);
	o->sorted = o->nm;
	return 0;
}

static struct ment *find(struct ov *o, const char *p)
{
	struct ment key;

	key.path = (char *)p;
	return o->sorted ? bsearch(&key, o->m, o->sorted, sizeof(key), ment_cmp) : NULL;
}

/* After applying p: its state now (NULL: gone, and what was under it). */
static void set_meta(struct ov *o, const char *p, const struct stat *st)
{
	struct ment *e = find(o, p);
	size_t n = strlen(p), i;

	if (!e && st && !arena_grow(o->c->arena, &o->m, &o->cm, o->nm + 1, sizeof(*e))) {
		e = &o->m[o->nm++];
		e->path = (char *)p;
	}
	if (!e)
		return;
	memset(&e->r, 0, sizeof(e->r));
	if (st)
		e->r = state(st);
	for (i = (size_t)(e - o->m) + 1; !st && i < o->sorted && !strncmp(o->m[i].path, p, n); i++)
		if (o->m[i].path[n] == '/')
			o->m[i].r.ino = 0;
}

/* 2: p is (under) a path asked for, 1: a directory above one, 0: neither. */
static int sel(struct ov *o, const char *p)
{
	size_t n = strlen(p), k;
	int i, r = o->np ? 0 : 2;

	for (i = 0; i < o->np; i++) {
		k = strlen(o->paths[i]);
		if (k <= n && !memcmp(p, o->paths[i], k) && (!p[k] || p[k] == '/')) {
			o->hit[i] = 1;
			return 2;
		}
		if (k > n && !memcmp(p, o->paths[i], n) && o->paths[i][n] == '/')
			r = 1;
	}
	return r;
}

static void add(struct ov *o, int k, const char *p)
{
	if (o->nl[k]++)
		buf_putc(&o->lists[k], ',');
	json_cstr(&o->lists[k], p);
}

static int opaque(int fd)
{
	char v[2] = "";

	return (fgetxattr(fd, "trusted.overlay.opaque", v, 2) == 1 ||
		fgetxattr(fd, "user.overlay.opaque", v, 2) == 1) &&
	       v[0] == 'y';
}

/* Regular file p, the real one and the layer's (each when set):
 * *differ, and the unified diff for `overlay diff`. */
static int file_diff(struct ov *o, const char *p, int real, int upper, int *differ)
{
	struct arena *ar = o->c->arena;
	char *a = "", *b = "", *la = arena_printf(ar, "%s/%s", o->dir, p),
	     *lb = arena_printf(ar, "%s/upper/%s", o->lp, p);
	size_t al = 0, bl = 0;
	struct diff d;
	int rc;

	o->c->own_state++;
	rc = !la || !lb || (real && wfs_read(o->c, la, &a, &al)) || (upper && wfs_read(o->c, lb, &b, &bl));
	o->c->own_state--;
	if (rc)
		return -1;
	*differ = al != bl || memcmp(a, b, al);
	if (!*differ || !o->want_text)
		return 0;
	la = real ? arena_printf(ar, "a/%s", p) : "/dev/null";
	lb = upper ? arena_printf(ar, "b/%s", p) : "/dev/null";
	if (memchr(a, 0, al) || memchr(b, 0, bl)) {
		buf_printf(&o->text, "Binary files %s and %s differ\n", la, lb);
		return 0;
	}
	if (!la || !lb || diff_compute(&d, a, al, b, bl, 3))
		return wfs_fail(o->c, "%s %s: out of memory", o->op, p);
	diff_unified(&d, &o->text, la, lb);
	diff_free(&d);
	return 0;
}

static int diff_ent(struct ov *o, int rfd, int cfd, const char *p,
		    const char *nm, const struct stat *us, const struct stat *rs, int wo)
{
	int differ = 0;

	if (wo) {
		if (rs)
			add(o, DELETED, p);
		return rs && S_ISREG(rs->st_mode) ? file_diff(o, p, 1, 0, &differ) : 0;
	}
	if (!rs) {
		add(o, ADDED, p);
		return S_ISREG(us->st_mode) ? file_diff(o, p, 0, 1, &differ) : 0;
	}
	/* a link or a special file in the layer was made there */
	if ((us->st_mode ^ rs->st_mode) & S_IFMT || S_ISLNK(us->st_mode)) {
		differ = 1;
	} else if (S_ISREG(us->st_mode)) {
		if (file_diff(o, p, 1, 1, &differ))
			return -1;
	} else if (S_ISDIR(us->st_mode) && opaque(cfd)) {
		/* what the real directory holds and the layer's does not */
		struct fs_dirent *e;
		struct stat st;
		size_t n, i;
		int fd = openat(rfd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0 || fs_dir_entries(o->c, o->op, p, fd, &e, &n)) {
			if (fd >= 0)
				close(fd);
			return fd < 0 ? wfs_fail_errno(o->c, o->op, p, errno) : -1;
		}
		close(fd);
		for (i = 0; i < n; i++)
			if (fstatat(cfd, e[i].name, &st, AT_SYMLINK_NOFOLLOW))
				add(o, DELETED, arena_printf(o->c->arena, "%s/%s", p, e[i].name) ?: p);
	}
	if (differ)
		add(o, CHANGED, p);
	else if ((us->st_mode ^ rs->st_mode) & 07777)
		add(o, MODE, p);
	return 0;
}

/* p unchanged since start; for a directory that merges (merge), only
 * still a directory, if there. */
static int check(struct ov *o, const char *p, const struct stat *rs, int merge)
{
	struct ment *m = find(o, p);
	struct mrec now;

	if (m && !m->r.ino)
		m = NULL;
	if (rs)
		now = state(rs);
	if (merge ? !rs || S_ISDIR(rs->st_mode) : !m ? !rs
						     : rs && !memcmp(&now, &m->r, sizeof(now)))
		return 0;
	return wfs_fail(o->c, "%s %s: %s/%s %s since the overlay started; %s", o->op, o->name,
			o->dir, p, !rs ? "was deleted" : m ? "changed"
							   : "was created",
			o->pass == P_APPLY ? "the commit stopped there (run it again once it is resolved)"
					   : "nothing committed");
}

static int rm_real(struct ov *o, const char *p)
{
	long long n;
	char *rp = arena_printf(o->c->arena, "%s/%s", o->dir, p);

	return rp ? wfs_rm(o->c, rp, 1, 1, &n) : -1;
}

static int visit(struct ov *o, int ufd, int rfd, const char *rel, int depth);

/* One entry of upper/ (us) in this pass; s as sel() says. */
static int entry(struct ov *o, int ufd, int rfd, const char *p, const char *nm,
		 const struct stat *us, int s, int depth)
{
	struct stat rs;
	int have = rfd >= 0 && !fstatat(rfd, nm, &rs, AT_SYMLINK_NOFOLLOW);
	int wo = S_ISCHR(us->st_mode) && !us->st_rdev, dir = S_ISDIR(us->st_mode);
	int cfd = -1, crfd = -1, opq = 0, rc = 0, merge;

	if (dir) {
		cfd = openat(ufd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			return wfs_fail_errno(o->c, o->op, p, errno);
		opq = s == 2 && opaque(cfd);
	}
	merge = dir && !opq;
	if (o->pass == P_DIFF && s == 2) {
		rc = diff_ent(o, rfd, cfd, p, nm, us, have ? &rs : NULL, wo);
	} else if (o->pass == P_CHECK && (s == 2 || merge)) {
		rc = check(o, p, have ? &rs : NULL, merge);
	} else if (o->pass == P_APPLY) {
		/* never a real entry replaced for a directory that merges: it
		 * was a directory when checked, it must be one still */
		if (merge)
			rc = check(o, p, have ? &rs : NULL, 1);
		if (!rc && have && (wo || opq || dir != S_ISDIR(rs.st_mode))) {
			rc = rm_real(o, p);
			have = 0;
		}
		if (!rc && wo) {
			if (unlinkat(ufd, nm, 0))
				rc = wfs_fail_errno(o->c, o->op, p, errno);
			set_meta(o, p, NULL);
		} else if (!rc && !dir) {
			char *rp = arena_printf(o->c->arena, "%s/%s", o->dir, p);
			if (renameat(ufd, nm, rfd, nm))
				rc = wfs_fail_errno(o->c, o->op, p, errno);
			/* a copied-up file's note of its origin is the layer's */
			if (!rc && rp) {
				lremovexattr(rp, "trusted.overlay.origin");
				lremovexattr(rp, "user.overlay.origin");
			}
		} else if (!rc) {
			if (!have && mkdirat(rfd, nm, us->st_mode & 07777) && errno != EEXIST)
				rc = wfs_fail_errno(o->c, o->op, p, errno);
			/* replaced: from now on the directory merges */
			if (opq) {
				fremovexattr(cfd, "trusted.overlay.opaque");
				fremovexattr(cfd, "user.overlay.opaque");
			}
		}
	}
	if (!rc && dir) {
		crfd = rfd < 0 ? -1 : openat(rfd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (crfd < 0 && o->pass == P_APPLY)
			rc = wfs_fail_errno(o->c, o->op, p, errno);
		else
			rc = visit(o, cfd, crfd, p, depth + 1);
		if (!rc && o->pass == P_APPLY && s == 2) {
			fchmod(crfd, us->st_mode & 07777);
			unlinkat(ufd, nm, AT_REMOVEDIR);
		}
	}
	if (!rc && o->pass == P_APPLY && !wo && !fstatat(rfd, nm, &rs, AT_SYMLINK_NOFOLLOW))
		set_meta(o, p, &rs);
	if (cfd >= 0)
		close(cfd);
	if (crfd >= 0)
		close(crfd);
	return rc;
}

static int visit(struct ov *o, int ufd, int rfd, const char *rel, int depth)
{
	struct fs_dirent *e;
	size_t n, i;
	int rc = 0, s;

	/* a listing's offset is the descriptor's: each pass starts over */
	lseek(ufd, 0, SEEK_SET);
	if (fs_dir_entries(o->c, o->op, *rel ? rel : "upper", ufd, &e, &n))
		return -1;
	for (i = 0; !rc && i < n; i++) {
		const char *p = *rel ? arena_printf(o->c->arena, "%s/%s", rel, e[i].name) : e[i].name;
		if (!depth && !strcmp(e[i].name, WFS_STATE_DIR))
			continue;
		if (!p)
			return wfs_fail(o->c, "%s %s: out of memory", o->op, rel);
		s = sel(o, p);
		if (s)
			rc = wfs_expired(o->c) ? -1 : entry(o, ufd, rfd, p, e[i].name, &e[i].st, s, depth);
	}
	return rc;
}

/* The paths asked for, clean and relative to DIR. */
static int clean_paths(struct ov *o)
{
	int i;

	for (i = 0; i < o->np; i++) {
		char *p = path_clean(o->c->arena, o->paths[i]);
		/* (refuses "..x" and ".wickfsx" too: no great loss) */
		if (!p || *p == '/' || !strcmp(p, ".") || !strncmp(p, "..", 2) ||
		    !strncmp(p, WFS_STATE_DIR, sizeof(WFS_STATE_DIR) - 1))
			return wfs_fail(o->c, "%s %s: %s: not a path inside %s (give it relative to it)",
					o->op, o->name, o->paths[i], o->dir);
		o->paths[i] = p;
	}
	return 0;
}

static int commit(struct ov *o, int ufd)
{
	struct stat st;
	struct buf j;
	char *d = NULL;
	size_t len = 0, i;
	int rc;

	if (!fstatat(o->lfd, "commit", &st, AT_SYMLINK_NOFOLLOW)) {
		/* an interrupted commit: finish it, as it was asked */
		size_t cap = 0;
		char *p;
		if (lfile(o, "commit", NULL, &d, &len))
			return -1;
		o->finishing = 1;
		o->np = 0;
		for (p = d; p < d + len; p += strlen(p) + 1)
			if (!arena_grow(o->c->arena, &o->paths, &cap, o->np + 1, sizeof(char *)))
				o->paths[o->np++] = p;
	} else if (clean_paths(o)) {
		return -1;
	}
	o->hit = arena_alloc(o->c->arena, (size_t)o->np + 1);
	if (!o->hit || load_meta(o))
		return o->hit ? -1 : wfs_fail(o->c, "%s %s: out of memory", o->op, o->name);
	memset(o->hit, 0, (size_t)o->np + 1);
	if (visit(o, ufd, o->dirfd, "", 0))
		return -1;
	for (rc = 0; !o->finishing && rc < o->np; rc++)
		if (!o->hit[rc])
			return wfs_fail(o->c, "%s %s: %s: no change there in the overlay", o->op,
					o->name, o->paths[rc]);
	o->pass = P_CHECK;
	if (!o->finishing && visit(o, ufd, o->dirfd, "", 0))
		return -1;
	buf_init(&j);
	for (rc = 0; rc < o->np; rc++)
		buf_add(&j, o->paths[rc], strlen(o->paths[rc]) + 1);
	rc = lfile(o, "commit", &j, NULL, NULL);
	buf_free(&j);
	o->pass = P_APPLY;
	if (rc || visit(o, ufd, o->dirfd, "", 0))
		return -1;
	if (o->nm)
		qsort(o->m, o->nm, sizeof(*o->m), ment_cmp);
	buf_init(&j);
	for (i = 0; i < o->nm; i++)
		if (o->m[i].r.ino)
			put_ment(&j, &o->m[i].r, o->m[i].path);
	rc = lfile(o, "meta", &j, NULL, NULL);
	buf_free(&j);
	if (!rc && unlinkat(o->lfd, "commit", 0))
		rc = wfs_fail_errno(o->c, o->op, "commit", errno);
	return rc;
}

static int list(struct ov *o, struct buf *out)
{
	struct fs_dirent *e;
	struct stat st;
	size_t n = 0, i;
	int fd = openat(o->dirfd, LAYERS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), k = 0;

	if (fd < 0 && errno != ENOENT)
		return wfs_fail_errno(o->c, o->op, LAYERS, errno);
	if (fd >= 0 && fs_dir_entries(o->c, o->op, LAYERS, fd, &e, &n))
		n = 0;
	buf_puts(out, "{\"overlays\":[");
	for (i = 0; i < n; i++) {
		char *m = arena_printf(o->c->arena, "%s/meta", e[i].name),
		     *j = arena_printf(o->c->arena, "%s/commit", e[i].name);
		if (!m || !j || fstatat(fd, m, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		buf_puts(out, k++ ? ",{\"name\":" : "{\"name\":");
		json_cstr(out, e[i].name);
		buf_printf(out, ",\"started\":%lld,\"commit_interrupted\":%s}",
			   (long long)st.st_mtim.tv_sec,
			   fstatat(fd, j, &st, AT_SYMLINK_NOFOLLOW) ? "false" : "true");
	}
	if (fd >= 0)
		close(fd);
	buf_puts(out, "]}");
	return *o->c->err ? -1 : 0;
}

int wfs_overlay(struct wfs_ctx *c, const char *cmd, const char *name, const char *dir,
		char **paths, int np, struct buf *out)
{
	static const char *const cmds[] = {"start", "list", "diff", "commit", "discard"};
	static const char *const keys[] = {"added", "changed", "deleted", "mode_changed"};
	struct walk_opts w = {1, 1, 0, NULL};
	struct ov o;
	char *layer;
	long long n;
	int k, rc = -1, ufd = -1;

	memset(&o, 0, sizeof(o));
	o.c = c;
	o.dirfd = o.lfd = -1;
	o.name = name;
	o.paths = paths;
	o.np = np;
	o.dir = dir ? dir : c->root ? c->root
				    : ".";
	for (k = 0; k < 5 && strcmp(cmd, cmds[k]); k++)
		;
	if (k == 5)
		return wfs_fail(c, "overlay %s: unknown command (start, list, diff, commit or discard)",
				cmd);
	o.op = arena_printf(c->arena, "overlay %s", cmd);
	layer = arena_printf(c->arena, LAYERS "/%s", name ? name : "");
	o.lp = arena_printf(c->arena, "%s/%s", o.dir, layer);
	if (!o.op || !o.lp)
		return wfs_fail(c, "overlay %s: out of memory", cmd);
	if (name && !good_name(name))
		return wfs_fail(c, BADNAME, o.op, name);
	if (((k == 0 || k >= 3) && wfs_writable(c, o.op, o.dir)) || wfs_confine(c, o.op, o.dir) ||
	    (o.dirfd = fs_open_dir(c, o.op, o.dir)) < 0)
		return -1;
	*c->err = 0;
	if (k == 1) {
		rc = list(&o, out);
		goto out;
	}
	o.lfd = confine_dirat(o.dirfd, layer, k == 0);
	if (o.lfd < 0) {
		rc = errno == ENOENT ? wfs_fail(c, "%s %s: no such overlay in %s (wickfs overlay start %s)",
						o.op, name, o.dir, name)
				     : wfs_fail_errno(c, o.op, layer, errno);
		goto out;
	}
	buf_puts(out, "{\"name\":");
	json_cstr(out, name);
	if (k == 0) {
		struct stat st;
		if (!fstatat(o.lfd, "meta", &st, AT_SYMLINK_NOFOLLOW)) {
			rc = wfs_fail(c, "%s %s: already started in %s (overlay discard %s first)", o.op,
				      name, o.dir, name);
			goto out;
		}
		mkdirat(o.lfd, "upper", 0755);
		mkdirat(o.lfd, "work", 0700);
		rc = wfs_walk(c, o.dir, o.dirfd, &w, rec, &o) || lfile(&o, "meta", &o.text, NULL, NULL) ? -1 : 0;
		buf_printf(out, ",\"entries\":%zu}", o.nm);
		goto out;
	}
	if (k == 4) {
		char *w = arena_printf(c->arena, "%s/work/work", o.lp);
		unsigned m;
		c->own_state++;
		/* overlayfs leaves work/work mode 0 */
		if (w)
			wfs_chmod(c, "700", w, &m);
		rc = wfs_rm(c, o.lp, 1, 1, &n);
		c->own_state--;
		buf_puts(out, ",\"discarded\":true}");
		goto out;
	}
	ufd = openat(o.lfd, "upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ufd < 0) {
		rc = wfs_fail_errno(c, o.op, "upper", errno);
		goto out;
	}
	o.want_text = k == 2;
	rc = k == 2 ? visit(&o, ufd, o.dirfd, "", 0) : commit(&o, ufd);
	for (k = 0; k < 4; k++) {
		buf_printf(out, ",\"%s\":[", keys[k]);
		if (o.lists[k].len)
			buf_add(out, o.lists[k].p, o.lists[k].len);
		buf_putc(out, ']');
		buf_free(&o.lists[k]);
	}
	if (o.want_text) {
		buf_puts(out, ",\"diff\":");
		json_str(out, o.text.p ? o.text.p : "", o.text.len);
	} else {
		buf_printf(out, ",\"resumed\":%s", o.finishing ? "true" : "false");
	}
	buf_putc(out, '}');
out:
	buf_free(&o.text);
	if (ufd >= 0)
		close(ufd);
	if (o.lfd >= 0)
		close(o.lfd);
	if (o.dirfd >= 0)
		close(o.dirfd);
	return rc;
}

int overlay_enter(const char *name, const char *dir, char *err, size_t n)
{
	char layer[PATH_MAX + 96];
	const char *why = NULL;
	struct stat st;
	int user;

	if (!good_name(name)) {
		snprintf(err, n, BADNAME, "overlay", name);
		return -1;
	}
	if (snprintf(layer, sizeof(layer), "%s/" LAYERS "/%s", dir, name) >= (int)sizeof(layer) ||
	    chdir(layer) || fstatat(AT_FDCWD, "meta", &st, AT_SYMLINK_NOFOLLOW)) {
		snprintf(err, n, "overlay %s: no such overlay in %s (wickfs overlay start %s): %s",
			 name, dir, name, strerror(errno));
		return -1;
	}
	/* Inside the view already (a command of an --overlay exec): the
	 * kernel's trap on the layer's own upper/ says so. */
	if (fstatat(AT_FDCWD, "upper", &st, AT_SYMLINK_NOFOLLOW) && errno == ELOOP)
		return chdir(UP);
	if (!fstatat(AT_FDCWD, "commit", &st, AT_SYMLINK_NOFOLLOW)) {
		snprintf(err, n, "overlay %s: a commit was interrupted; `wickfs overlay commit %s %s` "
				 "finishes it",
			 name, name, dir);
		return -1;
	}
	user = mounts_unshare(&why);
	/* the layers by relative names: DIR may hold ',' or ':' */
	if (!why && mount("overlay", UP, "overlay", 0,
			  user ? "lowerdir=" UP ",upperdir=upper,workdir=work,userxattr"
			       : "lowerdir=" UP ",upperdir=upper,workdir=work,redirect_dir=off,metacopy=off"))
		why = "mount overlayfs";
	if (!why && chdir(UP)) /* ".." crosses into the mount on DIR */
		why = "chdir";
	if (why) {
		snprintf(err, n, "overlay %s: %s on %s: %s; refused, nothing ran", name, why, dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}
