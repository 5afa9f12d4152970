/* arena.c - per-request bump allocator */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"

#define ARENA_CHUNK 8192
#define ARENA_ALIGN 16

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

void arena_init(struct arena *a)
{
	a->head = a->fixed = NULL;
	a->total = 0;
}

/* Empty: only keep (if any) is left, the arena's fixed memory or not. */
static void restart(struct arena *a, struct arena_chunk *keep)
{
	struct arena_chunk *fixed = a->fixed;

	arena_init(a);
	a->fixed = fixed;
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
		a->head = keep;
		a->total = keep->size;
	}
}

void arena_init_mem(struct arena *a, void *mem, size_t size)
{
	struct arena_chunk *c = mem;

	arena_init(a);
	if (size <= sizeof(*c))
		return;
	c->size = (size - sizeof(*c)) & ~(size_t)(ARENA_ALIGN - 1);
	a->fixed = c;
	restart(a, c);
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		if (c != a->fixed)
			free(c);
	}
	restart(a, a->fixed);
}

void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	size_t size;
	void *p;

	if (n > SIZE_MAX / 2)
		return NULL; /* no such allocation can succeed: avoid wrapping */
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (!n)
		n = ARENA_ALIGN;
	if (c && c->size - c->used >= n) {
		p = c->data + c->used;
		c->used += n;
		return p;
	}
	/* Big requests get a chunk of their own, behind the current one, so
	 * the space left in the current chunk is not wasted. */
	size = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
	c = malloc(sizeof(*c) + size);
	if (!c)
		return NULL;
	c->size = size;
	c->used = n;
	a->total += size;
	if (size == n && a->head) {
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = a->head;
		a->head = c;
	}
	return c->data;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(p = arena_alloc(a, (size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void arena_reset(struct arena *a)
{
	struct arena_chunk *c = a->head, *next, *keep = a->fixed;

	for (; c; c = next) {
		next = c->next;
		if (c == a->fixed)
			continue;
		if (!keep && c->size == ARENA_CHUNK)
			keep = c;
		else
			free(c);
	}
	restart(a, keep);
}

int arena_grow(struct arena *a, void *arrp, size_t *cap, size_t need,
	       size_t sz)
{
	size_t nc = *cap ? *cap : 8;
	void *old, *fresh;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	if (nc > (size_t)-1 / 2 / sz)
		return -1;
	fresh = arena_alloc(a, nc * sz);
	if (!fresh)
		return -1;
	memcpy(&old, arrp, sizeof(old));
	if (*cap)
		memcpy(fresh, old, *cap * sz);
	memcpy(arrp, &fresh, sizeof(fresh));
	*cap = nc;
	return 0;
}
