/* applypatch.h - the "*** Begin Patch" format agents are trained on
 *
 *   *** Begin Patch
 *   *** Add File: PATH         then the new file's lines, each after "+"
 *   *** Delete File: PATH
 *   *** Update File: PATH
 *   *** Move to: NEWPATH       (optional, right after Update File)
 *   @@ [ANCHOR]                starts a hunk; the first may omit it;
 *                              more "@@ ANCHOR" lines narrow the place down
 *    context / -removed / +added lines (an empty line is empty context)
 *   *** End of File            (optional) the hunk ends at the file's end
 *   *** End Patch
 *
 * The parser makes a plan and touches no file; applypatch_update turns a
 * file's old content into the new one. Context and removed lines match
 * exactly first, then ignoring trailing whitespace, then ignoring the
 * whitespace around them. Anchors are lines found first, in order, from
 * the end of the previous hunk; the hunk is looked for after the last. A hunk that only
 * adds lines goes right after its anchor, or at the end of the file.
 *
 * The result keeps the old content's BOM, its line ends (a file whose
 * every line ends in CRLF gets CRLF lines) and its lack of a final newline.
 */
#ifndef WFS_APPLYPATCH_H
#define WFS_APPLYPATCH_H

#include <stddef.h>
#include "arena.h"
#include "buf.h"

enum applypatch_op {
	APPLYPATCH_ADD,
	APPLYPATCH_DELETE,
	APPLYPATCH_UPDATE
};

struct applypatch_line {
	char kind;     /* ' ', '-' or '+' */
	const char *p; /* the text after the mark, without its line end */
	size_t len;
};

struct applypatch_hunk {
	struct applypatch_line *anchors; /* "@@ text" lines, kind '@' */
	size_t nanchors;
	struct applypatch_line *lines;
	size_t nlines;
	int at_eof;        /* "*** End of File" closed it */
	size_t patch_line; /* its first line in the patch (1-based) */
};

struct applypatch_file {
	enum applypatch_op op;
	const char *path, *move_to; /* NUL-terminated; move_to may be NULL */
	const char *content;        /* ADD: the new file, each line + "\n" */
	size_t content_len;
	struct applypatch_hunk *hunks; /* UPDATE */
	size_t nhunks;
	size_t patch_line; /* the "*** ... File:" line */
};

struct applypatch_plan {
	struct applypatch_file *files;
	size_t nfiles;
};

/* Parse text into plan; everything lives in arena a (and points into
 * text, which must outlive the plan). Returns 0, or -1 with a message
 * such as "patch line 7: expected '@@' or a line starting with ' ', '-'
 * or '+', got \"foo\"". */
int applypatch_parse(struct arena *a, const char *text, size_t len,
		     struct applypatch_plan *plan, char *err, size_t errlen);

/* The new content of an updated file, from its old content, appended to
 * out. Returns 0, or -1 naming the hunk and its patch line. */
int applypatch_update(const struct applypatch_file *f, const char *old,
		      size_t len, struct buf *out, char *err, size_t errlen);

#endif
