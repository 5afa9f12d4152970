/* fmt.c - the printf family for the static binary
 *
 * musl's printf carries its floating-point formatting wherever printf is
 * linked: about 10 KB of a binary that never prints a float. This one
 * knows what the code uses: flags "-0 +#", a width and a precision (both
 * may be "*"), the lengths hh h l ll z j t, and the conversions d i u x X
 * o c s p %. A float conversion prints "?", so its absence shows in a test
 * rather than as a crash.
 *
 * fmt_vsnprintf is always built (tests compare it with the C library's);
 * with WFS_OWN_PRINTF (the static build) it also stands in for the C
 * library's snprintf, printf, fprintf and the rest, so theirs never link.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fmt.h"

struct out {
	char *p;
	size_t cap, len; /* len counts what would be written */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->len < o->cap) {
		size_t room = o->cap - o->len;
		memcpy(o->p + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void pad(struct out *o, char c, long n)
{
	char block[16];

	memset(block, c, sizeof(block));
	for (; n > 0; n -= (long)sizeof(block))
		put(o, block, n < (long)sizeof(block) ? (size_t)n : sizeof(block));
}

enum {
	F_LEFT = 1,
	F_ZERO = 2,
	F_PLUS = 4,
	F_SPACE = 8,
	F_ALT = 16
};

/* One converted field: sign or prefix, then body, padded to width. */
static void field(struct out *o, int flags, long width, const char *pre,
		  size_t npre, long zeros, const char *body, size_t n)
{
	long fill = width - (long)(npre + n) - (zeros > 0 ? zeros : 0);

	if (!(flags & (F_LEFT | F_ZERO)))
		pad(o, ' ', fill);
	put(o, pre, npre);
	if (flags & F_ZERO && !(flags & F_LEFT))
		pad(o, '0', fill);
	pad(o, '0', zeros);
	put(o, body, n);
	if (flags & F_LEFT)
		pad(o, ' ', fill);
}

static void number(struct out *o, uintmax_t v, int neg, int base, int upper,
		   int flags, long width, long prec)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[3 * sizeof(uintmax_t) + 2], pre[3];
	char *e = tmp + sizeof(tmp), *s = e;
	size_t npre = 0;

	for (; v; v /= (unsigned)base)
		*--s = digits[v % (unsigned)base];
	if (prec < 0)
		prec = 1;
	else
		flags &= ~F_ZERO; /* a precision turns "0" padding off */
	if (flags & F_ALT && base == 8 && (long)(e - s) >= prec)
		prec = (long)(e - s) + 1;
	if (neg)
		pre[npre++] = '-';
	else if (flags & F_PLUS)
		pre[npre++] = '+';
	else if (flags & F_SPACE)
		pre[npre++] = ' ';
	if (flags & F_ALT && base == 16 && e != s) {
		pre[npre++] = '0';
		pre[npre++] = upper ? 'X' : 'x';
	}
	field(o, flags, width, pre, npre, prec - (long)(e - s), s, (size_t)(e - s));
}

/* The next argument of integer length len ('H' hh, 'h', 0, 'l', 'L' ll,
 * 'j', 'z', 't'), as its magnitude and sign. */
static uintmax_t int_arg(va_list *ap, int len, int is_signed, int *neg)
{
	intmax_t s;
	uintmax_t u;

	*neg = 0;
	if (!is_signed) {
		switch (len) {
		case 'H': return (unsigned char)va_arg(*ap, unsigned);
		case 'h': return (unsigned short)va_arg(*ap, unsigned);
		case 'l': return va_arg(*ap, unsigned long);
		case 'L': return va_arg(*ap, unsigned long long);
		case 'j': return va_arg(*ap, uintmax_t);
		case 'z': return va_arg(*ap, size_t);
		case 't': return (uintmax_t)va_arg(*ap, ptrdiff_t);
		default: return va_arg(*ap, unsigned);
		}
	}
	switch (len) {
	case 'H': s = (signed char)va_arg(*ap, int); break;
	case 'h': s = (short)va_arg(*ap, int); break;
	case 'l': s = va_arg(*ap, long); break;
	case 'L': s = va_arg(*ap, long long); break;
	case 'j': s = va_arg(*ap, intmax_t); break;
	case 'z': s = (intmax_t)va_arg(*ap, ssize_t); break;
	case 't': s = va_arg(*ap, ptrdiff_t); break;
	default: s = va_arg(*ap, int); break;
	}
	u = (uintmax_t)s;
	if (s < 0) {
		*neg = 1;
		u = -u; /* well defined for INTMAX_MIN too: unsigned */
	}
	return u;
}

/* A width or precision: digits, or "*" from the arguments. */
static long count(const char **f, va_list *ap, int *star)
{
	long n = 0;

	*star = 0;
	if (**f == '*') {
		(*f)++;
		*star = 1;
		return va_arg(*ap, int);
	}
	while (**f >= '0' && **f <= '9') {
		if (n < INT_MAX / 10)
			n = n * 10 + (**f - '0');
		(*f)++;
	}
	return n;
}

static void convert(struct out *o, const char **fp, va_list *ap)
{
	const char *f = *fp, *s;
	long width, prec = -1;
	int flags = 0, len = 0, neg, star;
	char c;

	for (;; f++) {
		if (*f == '-')
			flags |= F_LEFT;
		else if (*f == '0')
			flags |= F_ZERO;
		else if (*f == '+')
			flags |= F_PLUS;
		else if (*f == ' ')
			flags |= F_SPACE;
		else if (*f == '#')
			flags |= F_ALT;
		else
			break;
	}
	width = count(&f, ap, &star);
	if (width < 0) {
		flags |= F_LEFT;
		width = -width;
	}
	if (*f == '.') {
		f++;
		prec = count(&f, ap, &star);
		if (prec < 0)
			prec = -1; /* a negative "*" precision: as if none */
	}
	for (;; f++) {
		if (*f == 'h')
			len = len == 'h' ? 'H' : 'h';
		else if (*f == 'l')
			len = len == 'l' ? 'L' : 'l';
		else if (*f == 'j' || *f == 'z' || *f == 't')
			len = *f;
		else
			break;
	}
	c = *f ? *f++ : 0;
	*fp = f;
	switch (c) {
	case 'd':
	case 'i': {
		uintmax_t v = int_arg(ap, len, 1, &neg);
		number(o, v, neg, 10, 0, flags, width, prec);
		return;
	}
	case 'u':
	case 'x':
	case 'X':
	case 'o': {
		uintmax_t v = int_arg(ap, len, 0, &neg);
		number(o, v, 0, c == 'u' ? 10 : c == 'o' ? 8
							 : 16,
		       c == 'X',
		       flags & ~(F_PLUS | F_SPACE), width, prec);
		return;
	}
	case 'p':
		number(o, (uintptr_t)va_arg(*ap, void *), 0, 16, 0, F_ALT | (flags & F_LEFT),
		       width, -1);
		return;
	case 'c': {
		char ch = (char)va_arg(*ap, int);
		field(o, flags & F_LEFT, width, "", 0, 0, &ch, 1);
		return;
	}
	case 's': {
		size_t n;
		s = va_arg(*ap, const char *);
		if (!s)
			s = "(null)";
		n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
		field(o, flags & F_LEFT, width, "", 0, 0, s, n);
		return;
	}
	case '%':
		put(o, "%", 1);
		return;
	case 0:
		return;
	default:
		/* f, e, g, a, n: not used here, so not carried */
		put(o, "?", 1);
		if (c == 'f' || c == 'e' || c == 'g' || c == 'a' || c == 'F' ||
		    c == 'E' || c == 'G' || c == 'A')
			(void)va_arg(*ap, double);
		return;
	}
}

int fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	struct out o = {buf, n ? n - 1 : 0, 0};
	va_list aq;

	va_copy(aq, ap);
	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		size_t lit = pct ? (size_t)(pct - fmt) : strlen(fmt);

		put(&o, fmt, lit);
		fmt += lit;
		if (*fmt == '%') {
			fmt++;
			convert(&o, &fmt, &aq);
		}
	}
	va_end(aq);
	if (n)
		buf[o.len < o.cap ? o.len : o.cap] = 0;
	return o.len > INT_MAX ? -1 : (int)o.len;
}

#ifdef WFS_OWN_PRINTF

int vsnprintf(char *restrict buf, size_t n, const char *restrict fmt, va_list ap)
{
	return fmt_vsnprintf(buf, n, fmt, ap);
}

int snprintf(char *restrict buf, size_t n, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = fmt_vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

int vsprintf(char *restrict buf, const char *restrict fmt, va_list ap)
{
	return fmt_vsnprintf(buf, INT_MAX, fmt, ap);
}

int sprintf(char *restrict buf, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = fmt_vsnprintf(buf, INT_MAX, fmt, ap);
	va_end(ap);
	return r;
}

/* Format on the stack, or in the heap when longer; then hand it on: to
 * a descriptor, or (only if something calls the FILE forms, which bring
 * in musl's stdio) to a FILE. */
static int emit(FILE *f, int fd, const char *fmt, va_list ap,
		size_t (*put)(const void *, size_t, size_t, FILE *))
{
	char small[512], *p = small;
	va_list aq;
	int n, r;

	va_copy(aq, ap);
	n = fmt_vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(small)) {
		p = malloc((size_t)n + 1);
		if (!p)
			return -1;
		fmt_vsnprintf(p, (size_t)n + 1, fmt, ap);
	}
	if (put)
		r = put(p, 1, (size_t)n, f) == (size_t)n ? n : -1;
	else
		r = write(fd, p, (size_t)n) == n ? n : -1;
	if (p != small)
		free(p);
	return r;
}

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	return emit(f, -1, fmt, ap, fwrite);
}

int fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = emit(f, -1, fmt, ap, fwrite);
	va_end(ap);
	return r;
}

/* printf straight to descriptor 1: nothing here uses stdout's buffer */
int vprintf(const char *restrict fmt, va_list ap)
{
	return emit(NULL, 1, fmt, ap, NULL);
}

int printf(const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = emit(NULL, 1, fmt, ap, NULL);
	va_end(ap);
	return r;
}

int vdprintf(int fd, const char *restrict fmt, va_list ap)
{
	return emit(NULL, fd, fmt, ap, NULL);
}

int dprintf(int fd, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = emit(NULL, fd, fmt, ap, NULL);
	va_end(ap);
	return r;
}

#endif
