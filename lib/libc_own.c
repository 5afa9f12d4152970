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
 * inet_pton and inet_ntop: IPv4 dotted quads (no leading zeros) and IPv6
 * with "::" and a dotted tail; out, RFC 5952's form (the first longest
 * run of two or more zero groups as "::", ::ffff:a.b.c.d for a mapped
 * IPv4). 0.6 KB in place of 1.7.
 *
 * Like lib/fmt.c's printf family, only in the static build (-DWFS_OWN_
 * PRINTF), where they take the C library's place; tests/unit/sort_test.c
 * checks the sort on random arrays, the callers' tests the rest. */
#include <errno.h>
#include <stdio.h>
#include "libc_own.h"

#ifdef WFS_OWN_PRINTF
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
