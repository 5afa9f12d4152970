/* sort_test.c - qsort and qsort_r (lib/libc_own.c in the static build, the C
 * library's in the sanitizer pass) on random arrays: sizes around the
 * insertion runs and merge widths, many equal keys, elements of 1, 4, 12
 * and 40 bytes; each result in order and a permutation of the input. */
#include <stdlib.h>
#include <string.h>
#include "unit.h"

struct rec {
	unsigned key, seq;
	char pad[32];
};

static unsigned seed = 777;

static unsigned next(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

static int by_key(const void *a, const void *b)
{
	unsigned x = ((const struct rec *)a)->key, y = ((const struct rec *)b)->key;
	return x < y ? -1 : x > y;
}

static int by_seq(const void *a, const void *b)
{
	unsigned x = ((const struct rec *)a)->seq, y = ((const struct rec *)b)->seq;
	return x < y ? -1 : x > y;
}

static int by_byte_r(const void *a, const void *b, void *dir)
{
	return (*(const unsigned char *)a - *(const unsigned char *)b) * *(int *)dir;
}

static int by_u32(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	static const size_t sizes[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4097, 30000};
	int bad_rec = 0, bad_byte = 0, bad_u32 = 0;
	size_t s, i;

	for (s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
		size_t n = sizes[s];
		struct rec *r = malloc((n + 1) * sizeof(*r));
		unsigned char *b = malloc(n + 1);
		unsigned *u = malloc((n + 1) * sizeof(*u)), *u2 = malloc((n + 1) * sizeof(*u));
		unsigned mod = s % 2 ? 5 : 1000000; /* many ties, or few */
		int down = -1;

		for (i = 0; i < n; i++) {
			r[i].key = next() % mod;
			r[i].seq = (unsigned)i;
			memset(r[i].pad, (int)i, sizeof(r[i].pad));
			b[i] = (unsigned char)next();
			u[i] = u2[i] = next() % mod;
		}
		qsort(r, n, sizeof(*r), by_key);
		for (i = 1; i < n; i++)
			bad_rec += r[i - 1].key > r[i].key;
		qsort(r, n, sizeof(*r), by_seq); /* back: every seq once, its pad intact */
		for (i = 0; i < n; i++)
			bad_rec += r[i].seq != i || r[i].pad[31] != (char)i;
		qsort_r(b, n, 1, by_byte_r, &down);
		for (i = 1; i < n; i++)
			bad_byte += b[i - 1] < b[i];
		qsort(u, n, sizeof(*u), by_u32);
		for (i = 1; i < n; i++) /* in order, and the same multiset: */
			bad_u32 += u[i - 1] > u[i];
		for (i = 0; i < n; i++) /* each original value is found */
			bad_u32 += !bsearch(&u2[i], u, n, sizeof(*u), by_u32);
		free(r);
		free(b);
		free(u);
		free(u2);
	}
	unit_check_int("sort.records", 0, bad_rec);
	unit_check_int("sort.bytes_r_descending", 0, bad_byte);
	unit_check_int("sort.u32", 0, bad_u32);
	return unit_failed;
}
