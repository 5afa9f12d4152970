/* malloc_test.c - the allocator (lib/libc_own.c in the static build, the
 * C library's in the sanitizer pass): random malloc, realloc and free of
 * sizes on both sides of every class edge and of the 128 KiB line, each
 * block filled with its own pattern and checked before it is changed or
 * freed; every pointer 16-aligned; calloc zero on a reused block and
 * refusing an overflowing count; realloc keeping its bytes across the
 * line both ways; four threads at once, each on blocks of its own; and
 * fork beside threads in malloc, the child able to allocate. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"

#define SLOTS 1500

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

struct slot {
	unsigned char *p;
	size_t n;
	unsigned char fill;
};

static unsigned next(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* Mostly small, some around the class edges, a few past 128 KiB; never
 * 0 (realloc(p, 0) is the C library's to define: glibc frees p). */
static size_t pick(unsigned *seed)
{
	unsigned r = next(seed) % 100;

	if (r < 60)
		return 1 + next(seed) % 200;
	if (r < 85)
		return 1 + next(seed) % 5000;
	if (r < 97)
		return ((size_t)1 << (7 + next(seed) % 11)) + next(seed) % 5 - 2;
	return 100000 + next(seed) % 400000;
}

static size_t bad_at(const struct slot *s, size_t upto)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (s->p[i] != (unsigned char)(s->fill + i * 7))
			return i + 1;
	return 0;
}

static void fill(struct slot *s, size_t from)
{
	size_t i;

	for (i = from; i < s->n; i++)
		s->p[i] = (unsigned char)(s->fill + i * 7);
}

struct run {
	unsigned seed, ops;
	long bad, unaligned, failed;
};

static void *churn(void *arg)
{
	struct run *r = arg;
	static __thread struct slot s[SLOTS];
	unsigned k, i;

	for (k = 0; k < r->ops; k++) {
		struct slot *t = &s[next(&r->seed) % SLOTS];
		unsigned op = next(&r->seed) % 3;
		if (t->p && bad_at(t, t->n))
			r->bad++;
		if (!t->p || op == 0) {
			free(t->p);
			t->n = pick(&r->seed);
			t->fill = (unsigned char)next(&r->seed);
			if (!(t->p = malloc(t->n))) {
				r->failed++;
				continue;
			}
			fill(t, 0);
		} else if (op == 1) {
			size_t n = pick(&r->seed), keep = n < t->n ? n : t->n;
			unsigned char *q = realloc(t->p, n);
			if (!q) {
				r->failed++;
				continue;
			}
			t->p = q;
			if (bad_at(t, keep))
				r->bad++;
			t->n = n;
			fill(t, keep);
		} else {
			free(t->p);
			t->p = NULL;
		}
		if (t->p && ((uintptr_t)t->p & 15))
			r->unaligned++;
	}
	for (i = 0; i < SLOTS; i++) {
		if (s[i].p && bad_at(&s[i], s[i].n))
			r->bad++;
		free(s[i].p);
		s[i].p = NULL;
	}
	return NULL;
}

static volatile int stop; /* read by the spinning threads */

static void *spin(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	while (!stop)
		free(malloc(1 + next(&seed) % 300));
	return NULL;
}

int main(void)
{
	struct run one = {1, 300000, 0, 0, 0}, four[4];
	pthread_t t[4];
	unsigned char *p, *q;
	size_t n, i;
	int k, zero_bad = 0, st, hung = 0;
	volatile size_t huge = SIZE_MAX; /* not a constant: the compiler would refuse the calls */

	churn(&one);
	unit_check_int("malloc.single.patterns", 0, one.bad);
	unit_check_int("malloc.single.aligned", 0, one.unaligned);
	unit_check_int("malloc.single.failed", 0, one.failed);

	for (k = 0; k < 4; k++) {
		four[k] = (struct run){100u + (unsigned)k, 150000, 0, 0, 0};
		pthread_create(&t[k], NULL, churn, &four[k]);
	}
	for (k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	unit_check_int("malloc.threads.patterns", 0,
		       four[0].bad + four[1].bad + four[2].bad + four[3].bad);
	unit_check_int("malloc.threads.failed", 0,
		       four[0].failed + four[1].failed + four[2].failed + four[3].failed);

	/* calloc on blocks that were just dirtied and freed */
	for (n = 1; n < 3000; n += 37) {
		p = malloc(n);
		memset(p, 0xff, n);
		free(p);
		q = calloc(n, 1);
		for (i = 0; i < n; i++)
			zero_bad += q[i] != 0;
		free(q);
	}
	p = malloc(300000);
	memset(p, 0xff, 300000);
	free(p);
	q = calloc(3, 100000);
	for (i = 0; i < 300000; i++)
		zero_bad += q[i] != 0;
	free(q);
	unit_check_int("malloc.calloc_zero", 0, zero_bad);
#if defined(__SANITIZE_ADDRESS__) || UNDER_ASAN
	/* the sanitizer's allocator has its own rules for these */
	printf("skip malloc.calloc_overflow: the sanitizer's allocator\n");
	printf("skip malloc.too_large: the sanitizer's allocator\n");
	(void)huge;
#else
	errno = 0;
	p = calloc(huge / 2, 3);
	unit_check_int("malloc.calloc_overflow", ENOMEM, p ? -1 : errno);
	errno = 0;
	p = malloc(huge - 100);
	unit_check_int("malloc.too_large", ENOMEM, p ? -1 : errno);
#endif

	/* realloc across the 128 KiB line, up and down */
	{
		struct slot s = {malloc(100), 100, 42};
		static const size_t steps[] = {200000, 5000000, 131072, 131073, 50, 1, 70000};
		long bad = 0;
		fill(&s, 0);
		for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			size_t keep = steps[i] < s.n ? steps[i] : s.n;
			s.p = realloc(s.p, steps[i]);
			if (!s.p || bad_at(&s, keep)) {
				bad++;
				break;
			}
			s.n = steps[i];
			fill(&s, keep);
		}
		free(s.p);
		unit_check_int("malloc.realloc_across", 0, bad);
	}

	/* fork while other threads allocate: the child can still allocate */
	for (k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, spin, (void *)(uintptr_t)(k + 7));
	for (k = 0; k < 40; k++) {
		pid_t pid = fork();
		if (!pid) {
			alarm(10);
			for (i = 0; i < 1000; i++)
				free(malloc(i + 1));
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			hung++;
	}
	stop = 1;
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	unit_check_int("malloc.fork_child_allocates", 0, hung);
	return unit_failed;
}
