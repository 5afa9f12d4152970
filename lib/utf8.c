/* utf8.c - UTF-8 encoding, decoding and validation with Go's rules: the
 * one coder of JSON and the regex engine */
#include "utf8.h"

int utf8_decode(const char *s, size_t n, int *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0], min, v;
	int len, k;

	if (c < 0x80) {
		*cp = (int)c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
		min = 0x10000;
	} else {
		*cp = -1;
		return 1;
	}
	if (n < (size_t)len) {
		*cp = -1;
		return 1;
	}
	for (k = 1; k < len; k++) {
		if ((u[k] & 0xc0) != 0x80) {
			*cp = -1;
			return 1;
		}
		v = v << 6 | (u[k] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) {
		*cp = -1;
		return 1;
	}
	*cp = (int)v;
	return len;
}

int utf8_valid(const char *s, size_t n)
{
	size_t i = 0;
	int cp;

	while (i < n) {
		/* ASCII runs eight bytes at a time. */
		while (i + 8 <= n) {
			unsigned long long w;
			__builtin_memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ull)
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		i += (size_t)utf8_decode(s + i, n - i, &cp);
		if (cp < 0)
			return 0;
	}
	return 1;
}

size_t utf8_encode(char *o, unsigned cp)
{
	unsigned char *u = (unsigned char *)o;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	u[0] = (unsigned char)(0xf0 | cp >> 18);
	u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	u[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}
