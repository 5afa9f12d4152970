/* path.c - lexical path rules of Go's path/filepath */
#include <string.h>
#include "path.h"
#include "buf.h"
#include "json.h"
#include "utf8.h"

char *path_clean(struct arena *a, const char *p)
{
	size_t n = strlen(p), r = 0, w = 0, dotdot = 0;
	int rooted = n > 0 && p[0] == '/';
	char *out;

	if (n == 0)
		return arena_strdup(a, ".");
	out = arena_alloc(a, n + 2);
	if (!out)
		return NULL;
	if (rooted) {
		out[w++] = '/';
		r = dotdot = 1;
	}
	while (r < n) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && p[r + 1] == '.' &&
			   (r + 2 == n || p[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				w--;
				while (w > dotdot && out[w] != '/')
					w--;
			} else if (!rooted) {
				if (w > 0)
					out[w++] = '/';
				out[w++] = '.';
				out[w++] = '.';
				dotdot = w;
			}
		} else {
			if ((rooted && w != 1) || (!rooted && w != 0))
				out[w++] = '/';
			for (; r < n && p[r] != '/'; r++)
				out[w++] = p[r];
		}
	}
	if (w == 0)
		out[w++] = '.';
	out[w] = 0;
	return out;
}

const char *path_base(const char *p)
{
	size_t n = strlen(p);
	const char *s;

	while (n > 1 && p[n - 1] == '/')
		n--;
	for (s = p + n; s > p && s[-1] != '/'; s--)
		;
	return s;
}

/* A name that is not UTF-8 is listed as JSON makes it (U+FFFD for each bad
 * byte, as the reference), and beside it in this escaped form, which
 * `--escaped-paths` turns back into the bytes: \xHH for a byte that is not
 * part of a UTF-8 character, \\ for a backslash. */
static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
								     : (c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1);
}

void path_escaped_field(struct buf *b, const char *key, const char *s)
{
	size_t n = strlen(s), i = 0;
	struct buf e;
	int cp, len;

	if (utf8_valid(s, n))
		return;
	buf_init(&e);
	while (i < n) {
		len = utf8_decode(s + i, n - i, &cp);
		if (cp < 0)
			buf_printf(&e, "\\x%02x", (unsigned char)s[i]);
		else if (s[i] == '\\')
			buf_puts(&e, "\\\\");
		else
			buf_add(&e, s + i, (size_t)len);
		i += (size_t)len;
	}
	buf_printf(b, ",\"%s\":", key);
	json_str(b, e.p ? e.p : "", e.len);
	b->oom |= e.oom;
	buf_free(&e);
}

char *path_unescape(struct arena *a, const char *s, const char **why)
{
	char *out = arena_alloc(a, strlen(s) + 1), *o = out;
	int hi, lo;

	*why = "out of memory";
	if (!out)
		return NULL;
	while (*s) {
		if (*s != '\\') {
			*o++ = *s++;
			continue;
		}
		if (s[1] == '\\') {
			*o++ = '\\';
			s += 2;
			continue;
		}
		*why = "a backslash starts \\xHH (a byte) or \\\\ (a backslash)";
		if (s[1] != 'x' || (hi = hexval(s[2])) < 0 || (lo = hexval(s[3])) < 0)
			return NULL;
		*why = "\\x00: a path holds no NUL byte";
		if (!(hi | lo))
			return NULL;
		*o++ = (char)(hi << 4 | lo);
		s += 4;
	}
	*o = 0;
	return out;
}
