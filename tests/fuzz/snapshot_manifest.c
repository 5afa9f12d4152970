/* snapshot_manifest.c - fuzz target: the snapshot manifest parser
 * (snapshot_manifest_parse in lib/snapshot.c), which restore trusts.
 *
 * Properties: whatever parses has only clean relative paths (no "",
 * ".", ".." component, no leading or trailing '/'), strictly sorted,
 * each entry's parent listed before it as a directory, modes within
 * 07777 and nanoseconds below 1e9: the guarantees a restore relies on
 * to stay inside its directory.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "snapshot.h"

static int clean(const char *p)
{
	const char *c = p;

	if (!*p || *p == '/' || p[strlen(p) - 1] == '/')
		return 0;
	while (*c) {
		size_t n = strcspn(c, "/");
		if (!n || (n == 1 && c[0] == '.') || (n == 2 && !strncmp(c, "..", 2)))
			return 0;
		c += n + (c[n] == '/');
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a;
	struct snap_manifest m;
	char err[128];
	size_t i, j;

	arena_init(&a);
	if (!snapshot_manifest_parse(&a, (const char *)data, size, &m, err, sizeof(err))) {
		for (i = 0; i < m.n; i++) {
			const struct snap_ent *e = &m.v[i];
			const char *slash = strrchr(e->path, '/');
			if (!clean(e->path) || e->mode > 07777 || e->nsec < 0 || e->nsec > 999999999)
				abort();
			if (i && strcmp(m.v[i - 1].path, e->path) >= 0)
				abort();
			if (!slash)
				continue;
			for (j = 0; j < i; j++)
				if (strlen(m.v[j].path) == (size_t)(slash - e->path) &&
				    !strncmp(m.v[j].path, e->path, (size_t)(slash - e->path)))
					break;
			if (j == i || m.v[j].type != 'd')
				abort();
		}
	}
	arena_free(&a);
	return 0;
}
