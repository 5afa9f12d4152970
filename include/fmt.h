/* fmt.h - printf-style formatting without floating point (lib/fmt.c) */
#ifndef WFS_FMT_H
#define WFS_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* As vsnprintf, for the conversions lib/fmt.c lists. */
int fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
