/* patch.h - find-and-replace edits over a buffer, and their helpers
 *
 * Pure functions: text in, text out (a buf), no file I/O.
 *
 * Line endings, BOM and final newline (the conventions every edit keeps):
 * - A text is CRLF when most of its line ends are "\r\n" (patch_crlf).
 *   In a CRLF text, old_text may be given with plain "\n" line ends: it
 *   matches the text's "\r\n" ones. Every plain "\n" of new_text is then
 *   written as "\r\n", so an edit never mixes the endings of a CRLF file.
 *   An LF text takes new_text as it is.
 * - A text that starts with a UTF-8 BOM keeps it, whatever the edits.
 * - A text without a final newline keeps none: an old_text ending in a
 *   newline that matches the text's last line without one matches there,
 *   and new_text loses its final newline in the same way.
 */
#ifndef WFS_PATCH_H
#define WFS_PATCH_H

#include <stddef.h>
#include "buf.h"

struct patch_edit {
	const char *old_text, *new_text;
	size_t old_len, new_len;
};

enum patch_status {
	PATCH_OK,
	PATCH_EMPTY,     /* old_text is empty */
	PATCH_SAME,      /* old_text equals new_text */
	PATCH_NOT_FOUND, /* old_text does not occur */
	PATCH_AMBIGUOUS, /* old_text occurs more than once */
	PATCH_BAD_LINE,  /* insert: line number past the end */
	PATCH_NO_TEXT,   /* insert: new_text is empty */
	PATCH_NOMEM,
};

/* Why an edit failed: which one, and what helps an agent retry. */
struct patch_error {
	enum patch_status status;
	size_t edit;                  /* 1-based index of the edit that failed */
	size_t count;                 /* AMBIGUOUS: occurrences; BAD_LINE: lines */
	size_t line, line2;           /* AMBIGUOUS: lines of the first two occurrences */
	size_t near_first, near_last; /* NOT_FOUND: closest match ignoring
					 whitespace (1-based lines), 0 if none */
	int crlf;                     /* the text has CRLF line ends */
};

/* Apply edits in order, each to the result of the ones before; each
 * old_text must occur exactly once. All or nothing: on failure `out` is
 * left as it was and err says why. Returns 0 or -1. */
int patch_apply(const char *text, size_t len, const struct patch_edit *edits,
		size_t n, struct buf *out, struct patch_error *err);

/* Insert new_text after line `after` (0 = the top, after a BOM). The text
 * around is kept; new_text ends up a whole line or lines. 0 or -1. */
int patch_insert(const char *text, size_t len, size_t after,
		 const char *new_text, size_t new_len, struct buf *out,
		 struct patch_error *err);

/* "hunk 2: old_text not found; closest match ignoring whitespace: lines
 * 10-12; the file has CRLF line endings" and the like (a hunk is one
 * {old_text,new_text} edit). */
void patch_error_text(const struct patch_error *err, char *msg, size_t len);

/* The text's line ends are mostly "\r\n". */
int patch_crlf(const char *text, size_t len);

/* The lines (1-based, inclusive) of the place in text most like old_text
 * when whitespace and indentation are ignored: all its lines if they occur
 * so, else the window where most of them do (at least half). 0 when
 * nothing is close. */
int patch_closest(const char *text, size_t len, const char *old_text,
		  size_t old_len, size_t *first, size_t *last);

#endif
