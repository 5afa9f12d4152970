/* confine.c - fuzz target: the confinement walk (lib/confine.c).
 *
 * At start-up a small tree is made in a temporary directory: a root with
 * directories, a file and symlinks that stay inside, climb out, point at
 * absolute paths, loop or dangle, and a sibling "out" directory. Each
 * input is a path (relative to the root, the working directory; a leading
 * '@' stands for the root's absolute path).
 *
 * Properties: when the check accepts a path, an independent resolver
 * (every component lstat'ed, missing ones taken as directories as mkdir
 * -p would make them) puts it inside the root, at the same place the
 * check names; and a descriptor confine_open hands out is inside the root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "confine.h"
#include "ctx.h"
#include "wickfs.h"

static char base[PATH_MAX], root[PATH_MAX];
static size_t rootlen;

static void mk(const char *kind, const char *rel, const char *target)
{
	char p[PATH_MAX * 2];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (!strcmp(kind, "dir") && mkdir(p, 0755) == 0)
		return;
	if (!strcmp(kind, "file") && (fd = open(p, O_CREAT | O_WRONLY, 0644)) >= 0) {
		close(fd);
		return;
	}
	if (!strcmp(kind, "link") && symlink(target, p) == 0)
		return;
	fprintf(stderr, "confine fuzz: cannot make %s: %s\n", p, strerror(errno));
	exit(1);
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (chdir("/") == 0 && base[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd)) {
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char abs[PATH_MAX + 16];
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(base, sizeof(base), "%s/wickfs-fuzz-confine.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(base) || !realpath(base, abs)) {
		perror("confine fuzz: mkdtemp");
		exit(1);
	}
	snprintf(base, sizeof(base), "%s", abs);
	atexit(cleanup);
	mk("dir", "root", NULL);
	mk("dir", "out", NULL);
	mk("file", "out/secret", NULL);
	mk("dir", "root/sub", NULL);
	mk("dir", "root/sub/deep", NULL);
	mk("file", "root/sub/f", NULL);
	mk("link", "root/in", "sub");
	mk("link", "root/esc", "../out");
	snprintf(abs, sizeof(abs), "%s/out", base);
	mk("link", "root/abs", abs);
	snprintf(abs, sizeof(abs), "%s/root/sub", base);
	mk("link", "root/absin", abs);
	mk("link", "root/sub/up", "..");
	mk("link", "root/sub/upup", "../..");
	mk("link", "root/loop", "loop");
	mk("link", "root/chain", "esc");
	mk("link", "root/dangling", "nowhere/x");
	mk("link", "root/sub/deep/back", "../../esc");
	mk("link", "root/flink", "sub/f");
	mk("link", "root/dot", ".");
	snprintf(root, sizeof(root), "%s/root", base);
	rootlen = strlen(root);
	if (chdir(root)) {
		perror("confine fuzz: chdir");
		exit(1);
	}
	return 0;
}

static int inside(const char *p)
{
	return !strncmp(p, root, rootlen) && (p[rootlen] == 0 || p[rootlen] == '/');
}

/* Drop cur's last component ("/" stays). */
static void up(char *cur)
{
	char *s = strrchr(cur, '/');

	if (s == cur)
		cur[1] = 0;
	else if (s)
		*s = 0;
}

/* The reference: resolve path into out; -1 for a loop or an overlong
 * path (no verdict then). */
static int resolve(const char *path, char *out)
{
	char todo[PATH_MAX * 4], target[PATH_MAX], comp[NAME_MAX + 1];
	char cur[PATH_MAX * 2];
	size_t tl = strlen(path), n;
	int links = 0;

	if (tl >= sizeof(todo))
		return -1;
	memcpy(todo, path, tl + 1);
	snprintf(cur, sizeof(cur), "%s", path[0] == '/' ? "/" : root);
	while (todo[0]) {
		char *s = todo, *e;
		struct stat st;
		ssize_t k;

		while (*s == '/')
			s++;
		for (e = s; *e && *e != '/'; e++)
			;
		n = (size_t)(e - s);
		if (n > NAME_MAX)
			return -1;
		memcpy(comp, s, n);
		comp[n] = 0;
		memmove(todo, e, strlen(e) + 1);
		if (!n || !strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			up(cur);
			continue;
		}
		if (strlen(cur) + n + 2 >= PATH_MAX)
			return -1;
		if (strcmp(cur, "/"))
			strcat(cur, "/");
		strcat(cur, comp);
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			continue; /* missing: a directory to be; or no link */
		if (++links > 40)
			return -1;
		k = readlink(cur, target, sizeof(target) - 1);
		if (k <= 0)
			return -1;
		target[k] = 0;
		if (strlen(todo) + (size_t)k + 2 >= sizeof(todo))
			return -1;
		memmove(todo + k + 1, todo, strlen(todo) + 1);
		memcpy(todo, target, (size_t)k);
		todo[k] = '/';
		if (target[0] == '/')
			strcpy(cur, "/");
		else
			up(cur);
	}
	strcpy(out, cur);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[2048], ref[PATH_MAX * 2], why[PATH_MAX * 3], fdp[64], got[PATH_MAX];
	struct arena a;
	struct wfs_ctx c;
	const char *canon;
	size_t n = 0, i = 0;
	ssize_t k;
	int fd;

	if (size > 1000)
		return 0;
	if (size && data[0] == '@') {
		memcpy(path, root, rootlen);
		n = rootlen;
		i = 1;
	}
	for (; i < size && data[i]; i++)
		path[n++] = (char)data[i];
	path[n] = 0;
	arena_init(&a);
	wfs_ctx_init_root(&c, &a, root);
	canon = wfs_confine_canon(&c, "fuzz", path);
	if (canon) {
		if (!inside(canon))
			abort(); /* accepted, named outside */
		if (!resolve(path, ref) && strcmp(ref, canon))
			abort(); /* accepted, but it resolves elsewhere */
	}
	fd = confine_open(root, -1, path, O_PATH, why, sizeof(why));
	if (fd >= 0) {
		snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", fd);
		k = readlink(fdp, got, sizeof(got) - 1);
		close(fd);
		if (k > 0) {
			got[k] = 0;
			if (!inside(got))
				abort(); /* opened outside the root */
		}
		if (!canon)
			abort(); /* opened what the check refused */
	}
	arena_free(&a);
	return 0;
}
