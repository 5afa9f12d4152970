/* libc_own.c - what the static binary takes in place of musl's, where
 * ours is a fraction of the size and as fast where it is used.
 *
 * qsort and qsort_r: a merge sort, runs of
 * eight put in order by insertion first, in place of musl's smoothsort
 * (2.1 KB; this is a quarter of that). Stable, n log n comparisons; the
 * merge needs a buffer as large as the array, and without one (out of
 * memory) the insertion sort does it all, slowly but right. Arrays of
 * eight or fewer (the regex engine's, the most frequent) need no buffer.
 *
 * strstr: memmem's two-way search with the lengths measured first (musl
 * has a second copy of it for strstr: 1.3 KB).
 *
 * strtol, strtoul, strtoll, strtoull: one scanner (bases 0 and 2 to 36,
 * overflow to the limit with ERANGE) in place of musl's, whose scanner
 * reads through a FILE and brings its buffer code with it (2.4 KB).
 *
 * inet_pton and inet_ntop: IPv4 dotted quads (no leading zeros) and IPv6
 * with "::" and a dotted tail; out, RFC 5952's form (the first longest
 * run of two or more zero groups as "::", ::ffff:a.b.c.d for a mapped
 * IPv4). 0.6 KB in place of 1.7.
 *
 * pthread_cond_* (init, destroy, wait, signal, broadcast), with lib/heap.c's
 * mutexes: a futex word, the first int of the C library's type (its static
 * initializer is zeros), for the plain condition variables we use; musl's
 * handle every kind (shared, timed, requeued to the mutex) and, with its
 * mutexes, bring 4 KB. It is a sequence number its waiters sleep on,
 * bumped by each signal; a waiter woken takes the mutex as any thread
 * does (nothing is requeued), and checks its predicate again, as POSIX has
 * callers do.
 *
 * Like lib/fmt.c's printf family, only in the static build (-DWFS_OWN_
 * PRINTF), where they take the C library's place; tests/unit/sort_test.c
 * checks the sort on random arrays, the callers' tests the rest. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "libc_own.h"

#ifdef WFS_OWN_PRINTF
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

static void futex(int *w, int op, int v)
{
	syscall(SYS_futex, w, op, v, NULL);
}

int pthread_cond_init(pthread_cond_t *restrict c, const pthread_condattr_t *restrict a)
{
	(void)a;
	memset(c, 0, sizeof(*c));
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	(void)c;
	return 0;
}

int pthread_cond_wait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m)
{
	int *s = (int *)c, seq = __atomic_load_n(s, __ATOMIC_RELAXED);

	pthread_mutex_unlock(m);
	futex(s, FUTEX_WAIT_PRIVATE, seq); /* at once if a signal came since */
	return pthread_mutex_lock(m);
}

static int cond_wake(pthread_cond_t *c, int n)
{
	__atomic_fetch_add((int *)c, 1, __ATOMIC_RELEASE);
	futex((int *)c, FUTEX_WAKE_PRIVATE, n);
	return 0;
}

int pthread_cond_signal(pthread_cond_t *c)
{
	return cond_wake(c, 1);
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	return cond_wake(c, INT_MAX);
}
typedef int (*cmp_r)(const void *, const void *, void *);

static void insertion(char *a, size_t n, size_t size, cmp_r cmp, void *arg)
{
	size_t i, j, k;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size, arg) > 0; j--)
			for (k = 0; k < size; k++) {
				char t = a[(j - 1) * size + k];
				a[(j - 1) * size + k] = a[j * size + k];
				a[j * size + k] = t;
			}
}

void qsort_r(void *base, size_t n, size_t size, cmp_r cmp, void *arg)
{
	char *src = base, *dst, *buf, *t;
	size_t w, i;

	if (n <= 8 || !(buf = malloc(n * size)))
		return insertion(base, n, size, cmp, arg);
	for (i = 0; i < n; i += 8)
		insertion(src + i * size, n - i < 8 ? n - i : 8, size, cmp, arg);
	dst = buf;
	for (w = 8; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			char *l = src + i * size, *le = src + (i + w < n ? i + w : n) * size;
			char *r = le, *re = src + (i + 2 * w < n ? i + 2 * w : n) * size;
			char *o = dst + i * size;

			while (l < le || r < re) {
				/* the left run first on ties: stable */
				char **from = r == re || (l < le && cmp(l, r, arg) <= 0) ? &l : &r;
				memcpy(o, *from, size);
				*from += size;
				o += size;
			}
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(buf);
}

static int plain(const void *a, const void *b, void *cmp)
{
	return ((int (*)(const void *, const void *))cmp)(a, b);
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	qsort_r(base, n, size, plain, (void *)cmp);
}

char *strstr(const char *h, const char *n)
{
	return memmem(h, strlen(h), n, strlen(n));
}

static int digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 32;
	return c >= 'a' && c <= 'z' ? c - 'a' + 10 : 36;
}

/* The number at s, as C's strto* read it: white space, a sign, "0x" or
 * "0" choosing the base when it is 0 (or "0x" allowed when it is 16), the
 * digits. smax: the largest positive value of a signed type (its
 * negative limit one more), or 0 for an unsigned one whose largest is
 * umax. The magnitude is returned, *neg set for a '-'; *end past the last
 * digit, or s when there was none. */
static unsigned long long scan(const char *s, char **end, int base, unsigned long long umax,
			       unsigned long long smax, int *neg)
{
	const char *p = s, *first;
	unsigned long long v = 0, max;
	int d, over = 0;

	while (*p == ' ' || (unsigned)(*p - '\t') < 5)
		p++;
	*neg = *p == '-';
	p += *p == '-' || *p == '+';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 32) == 'x' && digit(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (!base) {
		base = *p == '0' ? 8 : 10;
	}
	if (base < 2 || base > 36) {
		errno = EINVAL;
		if (end)
			*end = (char *)s;
		return *neg = 0;
	}
	max = smax ? smax + (unsigned)*neg : umax;
	for (first = p; (d = digit(*p)) < base; p++) {
		if (v > (max - (unsigned)d) / (unsigned)base)
			over = 1;
		else
			v = v * (unsigned)base + (unsigned)d;
	}
	if (end)
		*end = (char *)(p == first ? s : p);
	if (over) {
		errno = ERANGE;
		*neg = *neg && smax; /* an unsigned type's overflow is its largest value */
		return max;
	}
	return v;
}

static long long to_signed(unsigned long long v, int neg)
{
	return neg ? (v ? -(long long)(v - 1) - 1 : 0) : (long long)v;
}

long strtol(const char *restrict s, char **restrict end, int base)
{
	int neg;
	unsigned long long v = scan(s, end, base, 0, LONG_MAX, &neg);

	return (long)to_signed(v, neg);
}

long long strtoll(const char *restrict s, char **restrict end, int base)
{
	int neg;
	unsigned long long v = scan(s, end, base, 0, LLONG_MAX, &neg);

	return to_signed(v, neg);
}

unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
	int neg;
	unsigned long long v = scan(s, end, base, ULONG_MAX, 0, &neg);

	return (unsigned long)(neg ? 0 - v : v);
}

unsigned long long strtoull(const char *restrict s, char **restrict end, int base)
{
	int neg;
	unsigned long long v = scan(s, end, base, ULLONG_MAX, 0, &neg);

	return neg ? 0 - v : v;
}

/* A dotted quad that ends the string: 1 with its 4 bytes in a, else 0. */
static int pton4(const char *s, unsigned char *a)
{
	int i, k, v;

	for (i = 0; i < 4; i++, s += k + 1) {
		for (k = v = 0; k < 3 && s[k] >= '0' && s[k] <= '9'; k++)
			v = v * 10 + s[k] - '0';
		if (!k || (k > 1 && *s == '0') || v > 255 || s[k] != (i < 3 ? '.' : 0))
			return 0;
		a[i] = (unsigned char)v;
	}
	return 1;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10
										   : -1;
}

static int pton6(const char *s, unsigned char *a)
{
	unsigned g[8];
	int n = 0, gap = -1, k, v, i;

	if (*s == ':') {
		if (*++s != ':')
			return 0;
		gap = 0;
		s++;
	}
	while (*s) {
		if (n == 8)
			return 0;
		if (n <= 6 && memchr(s, '.', strcspn(s, ":"))) { /* a dotted tail */
			if (!pton4(s, a))
				return 0;
			g[n++] = (unsigned)a[0] << 8 | a[1];
			g[n++] = (unsigned)a[2] << 8 | a[3];
			break;
		}
		for (k = v = 0; k < 4 && hexval(s[k]) >= 0; k++)
			v = v * 16 + hexval(s[k]);
		if (!k)
			return 0;
		g[n++] = (unsigned)v;
		s += k;
		if (!*s)
			break;
		if (*s++ != ':')
			return 0;
		if (*s == ':') {
			if (gap >= 0)
				return 0;
			gap = n;
			s++;
		} else if (!*s)
			return 0;
	}
	if (gap < 0 ? n != 8 : n == 8)
		return 0;
	for (i = 7, k = n - 1; gap >= 0 && k >= gap; i--, k--)
		g[i] = g[k]; /* the groups after "::" to the end, zeros before */
	for (; gap >= 0 && i >= gap; i--)
		g[i] = 0;
	for (i = 0; i < 8; i++) {
		a[2 * i] = (unsigned char)(g[i] >> 8);
		a[2 * i + 1] = (unsigned char)g[i];
	}
	return 1;
}

int inet_pton(int af, const char *restrict s, void *restrict a)
{
	unsigned char b[16];

	if (af == AF_INET)
		return pton4(s, a);
	if (af != AF_INET6) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (!pton6(s, b))
		return 0;
	memcpy(a, b, 16);
	return 1;
}

const char *inet_ntop(int af, const void *restrict src, char *restrict out, socklen_t size)
{
	const unsigned char *a = src;
	char buf[48], *p = buf;
	int i, n = 8, run = 0, best = -1, blen = 1;

	if (af == AF_INET) {
		snprintf(buf, sizeof(buf), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	} else if (af == AF_INET6) {
		if (!memcmp(a, "\0\0\0\0\0\0\0\0\0\0\377\377", 12))
			n = 6; /* a mapped IPv4 address: its last four bytes dotted */
		for (i = 0; i < n; i++) {
			run = a[2 * i] | a[2 * i + 1] ? 0 : run + 1;
			if (run > blen) {
				blen = run;
				best = i - run + 1;
			}
		}
		for (i = 0; i < n; i++) {
			if (i == best) {
				p = stpcpy(p, i ? ":" : "::");
				i += blen - 1;
				continue;
			}
			p += sprintf(p, "%x%s", a[2 * i] << 8 | a[2 * i + 1],
				     i < n - 1 || n == 6 ? ":" : "");
		}
		*p = 0;
		if (n == 6)
			sprintf(p, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
	} else {
		errno = EAFNOSUPPORT;
		return NULL;
	}
	if (strlen(buf) >= size) {
		errno = ENOSPC;
		return NULL;
	}
	return strcpy(out, buf);
}
#endif
