/* arena_test.c - the per-request bump allocator */
#include <stdint.h>
#include <stdlib.h>
#include "arena.h"
#include "unit.h"

int main(void)
{
	struct arena a;
	unsigned char *ptrs[2000];
	size_t sizes[2000], i, k;
	int misaligned = 0, overlap = 0, nulls = 0;

	arena_init(&a);
	unit_check_int("arena.init.empty", 0, (long long)a.total);

	/* Sizes from 0 to 5000: each 16-byte aligned, writable, disjoint. */
	for (i = 0; i < 2000; i++) {
		sizes[i] = (i * 7919) % 5001;
		ptrs[i] = arena_alloc(&a, sizes[i]);
		if (!ptrs[i]) {
			nulls++;
			continue;
		}
		if ((uintptr_t)ptrs[i] % 16)
			misaligned++;
		memset(ptrs[i], (int)(i & 255), sizes[i]);
	}
	for (i = 0; i < 2000; i++)
		for (k = 0; ptrs[i] && k < sizes[i]; k++)
			if (ptrs[i][k] != (unsigned char)(i & 255)) {
				overlap++;
				break;
			}
	unit_check_int("arena.alloc.non_null", 0, nulls);
	unit_check_int("arena.alloc.aligned16", 0, misaligned);
	unit_check_int("arena.alloc.disjoint", 0, overlap);
	unit_check_int("arena.total.grows", 1, a.total >= 2000 * 2500 / 2);

	/* Zero bytes still give a distinct, aligned pointer. */
	{
		void *p = arena_alloc(&a, 0), *q = arena_alloc(&a, 0);
		unit_check_int("arena.alloc.zero", 1,
			       p && q && p != q && (uintptr_t)p % 16 == 0);
	}

	/* Big allocations: bigger than any chunk, usable to the last byte,
	 * and the small allocations around them keep working. */
	{
		size_t big[] = {8192, 8193, 65536, 1 << 20, 16 << 20};
		int ok = 1;
		for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
			unsigned char *small1 = arena_alloc(&a, 24);
			unsigned char *p = arena_alloc(&a, big[i]);
			unsigned char *small2 = arena_alloc(&a, 24);
			if (!p || !small1 || !small2 || (uintptr_t)p % 16) {
				ok = 0;
				break;
			}
			memset(small1, 1, 24);
			memset(p, 2, big[i]);
			memset(small2, 3, 24);
			if (small1[23] != 1 || p[0] != 2 || p[big[i] - 1] != 2 ||
			    small2[0] != 3)
				ok = 0;
		}
		unit_check_int("arena.alloc.big", 1, ok);
	}

	/* Sizes that overflow when rounded up must fail, not wrap. */
	unit_check_int("arena.alloc.overflow[SIZE_MAX]", 1, arena_alloc(&a, SIZE_MAX) == NULL);
	unit_check_int("arena.alloc.overflow[SIZE_MAX-1]", 1, arena_alloc(&a, SIZE_MAX - 1) == NULL);
	unit_check_int("arena.alloc.overflow[SIZE_MAX-15]", 1, arena_alloc(&a, SIZE_MAX - 15) == NULL);
	unit_check_int("arena.alloc.overflow[SIZE_MAX-40]", 1, arena_alloc(&a, SIZE_MAX - 40) == NULL);

	arena_free(&a);
	unit_check_int("arena.free.total", 0, (long long)a.total);

	/* Strings. */
	{
		char *s = arena_strdup(&a, "hello");
		char *t = arena_strndup(&a, "abcdef", 3);
		char *u = arena_strndup(&a, "a\0b", 3);
		char *p = arena_printf(&a, "%s-%d-%05x", "x", 42, 0x3fu);
		unit_check_str("arena.strdup", "hello", s);
		unit_check_str("arena.strndup", "abc", t);
		unit_check_int("arena.strndup.nul", 1, u && u[0] == 'a' && u[1] == 0 && u[2] == 'b' && u[3] == 0);
		unit_check_str("arena.printf", "x-42-0003f", p);
	}
	{
		/* Output longer than a chunk. */
		char *big = malloc(100001), *p;
		memset(big, 'z', 100000);
		big[100000] = 0;
		p = arena_printf(&a, "<%s>", big);
		unit_check_int("arena.printf.long", 1,
			       p && strlen(p) == 100002 && p[0] == '<' && p[100001] == '>' &&
				       p[50000] == 'z');
		free(big);
	}
	arena_free(&a);
	/* Reusable after free. */
	{
		char *s = arena_strdup(&a, "again");
		unit_check_str("arena.reuse", "again", s);
		arena_free(&a);
		arena_free(&a); /* twice is harmless */
		unit_ok("arena.free.twice");
	}
	return unit_done();
}
