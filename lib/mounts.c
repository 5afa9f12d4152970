/* mounts.c - --mount VPATH=DIR[:ro]: the rules (wickfs mcp routes the
 * paths itself; the daemon binds them), and a mount namespace of the
 * process's own (the daemon's mounts, the overlay's view).
 *
 * The daemon's mounts are the kernel's: before its first thread it
 * enters a mount namespace (a user namespace too without CAP_SYS_ADMIN)
 * and bind-mounts each DIR on its VPATH, read-only for :ro; its applets
 * and its commands alike then see DIR there. Where the kernel refuses
 * (a default Docker seccomp profile does), the daemon does not start. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "arena.h"
#include "buf.h"
#include "mounts.h"
#include "path.h"

int mounts_split(const char *m, size_t *vlen, char *dir, size_t dirlen, int *ro)
{
	const char *eq = strchr(m, '=');
	size_t n;

	if (!eq)
		return -1;
	*vlen = (size_t)(eq - m);
	n = strlen(eq + 1);
	*ro = n > 3 && !strcmp(eq + 1 + n - 3, ":ro");
	if (*ro)
		n -= 3;
	if (!n || (dirlen && n >= dirlen))
		return -1;
	if (dirlen) {
		memcpy(dir, eq + 1, n);
		dir[n] = 0;
	}
	return 0;
}

int mounts_check(const char *const *mounts, struct buf *err)
{
	size_t i, k, vl, wl;
	char dir[4096], other[4096];
	struct arena a;
	struct stat st;
	int ro, rc = 0;

	arena_init(&a);
	for (i = 0; mounts && mounts[i] && !rc; i++) {
		const char *m = mounts[i], *why = NULL, *clean;

		if (mounts_split(m, &vl, dir, sizeof(dir), &ro))
			why = "not VPATH=DIR or VPATH=DIR:ro";
		else if (m[0] != '/' || vl < 2)
			why = "VPATH must be an absolute path other than /";
		else if (!(clean = path_clean(&a, arena_strndup(&a, m, vl))) ||
			 strlen(clean) != vl || strncmp(clean, m, vl))
			why = "VPATH must be normalised (no //, . or .., no trailing /)";
		else if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			why = "DIR is not a directory";
		for (k = 0; !why && k < i; k++)
			if (!mounts_split(mounts[k], &wl, other, sizeof(other), &ro) &&
			    !strncmp(m, mounts[k], vl < wl ? vl : wl) &&
			    (vl == wl || m[vl < wl ? vl : wl] == '/' ||
			     mounts[k][vl < wl ? vl : wl] == '/'))
				why = "it overlaps an earlier mount";
		if (why) {
			buf_printf(err, "--mount %s: %s\n", m, why);
			rc = -1;
		}
	}
	arena_free(&a);
	return rc;
}

static int put(const char *f, const char *s)
{
	int fd = open(f, O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, s, strlen(s)) < 0 ? -1 : 0;
	close(fd);
	return rc;
}

int mounts_unshare(const char **why)
{
	unsigned uid = geteuid(), gid = getegid(); /* unmapped once unshared */
	char map[64];
	int user = 0;

	*why = NULL;
	if (unshare(CLONE_NEWNS)) {
		/* no CAP_SYS_ADMIN: a user namespace, the same ids in it */
		*why = "unshare";
		if (errno == EPERM && !unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
			*why = "/proc/self/uid_map";
			snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
			if (!put("/proc/self/uid_map", map) && !put("/proc/self/setgroups", "deny")) {
				snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
				*why = put("/proc/self/gid_map", map) ? "/proc/self/gid_map" : NULL;
			}
			user = 1;
		}
	}
	if (!*why && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		*why = "private mounts";
	return *why ? -1 : user;
}

int mounts_bind(const char *const *mounts, char *err, size_t n)
{
	static const struct {
		unsigned long st, ms;
	} keep[] = {{ST_NOSUID, MS_NOSUID}, {ST_NODEV, MS_NODEV}, {ST_NOEXEC, MS_NOEXEC}, {ST_NOATIME, MS_NOATIME}, {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME}};
	char dir[4096], vpath[4096];
	const char *why;
	struct statvfs sv;
	size_t i, k, vl;
	unsigned long fl;
	int ro;

	if (mounts_unshare(&why) < 0) {
		snprintf(err, n, "--mount: %s: %s (the kernel refuses a mount namespace here)", why,
			 strerror(errno));
		return -1;
	}
	for (i = 0; mounts[i]; i++) {
		if (mounts_split(mounts[i], &vl, dir, sizeof(dir), &ro) || vl >= sizeof(vpath))
			continue; /* mounts_check said so */
		memcpy(vpath, mounts[i], vl);
		vpath[vl] = 0;
		why = "bind";
		if (!mount(dir, vpath, NULL, MS_BIND | MS_REC, NULL)) {
			/* read-only: a remount that keeps the flags a user
			 * namespace may not drop */
			why = "read-only";
			fl = MS_BIND | MS_REMOUNT | MS_RDONLY;
			if (ro && !statvfs(vpath, &sv))
				for (k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
					fl |= sv.f_flag & keep[k].st ? keep[k].ms : 0;
			if (!ro || !mount(NULL, vpath, NULL, fl, NULL))
				continue;
		}
		snprintf(err, n, "--mount %s: %s %s on %s: %s", mounts[i], why, dir, vpath,
			 strerror(errno));
		return -1;
	}
	return 0;
}

const char *mounts_ro_of(const char *const *mounts, const char *abs, size_t *vlen)
{
	size_t i, vl;
	int ro;

	for (i = 0; mounts && mounts[i]; i++)
		if (!mounts_split(mounts[i], &vl, NULL, 0, &ro) && ro && !strncmp(abs, mounts[i], vl) &&
		    (!abs[vl] || abs[vl] == '/')) {
			*vlen = vl;
			return mounts[i];
		}
	return NULL;
}
