/* lines.h - numbered lines as `cat -n` prints them, a page at a time
 * (read --lines) */
#ifndef WFS_LINES_H
#define WFS_LINES_H

#include <stddef.h>
#include "buf.h"

#define LINES_LIMIT 2000     /* lines per page by default */
#define LINES_MAX_CHARS 2000 /* characters of a line shown by default */

struct lines_page {
	size_t total;  /* lines in the text (a last line without '\n' counts) */
	size_t first;  /* the first line shown (1-based); 0 when none is */
	size_t shown;  /* lines shown */
	size_t cut;    /* lines shown cut short */
	int more;      /* lines follow the last one shown */
	int truncated; /* more || cut */
};

/* Append lines offset.. (from 1; 0 counts as 1) of text to out, at most
 * `limit` of them (0: LINES_LIMIT), each as "%6zu\t" and the line. A line
 * longer than max_chars characters (UTF-8 code points; 0: LINES_MAX_CHARS)
 * is cut there and ends with " [... line cut: N characters]". Bytes are
 * kept as they are ("\r" included); the text's last line has no newline
 * if the text has none, as with cat -n. */
void lines_page(const char *text, size_t len, size_t offset, size_t limit,
		size_t max_chars, struct buf *out, struct lines_page *page);

#endif
