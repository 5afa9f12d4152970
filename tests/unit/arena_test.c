/* arena_test.c - the per-request bump allocator */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "buf.h"
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

	/* A fixed first chunk (the one-shot CLI's): small requests come from
	 * it, big ones spill into malloc'd chunks, and free and reset keep it
	 * (ASan reports a free of it: static memory). */
	{
		static _Alignas(16) unsigned char mem[1024];
		unsigned char *p, *q, *r;

		arena_init_mem(&a, mem, sizeof(mem));
		p = arena_alloc(&a, 100);
		unit_check_int("arena.mem.first", 1, p >= mem && p + 100 <= mem + sizeof(mem));
		q = arena_alloc(&a, 4000);
		r = arena_alloc(&a, 600);
		unit_check_int("arena.mem.spill", 1,
			       q && r && (q < mem || q >= mem + sizeof(mem)));
		memset(q, 1, 4000);
		arena_reset(&a);
		p = arena_alloc(&a, 16);
		unit_check_int("arena.mem.reset_keeps", 1, p >= mem && p < mem + sizeof(mem));
		arena_alloc(&a, 9000);
		arena_free(&a);
		p = arena_alloc(&a, 16);
		unit_check_int("arena.mem.free_keeps", 1, p >= mem && p < mem + sizeof(mem));
		unit_check_int("arena.mem.total", 1, a.total > 0 && a.total <= sizeof(mem));
		arena_free(&a);
	}
	{
		static char mem[8];
		struct buf b;

		buf_init_mem(&b, mem, sizeof(mem));
		buf_puts(&b, "abc");
		unit_check_int("buf.mem.in_place", 1, b.p == mem && b.len == 3 && !strcmp(mem, "abc"));
		buf_puts(&b, "defghijkl");
		unit_check_int("buf.mem.copied_out", 1,
			       b.p != mem && b.len == 12 && !strcmp(b.p, "abcdefghijkl"));
		buf_free(&b);
		buf_init_mem(&b, mem, sizeof(mem));
		buf_free(&b); /* never freed while it is mem */
		unit_ok("buf.mem.free");
	}
	return unit_done();
}
