/* lock_test.c - mutexes and condition variables (lib/libc_own.c's futex
 * ones in the static build, the C library's in the sanitizer pass):
 * threads counting under a mutex lose no increment; producers and
 * consumers on a small queue (wait, signal) pass every item once; a
 * broadcast wakes every waiter; a statically initialized mutex works. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "unit.h"

#define COUNTERS 4
#define ADDS 200000

static pthread_mutex_t counter_mu = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;

static void *count(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ADDS; i++) {
		pthread_mutex_lock(&counter_mu);
		counter = counter + 1; /* not atomic: only the mutex keeps it */
		pthread_mutex_unlock(&counter_mu);
	}
	return NULL;
}

#define CAP 4
#define PRODUCERS 3
#define CONSUMERS 3
#define ITEMS 30000

struct queue {
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
	unsigned items[CAP];
	int head, len, producing;
	unsigned long long sum;
	unsigned long taken;
};

static void *produce(void *arg)
{
	struct queue *q = arg;
	unsigned i;

	for (i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&q->mu);
		while (q->len == CAP)
			pthread_cond_wait(&q->not_full, &q->mu);
		q->items[(q->head + q->len++) % CAP] = i;
		pthread_cond_signal(&q->not_empty);
		pthread_mutex_unlock(&q->mu);
	}
	return NULL;
}

static void *consume(void *arg)
{
	struct queue *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->len && q->producing)
			pthread_cond_wait(&q->not_empty, &q->mu);
		if (!q->len)
			break;
		q->sum += q->items[q->head];
		q->head = (q->head + 1) % CAP;
		q->len--;
		q->taken++;
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

#define WAITERS 6

struct gate {
	pthread_mutex_t mu;
	pthread_cond_t open_cv;
	int open, waiting, through;
};

static void *wait_gate(void *arg)
{
	struct gate *g = arg;

	pthread_mutex_lock(&g->mu);
	g->waiting++;
	while (!g->open)
		pthread_cond_wait(&g->open_cv, &g->mu);
	g->through++;
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int main(void)
{
	pthread_t t[PRODUCERS + CONSUMERS + WAITERS + COUNTERS];
	struct queue q;
	struct gate g;
	int i, n;

	for (i = 0; i < COUNTERS; i++)
		pthread_create(&t[i], NULL, count, NULL);
	for (i = 0; i < COUNTERS; i++)
		pthread_join(t[i], NULL);
	if (counter == (unsigned long)COUNTERS * ADDS)
		unit_ok("lock.mutex_counts_all");
	else
		unit_fail("lock.mutex_counts_all", "%lu of %lu", counter,
			  (unsigned long)COUNTERS * ADDS);

	memset(&q, 0, sizeof(q));
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.not_empty, NULL);
	pthread_cond_init(&q.not_full, NULL);
	q.producing = 1;
	for (i = 0; i < CONSUMERS; i++)
		pthread_create(&t[i], NULL, consume, &q);
	for (i = 0; i < PRODUCERS; i++)
		pthread_create(&t[CONSUMERS + i], NULL, produce, &q);
	for (i = 0; i < PRODUCERS; i++)
		pthread_join(t[CONSUMERS + i], NULL);
	pthread_mutex_lock(&q.mu);
	q.producing = 0;
	pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.mu);
	for (i = 0; i < CONSUMERS; i++)
		pthread_join(t[i], NULL);
	if (q.taken == (unsigned long)PRODUCERS * ITEMS &&
	    q.sum == (unsigned long long)PRODUCERS * ITEMS * (ITEMS + 1) / 2)
		unit_ok("lock.cond_queue_every_item_once");
	else
		unit_fail("lock.cond_queue_every_item_once", "taken %lu, sum %llu", q.taken,
			  q.sum);
	pthread_cond_destroy(&q.not_empty);
	pthread_cond_destroy(&q.not_full);
	pthread_mutex_destroy(&q.mu);

	memset(&g, 0, sizeof(g));
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.open_cv, NULL);
	for (i = 0; i < WAITERS; i++)
		pthread_create(&t[i], NULL, wait_gate, &g);
	/* every waiter in its wait (or about to be) before the broadcast */
	for (n = 0; n < WAITERS;) {
		pthread_mutex_lock(&g.mu);
		n = g.waiting;
		pthread_mutex_unlock(&g.mu);
	}
	pthread_mutex_lock(&g.mu);
	g.open = 1;
	pthread_cond_broadcast(&g.open_cv);
	pthread_mutex_unlock(&g.mu);
	for (i = 0; i < WAITERS; i++)
		pthread_join(t[i], NULL);
	if (g.through == WAITERS)
		unit_ok("lock.broadcast_wakes_all");
	else
		unit_fail("lock.broadcast_wakes_all", "%d of %d", g.through, WAITERS);
	return unit_done();
}
