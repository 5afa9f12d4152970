/* base64.c - standard alphabet, padded */
#include "base64.h"

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(struct buf *b, const unsigned char *p, size_t n)
{
	size_t i, o;
	char *d;

	if (buf_reserve(b, (n + 2) / 3 * 4))
		return;
	d = b->p + b->len;
	for (i = 0, o = 0; i + 2 < n; i += 3, o += 4) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		d[o] = b64[v >> 18];
		d[o + 1] = b64[(v >> 12) & 63];
		d[o + 2] = b64[(v >> 6) & 63];
		d[o + 3] = b64[v & 63];
	}
	if (i < n) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		d[o] = b64[v >> 18];
		d[o + 1] = b64[(v >> 12) & 63];
		d[o + 2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		d[o + 3] = '=';
		o += 4;
	}
	b->len += o;
	b->p[b->len] = 0;
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long base64_decode(const char *s, size_t n, unsigned char *out)
{
	size_t i, o = 0;

	if (n % 4)
		return -1;
	for (i = 0; i < n; i += 4) {
		int a = b64val(s[i]), b = b64val(s[i + 1]);
		int c = s[i + 2] == '=' ? -2 : b64val(s[i + 2]);
		int d = s[i + 3] == '=' ? -2 : b64val(s[i + 3]);
		int last = i + 4 == n;

		if (a < 0 || b < 0 || c == -1 || d == -1 ||
		    ((c == -2 || d == -2) && !last) || (c == -2 && d != -2))
			return -1;
		out[o++] = (unsigned char)(a << 2 | b >> 4);
		if (c >= 0)
			out[o++] = (unsigned char)((b & 15) << 4 | c >> 2);
		if (d >= 0)
			out[o++] = (unsigned char)((c & 3) << 6 | d);
	}
	return (long)o;
}
