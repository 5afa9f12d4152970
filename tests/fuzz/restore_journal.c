/* restore_journal.c - fuzz target: a restore journal as an attacker would
 * write it, completed by the next call on the directory (lib/snapshot.c).
 *
 * Each input is planted as DIR/.wickfs/restore/journal in a fresh
 * workspace (two files, a directory, a symlink to a directory outside).
 * The first byte picks the case: even, the input as it is (no valid seal
 * can be guessed); odd, the rest sealed with the workspace's own key, as
 * if the attacker had it, so the body parser and phase 2 meet any body.
 *
 * Properties: an unsealed journal changes nothing in the workspace; a
 * sealed one never touches anything outside it (the sentinel directory
 * beside it stays as it was, nothing appears beside them), and no file
 * or directory in it ends setuid, setgid or sticky.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arena.h"
#include "sha256.h"
#include "snapshot.h"

static char top[64], ws[96], outside[96];
static const unsigned char key[32] = "0123456789abcdef0123456789abcdef";

static void put(const char *dir, const char *name, const void *p, size_t n, int mode)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		abort();
	fchmod(fd, mode);
	close(fd);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(p);
	return 0;
}

static int bad_mode(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)p;
	(void)flag;
	(void)f;
	return !S_ISLNK(st->st_mode) && (st->st_mode & 07000);
}

static int count_top(void)
{
	DIR *d = opendir(top);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void fresh(void)
{
	char p[256];

	nftw(ws, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(ws, 0755);
	snprintf(p, sizeof(p), "%s/sub", ws);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.wickfs", ws);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/.wickfs/restore", ws);
	mkdir(p, 0700);
	put(ws, "a.txt", "keep\n", 5, 0644);
	put(ws, "sub/b.txt", "keep too\n", 9, 0644);
	put(ws, ".wickfs/key", key, sizeof(key), 0600);
	snprintf(p, sizeof(p), "%s/out", ws);
	symlink(outside, p);
}

static void cleanup(void)
{
	nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wfs_snap_opts o = {0};
	struct wfs_snap_info *list;
	struct wfs_ctx c;
	struct arena a;
	struct stat st, sa, sb;
	unsigned char mac[32];
	char head[96], *j, path[256];
	size_t n, i;

	if (!top[0]) {
		strcpy(top, "/tmp/wickfs-fuzz-journal.XXXXXX");
		if (!mkdtemp(top))
			abort();
		snprintf(ws, sizeof(ws), "%s/ws", top);
		snprintf(outside, sizeof(outside), "%s/outside", top);
		mkdir(outside, 0755);
		put(outside, "sentinel", "untouched\n", 10, 0644);
		atexit(cleanup);
	}
	if (!size)
		return 0;
	fresh();
	if (stat(ws, &st))
		abort();
	n = size - 1;
	j = malloc(70 + n + 1);
	if (!j)
		return 0;
	if (data[0] & 1) {
		int h = snprintf(head, sizeof(head), "wickfs-journal 1 %llu %llu\n",
				 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
		sha256_hmac(key, sizeof(key), head, (size_t)h, data + 1, n, mac);
		memcpy(j, "seal ", 5);
		for (i = 0; i < 32; i++)
			snprintf(j + 5 + 2 * i, 3, "%02x", mac[i]);
		j[69] = '\n';
		memcpy(j + 70, data + 1, n);
		put(ws, ".wickfs/restore/journal", j, 70 + n, 0600);
	} else {
		put(ws, ".wickfs/restore/journal", data + 1, n, 0600);
	}
	free(j);

	arena_init(&a);
	wfs_ctx_init_root(&c, &a, NULL);
	o.dir = ws;
	wfs_snapshots(&c, &o, &list, &n);
	arena_free(&a);

	snprintf(path, sizeof(path), "%s/sentinel", outside);
	if (stat(path, &sa) || sa.st_size != 10 || count_top() != 2)
		abort();
	snprintf(path, sizeof(path), "%s/outside", top);
	if (lstat(path, &sb) || !S_ISDIR(sb.st_mode))
		abort();
	if (!(data[0] & 1)) {
		snprintf(path, sizeof(path), "%s/a.txt", ws);
		if (stat(path, &sa))
			abort(); /* unsealed, and the workspace changed */
	}
	if (nftw(ws, bad_mode, 16, FTW_PHYS) > 0)
		abort();
	return 0;
}
