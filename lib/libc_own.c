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
 * Like lib/fmt.c's printf family, only in the static build (-DWFS_OWN_
 * PRINTF), where they take the C library's place; tests/unit/sort_test.c
 * checks the sort on random arrays, the callers' tests the rest. */
#include <stdlib.h>
#include <string.h>

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
#endif
