/* applypatch.c - fuzz target: lib/edit/applypatch.c's parser and updater.
 *
 * The input is a patch, then a NUL, then an old file. Property: the patch
 * parses or fails with a message; an UPDATE is applied to the old text or
 * fails with a message; no crash, leak or overread either way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "edit.h"
#include "arena.h"
#include "buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *old = "";
	const char *nul = memchr(data, 0, size);
	size_t len = size, old_len = 0, i;
	struct applypatch_plan plan;
	struct arena a;
	char err[512];

	if (nul) {
		len = (size_t)(nul - text);
		old = nul + 1;
		old_len = size - len - 1;
	}
	arena_init(&a);
	err[0] = 0;
	if (applypatch_parse(&a, text, len, &plan, err, sizeof(err))) {
		if (!err[0])
			abort();
		arena_free(&a);
		return 0;
	}
	for (i = 0; i < plan.nfiles; i++) {
		struct buf out;
		if (plan.files[i].op != APPLYPATCH_UPDATE)
			continue;
		buf_init(&out);
		err[0] = 0;
		if (applypatch_update(&plan.files[i], old, old_len, &out, err,
				      sizeof(err)) && !err[0])
			abort();
		buf_free(&out);
	}
	arena_free(&a);
	return 0;
}
