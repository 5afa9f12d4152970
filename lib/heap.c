/* heap.c - malloc, free, calloc and realloc for the static binary, in
 * place of musl's.
 *
 * Every block has a 16-byte header: its usable size and its class. Up to
 * 128 KiB a request is rounded to one of 48 classes (16 to 128 bytes in
 * steps of 16, then four steps each doubling) and served from the class's
 * free list, or cut from a 1 MiB mapped region; a freed block goes back
 * on its list, for the next request of its class (never back to the
 * kernel: this program's big memory is arenas and buffers, which are
 * above 128 KiB). Above 128 KiB a block is a mapping of its own, unmapped
 * when freed, grown and shrunk by mremap. One lock (a futex) for all;
 * fork takes it, so a child forked beside a thread in malloc finds it
 * free. musl's allocator (mallocng) is 8 KB; this is about 1.
 *
 * The lock is pthread's mutex, defined here too (below), in place of
 * musl's.
 *
 * Like lib/fmt.c's printf family, only in the static build (-DWFS_OWN_
 * PRINTF); tests/unit/malloc_test.c and lock_test.c check it (and the C
 * library's in the sanitizer pass). */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "heap.h"

#ifdef WFS_OWN_PRINTF

#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#define MA_HDR 16
/* Blocks of 1 KiB and more, and mappings, start on 64 bytes (the header
 * in the 16 before): the kernel's copies into a read buffer are a third
 * slower to an address that is not (rep movsb). */
#define MA_LINE 64
#define MA_LINE_SIZE 1024
#define MA_BIG ((size_t)128 << 10)
#define MA_NCLASS 48
#define MA_MAPPED ((size_t)-1)
#define MA_REGION ((size_t)1 << 20)

struct ma_hdr {
	size_t size;                /* usable bytes */
	size_t cls;                 /* class, or MA_MAPPED */
} __attribute__((aligned(MA_HDR))); /* 16 bytes on 32-bit platforms too */

_Static_assert(sizeof(struct ma_hdr) == MA_HDR, "a block's header is MA_HDR bytes");

static void *ma_free_list[MA_NCLASS];
static char *ma_cur, *ma_end; /* the region being cut */
/* pthread's mutexes, plain ones (what we use), in place of musl's: a
 * futex word, the first int of pthread_mutex_t (its static initializer is
 * zeros): 0 free, 1 held, 2 held with waiters (Drepper's "Futexes Are
 * Tricky"). lib/libc_own.c's condition variables wait with them. */
int pthread_mutex_init(pthread_mutex_t *restrict m, const pthread_mutexattr_t *restrict a)
{
	(void)a;
	memset(m, 0, sizeof(*m));
	return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	(void)m;
	return 0;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	int *w = (int *)m, c = 0;

	if (__atomic_compare_exchange_n(w, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	if (c != 2)
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	while (c) {
		syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 2, NULL);
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	}
	return 0;
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int *w = (int *)m;

	if (__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) == 2)
		syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1);
	return 0;
}

static pthread_mutex_t ma_lk = PTHREAD_MUTEX_INITIALIZER;

static void ma_lock(void)
{
	pthread_mutex_lock(&ma_lk);
}

static void ma_unlock(void)
{
	pthread_mutex_unlock(&ma_lk);
}

/* musl's fork: -1 before, 0 in the parent after, 1 in the child */
void __malloc_atfork(int who)
{
	if (who < 0)
		ma_lock();
	else if (who == 0)
		ma_unlock();
	else
		pthread_mutex_init(&ma_lk, NULL); /* the child's only thread */
}

/* n (1 to MA_BIG) -> its class */
static unsigned ma_class(size_t n)
{
	unsigned lg;

	if (n <= 128)
		return (unsigned)((n + 15) / 16 - 1);
	lg = 63u - (unsigned)__builtin_clzll((unsigned long long)n - 1);
	return 8 + (lg - 7) * 4 + (unsigned)((n - 1 - ((size_t)1 << lg)) >> (lg - 2));
}

static size_t ma_class_size(unsigned c)
{
	unsigned lg;

	if (c < 8)
		return (size_t)(c + 1) * 16;
	c -= 8;
	lg = 7 + c / 4;
	return ((size_t)1 << lg) + (size_t)(c % 4 + 1) * ((size_t)1 << (lg - 2));
}

static void *ma_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A block of at least n bytes: its header, or NULL */
static struct ma_hdr *ma_alloc(size_t n)
{
	struct ma_hdr *h;
	size_t size, len;
	unsigned c;

	if (!n)
		n = 1;
	if (n > MA_BIG) {
		if (n > PTRDIFF_MAX - 2 * 4096) {
			errno = ENOMEM;
			return NULL;
		}
		len = (n + MA_LINE + 4095) & ~(size_t)4095;
		if ((h = ma_map(len))) {
			h = (struct ma_hdr *)((char *)h + MA_LINE - MA_HDR);
			h->size = len - MA_LINE;
			h->cls = MA_MAPPED;
		}
		return h;
	}
	c = ma_class(n);
	size = ma_class_size(c);
	ma_lock();
	if ((h = ma_free_list[c])) {
		ma_free_list[c] = *(void **)(h + 1);
		ma_unlock();
		return h;
	}
	for (;;) {
		uintptr_t at = (uintptr_t)ma_cur;
		char *r;
		if (size >= MA_LINE_SIZE) /* the header at the end of a line */
			at += -(at + MA_HDR) & (MA_LINE - 1);
		if (ma_cur && at + MA_HDR + size <= (uintptr_t)ma_end) {
			h = (struct ma_hdr *)at;
			ma_cur = (char *)(at + MA_HDR + size);
			break;
		}
		if (!(r = ma_map(MA_REGION))) {
			ma_unlock();
			return NULL;
		}
		ma_cur = r;
		ma_end = r + MA_REGION;
	}
	ma_unlock();
	h->size = size;
	h->cls = c;
	return h;
}

void *malloc(size_t n)
{
	struct ma_hdr *h = ma_alloc(n);

	return h ? h + 1 : NULL;
}

void free(void *p)
{
	struct ma_hdr *h = (struct ma_hdr *)p - 1;

	if (!p)
		return;
	if (h->cls == MA_MAPPED) {
		munmap((char *)h - (MA_LINE - MA_HDR), h->size + MA_LINE);
		return;
	}
	ma_lock();
	*(void **)p = ma_free_list[h->cls];
	ma_free_list[h->cls] = h;
	ma_unlock();
}

void *calloc(size_t m, size_t n)
{
	struct ma_hdr *h;

	if (n && m > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	if (!(h = ma_alloc(n *= m)))
		return NULL;
	if (h->cls != MA_MAPPED) /* a new mapping is zeros already */
		memset(h + 1, 0, n);
	return h + 1;
}

void *realloc(void *p, size_t n)
{
	struct ma_hdr *h = (struct ma_hdr *)p - 1;
	void *q;

	if (!p)
		return malloc(n);
	if (h->cls == MA_MAPPED && n > MA_BIG && n <= PTRDIFF_MAX - 2 * 4096) {
		size_t len = (n + MA_LINE + 4095) & ~(size_t)4095;
		if (len == h->size + MA_LINE)
			return p;
		q = mremap((char *)h - (MA_LINE - MA_HDR), h->size + MA_LINE, len, MREMAP_MAYMOVE);
		if (q == MAP_FAILED)
			return n <= h->size ? p : NULL;
		h = (struct ma_hdr *)((char *)q + MA_LINE - MA_HDR);
		h->size = len - MA_LINE;
		return h + 1;
	}
	/* kept where it is while it fits and is not mostly waste */
	if (h->cls != MA_MAPPED && n <= h->size && n > h->size / 2)
		return p;
	if (!(q = malloc(n)))
		return NULL;
	memcpy(q, p, n < h->size ? n : h->size);
	free(p);
	return q;
}

/* musl's own calls to its allocator (atexit, the time zone) come here
 * too; and a second definition of its allocator's entry fails the link
 * should anything ever bring mallocng back. */
void *__libc_malloc(size_t n) __attribute__((alias("malloc"), copy(malloc)));
void *__libc_malloc_impl(size_t n) __attribute__((alias("malloc"), copy(malloc)));
void __libc_free(void *p) __attribute__((alias("free"), copy(free)));
void *__libc_calloc(size_t m, size_t n) __attribute__((alias("calloc"), copy(calloc)));
void *__libc_realloc(void *p, size_t n) __attribute__((alias("realloc"), copy(realloc)));
#endif
