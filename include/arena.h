/* arena.h - per-request bump allocator: everything is freed at once */
#ifndef WFS_ARENA_H
#define WFS_ARENA_H

#include <stddef.h>

struct arena_chunk;
struct arena {
	struct arena_chunk *head;
	size_t total;              /* bytes held, for limits and tests */
	struct arena_chunk *fixed; /* arena_init_mem's: never freed */
};

void arena_init(struct arena *a);
/* An arena whose first chunk is mem (size bytes, 16-byte aligned, not
 * freed by the arena, kept across arena_free and arena_reset): a one-shot
 * process allocates nothing for a small request. */
void arena_init_mem(struct arena *a, void *mem, size_t size);
/* Free every chunk; the arena is empty and reusable afterwards. */
void arena_free(struct arena *a);
/* Empty the arena but keep one standard chunk (or the fixed one), for
 * reuse without malloc (the daemon recycles request arenas). */
void arena_reset(struct arena *a);
/* Returns NULL only when malloc fails. Memory is 16-byte aligned. */
void *arena_alloc(struct arena *a, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* The one way to grow an array in the arena: make the array at *arrp
 * (a pointer to the array pointer) hold need elements of size sz,
 * doubling its capacity *cap from 8 and copying what it held. 0, or -1
 * when out of memory (the array is left as it was). */
int arena_grow(struct arena *a, void *arrp, size_t *cap, size_t need,
	       size_t sz);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
