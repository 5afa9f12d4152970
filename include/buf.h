/* buf.h - a growable byte buffer: the output stream of every applet */
#ifndef WFS_BUF_H
#define WFS_BUF_H

#include <stddef.h>
#include <stdarg.h>

struct buf {
	char *p;
	size_t len, cap;
	int oom;   /* set once an allocation failed; later appends are dropped */
	int fixed; /* p is buf_init_mem's: copied out, not realloc'd or freed */
};

void buf_init(struct buf *b);
/* A buffer in mem (size bytes, not freed) until it needs more. */
void buf_init_mem(struct buf *b, void *mem, size_t size);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
int buf_reserve(struct buf *b, size_t more);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);

#endif
