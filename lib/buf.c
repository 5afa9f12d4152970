/* buf.c - growable byte buffer */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"

void buf_init(struct buf *b)
{
	memset(b, 0, sizeof(*b));
}

void buf_init_mem(struct buf *b, void *mem, size_t size)
{
	buf_init(b);
	b->p = mem;
	b->cap = size;
	b->fixed = 1;
}

void buf_free(struct buf *b)
{
	if (!b->fixed)
		free(b->p);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->oom = 0;
}

int buf_reserve(struct buf *b, size_t more)
{
	size_t need, cap;
	char *p;

	if (b->oom)
		return -1;
	need = b->len + more + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->fixed ? NULL : b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	if (b->fixed)
		memcpy(p, b->p, b->len);
	b->fixed = 0;
	b->p = p;
	b->cap = cap;
	return 0;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_putc(struct buf *b, char c)
{
	if (buf_reserve(b, 1))
		return;
	b->p[b->len++] = c;
	b->p[b->len] = 0;
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || buf_reserve(b, (size_t)n))
		return;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}
