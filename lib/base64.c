/* base64.c - standard alphabet, padded */
#include "util.h"

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

