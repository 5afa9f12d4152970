/* path.c - lexical path rules of Go's path/filepath */
#include <string.h>
#include "path.h"

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
