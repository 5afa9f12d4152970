/* budget.c - the container's memory limit, from which the daemon's
 * default memory budget is derived: cgroup v2 memory.max or v1
 * memory.limit_in_bytes, of the cgroups /proc/self/cgroup names and of
 * every one above them (the smallest limit binds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linefile.h"
#include "daemon.h"

/* A limit file's number; 0 for "max", the v1 "unlimited" (about 2^63),
 * or no file. */
static unsigned long long limit_file(const char *path)
{
	unsigned long long v;
	char b[64], *end;

	if (linefile_first(path, b, sizeof(b)))
		return 0;
	v = strtoull(b, &end, 10);
	return end == b || v >= (1ULL << 60) ? 0 : v;
}

/* The smallest limit in dir + rel and its parents up to dir itself. */
static unsigned long long walk_up(const char *dir, const char *rel,
				  const char *file, unsigned long long best)
{
	char path[4096];
	size_t base = strlen(dir), len;
	unsigned long long v;

	if ((size_t)snprintf(path, sizeof(path), "%s%s", dir, rel) >= sizeof(path) - 32)
		return best;
	len = strlen(path);
	for (;;) {
		char *cut;
		while (len > base && path[len - 1] == '/')
			len--;
		snprintf(path + len, sizeof(path) - len, "/%s", file);
		v = limit_file(path);
		if (v && (!best || v < best))
			best = v;
		path[len] = 0;
		if (len <= base || !(cut = strrchr(path + base, '/')))
			return best;
		len = (size_t)(cut - path);
	}
}

/* 1 when the comma-separated list [s, end) holds "memory". */
static int has_memory(const char *s, const char *end)
{
	while (s < end) {
		size_t n = strcspn(s, ",:");
		if (n == 6 && !memcmp(s, "memory", 6))
			return 1;
		s += n + 1;
	}
	return 0;
}

unsigned long long daemon_cgroup_limit(const char *dir)
{
	struct linefile f;
	char *line, sub[4200];
	unsigned long long best = 0;

	snprintf(sub, sizeof(sub), "%s/memory", dir);
	if (linefile_open(&f, "/proc/self/cgroup")) /* no /proc: the cgroups mounted for us, if any */
		return walk_up(sub, "/", "memory.limit_in_bytes",
			       walk_up(dir, "/", "memory.max", 0));
	while ((line = linefile_next(&f))) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		c2[1 + strcspn(c2 + 1, "\n")] = 0;
		if (c2 == c1 + 1) /* "0::/path": v2 */
			best = walk_up(dir, c2 + 1, "memory.max", best);
		else if (has_memory(c1 + 1, c2))
			best = walk_up(sub, c2 + 1, "memory.limit_in_bytes", best);
	}
	return best;
}
