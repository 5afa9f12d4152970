/* lines.c - numbered lines, a page at a time (include/lines.h) */
#include <string.h>
#include "lines.h"

/* Bytes of the first max characters of s (a character starts at each byte
 * that is not a UTF-8 continuation byte); *chars gets the line's count. */
static size_t cut_point(const char *s, size_t n, size_t max, size_t *chars)
{
	size_t i, count = 0, at = n;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && count++ == max)
			at = i;
	*chars = count;
	return at;
}

static size_t count_lines(const char *s, size_t n)
{
	const char *p = s, *end = s + n, *nl;
	size_t count = 0;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		count++;
		p = nl + 1;
	}
	return count + (p < end);
}

void lines_page(const char *text, size_t len, size_t offset, size_t limit,
		size_t max_chars, struct buf *out, struct lines_page *page)
{
	const char *p = text, *end = text + len, *nl;
	size_t line = 1;

	memset(page, 0, sizeof(*page));
	if (!offset)
		offset = 1;
	if (!limit)
		limit = LINES_LIMIT;
	if (!max_chars)
		max_chars = LINES_MAX_CHARS;
	page->total = count_lines(text, len);
	for (; p < end && page->shown < limit; line++) {
		size_t n, keep, chars;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		if (line >= offset) {
			if (!page->first)
				page->first = line;
			keep = cut_point(p, n, max_chars, &chars);
			buf_printf(out, "%6zu\t", line);
			buf_add(out, p, keep);
			if (keep < n) {
				buf_printf(out, " [... line cut: %zu characters]", chars);
				page->cut++;
			}
			if (nl)
				buf_putc(out, '\n');
			page->shown++;
		}
		p = nl ? nl + 1 : end;
	}
	page->more = page->first ? page->first + page->shown - 1 < page->total : 0;
	page->truncated = page->more || page->cut;
}
