/* unit.h - the few helpers the C unit tests share.
 *
 * Each check prints "ok NAME" or "FAIL NAME: detail" (tests/run counts
 * them); a test program returns unit_done(), non-zero after any failure.
 */
#ifndef WFS_UNIT_H
#define WFS_UNIT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int unit_failed;

static __attribute__((unused)) void unit_ok(const char *name)
{
	printf("ok %s\n", name);
}

static __attribute__((unused)) void unit_fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static __attribute__((unused)) void unit_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	unit_failed = 1;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A byte string for messages: printable ASCII as is, the rest \xHH. */
static __attribute__((unused)) const char *unit_show(const char *s, size_t n)
{
	static char bufs[4][1024];
	static int which;
	char *o = bufs[which++ & 3];
	size_t i, w = 0;

	if (!s)
		return "(null)";
	o[w++] = '"';
	for (i = 0; i < n && w < 1000; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			o[w++] = (char)c;
		else
			w += (size_t)snprintf(o + w, 8, "\\x%02x", c);
	}
	if (i < n)
		w += (size_t)snprintf(o + w, 8, "...");
	o[w++] = '"';
	o[w] = 0;
	return o;
}

/* Names built with printf, for checks over tables. */
static __attribute__((unused)) const char *unit_name(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static __attribute__((unused)) const char *unit_name(const char *fmt, ...)
{
	static char bufs[2][512];
	static int which;
	char *o = bufs[which++ & 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o, 512, fmt, ap);
	va_end(ap);
	return o;
}

static __attribute__((unused)) void unit_check_int(const char *name, long long want, long long got)
{
	if (want == got)
		unit_ok(name);
	else
		unit_fail(name, "expected %lld got %lld", want, got);
}

static __attribute__((unused)) void unit_check_mem(const char *name, const char *want, size_t wn,
						   const char *got, size_t gn)
{
	if (got && wn == gn && !memcmp(want, got, wn))
		unit_ok(name);
	else
		unit_fail(name, "expected %s got %s", unit_show(want, wn),
			  got ? unit_show(got, gn) : "(null)");
}

static __attribute__((unused)) void unit_check_str(const char *name, const char *want, const char *got)
{
	unit_check_mem(name, want, strlen(want), got, got ? strlen(got) : 0);
}

static __attribute__((unused)) int unit_done(void)
{
	fflush(stdout);
	return unit_failed;
}

#endif
