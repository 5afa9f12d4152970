/* diff.h - line diff (Myers) rendered as a unified diff or as JSON
 *
 * Lines are compared byte for byte, newline included, so a last line
 * without a newline differs from the same text with one, as in GNU diff.
 * Memory is linear in the number of lines, whatever the number of changes.
 */
#ifndef WFS_DIFF_H
#define WFS_DIFF_H

#include <stddef.h>
#include "buf.h"

struct diff_line {
	const char *p;
	size_t len; /* with its '\n', when it has one */
};

/* One hunk: 0-based first line and line count in each file, context
 * included, and the lines it adds and removes. */
struct diff_hunk {
	size_t a_start, a_count;
	size_t b_start, b_count;
	size_t added, removed;
};

struct diff {
	struct diff_line *a, *b; /* the lines of both texts (not copied) */
	size_t na, nb;
	unsigned char *a_changed, *b_changed; /* removed / added lines */
	struct diff_hunk *hunks;
	size_t nhunks;
	size_t added, removed; /* totals */
};

/* Compare two texts; `context` lines (GNU's default is 3) surround each
 * change. The texts must outlive `d`. Returns 0, or -1 when memory runs
 * out (d is then empty and needs no diff_free). */
int diff_compute(struct diff *d, const char *a, size_t alen, const char *b,
		 size_t blen, int context);
void diff_free(struct diff *d);

/* The unified diff as `diff -u` prints it, headers "--- a_label" and
 * "+++ b_label" (a label may carry a tab and a timestamp). Nothing at all
 * when the texts are equal. */
void diff_unified(const struct diff *d, struct buf *out, const char *a_label,
		  const char *b_label);
/* {"added":N,"removed":N,"hunks":[{"old_start","old_lines","new_start",
 * "new_lines","lines":[" ctx","-old","+new",...]}]}: line numbers as in
 * the "@@" header; each line is its unified form without the newline, and
 * a "\\ No newline at end of file" entry follows a line that lacks one. */
void diff_json(const struct diff *d, struct buf *out);

/* Split text into lines (a final line without '\n' counts) into a
 * malloc'd array the caller frees. Returns 0, or -1 when memory runs out. */
int diff_split(const char *p, size_t len, struct diff_line **lines, size_t *n);

#endif
