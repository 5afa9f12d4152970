/* slots_test.c - the ordered ring: jobs retired in the order queued however
 * they complete, entries reused round the ring, waits that end when they
 * should.
 *
 * The blocking checks assert what a waiter saw when it woke, never how
 * long it slept: a thread proves it was waiting by the ring's own count
 * (idle) or by a value written only after it blocked.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "slots.h"
#include "unit.h"

/* One thread, by hand: jobs 0..3 complete as 2, 0, 3, 1 and come out as
 * 0, 1, 2, 3. */
static void test_out_of_order(void)
{
	struct slots r;
	size_t j, got[4], ngot = 0, order[4] = {2, 0, 3, 1}, after[4];
	int i, head, ok = 1;

	if (slots_init(&r, 4, NULL)) {
		unit_fail("slots.order", "init");
		return;
	}
	slots_lock(&r);
	for (i = 0; i < 4; i++)
		slots_publish(&r);
	unit_check_int("slots.order.full", 1, slots_full(&r));
	for (i = 0; i < 4; i++) {
		if (slots_take(&r, &j) || j != (size_t)i)
			ok = 0;
	}
	unit_check_int("slots.order.taken_in_order", 1, ok);
	head = slots_head(&r, 0, &j);
	unit_check_int("slots.order.head_waits_for_job0", SLOTS_NONE, head);
	for (i = 0; i < 4; i++) {
		slots_complete(&r, order[i]);
		while (slots_head(&r, 0, &j) == SLOTS_DONE) {
			got[ngot++] = j;
			slots_retire(&r);
		}
		after[i] = ngot;
	}
	/* 2 done: none out (0 runs); 0: 0 out; 3: none; 1: 1, 2 and 3 */
	unit_check_int("slots.order.none_before_job0", 0, (long long)after[0]);
	unit_check_int("slots.order.job0_alone", 1, (long long)after[1]);
	unit_check_int("slots.order.held_behind_job1", 1, (long long)after[2]);
	unit_check_int("slots.order.count", 4, (long long)after[3]);
	ok = ngot == 4;
	for (i = 0; ok && i < 4; i++)
		ok = got[i] == (size_t)i;
	unit_check_int("slots.order.retired_in_queue_order", 1, ok);
	unit_check_int("slots.order.empty", SLOTS_NONE, slots_head(&r, 1, &j));
	unit_check_int("slots.order.not_full", 0, slots_full(&r));
	slots_unlock(&r);
	slots_destroy(&r);
}

/* Round the ring many times: job j in entry j % n, an entry free again
 * once its job is retired, at most n jobs in flight. */
static void test_wrap(void)
{
	enum {
		N = 3,
		JOBS = 20
	};
	struct slots r;
	size_t entry[N], j, next = 0;
	int i, ok = 1, max_in_flight = 0;

	if (slots_init(&r, N, NULL)) {
		unit_fail("slots.wrap", "init");
		return;
	}
	slots_lock(&r);
	for (i = 0; i < JOBS; i++) {
		int in_flight;
		if (slots_full(&r)) {
			/* the oldest in flight finishes last of all */
			size_t last = 0;
			while (r.taken < r.queued && !slots_take(&r, &j))
				last = j;
			for (j = r.retired + 1; j <= last; j++)
				slots_complete(&r, j);
			if (slots_head(&r, 0, &j) != SLOTS_NONE)
				ok = 0;
			slots_complete(&r, r.retired);
			while (slots_head(&r, 0, &j) == SLOTS_DONE) {
				if (j != next || entry[j % N] != j)
					ok = 0;
				next++;
				slots_retire(&r);
			}
		}
		if (slots_full(&r))
			ok = 0;
		entry[slots_next(&r) % N] = slots_next(&r);
		slots_publish(&r);
		in_flight = (int)(r.queued - r.retired);
		if (in_flight > max_in_flight)
			max_in_flight = in_flight;
	}
	while (r.taken < r.queued && !slots_take(&r, &j))
		slots_complete(&r, j);
	while (slots_head(&r, 0, &j) == SLOTS_DONE) {
		if (j != next || entry[j % N] != j)
			ok = 0;
		next++;
		slots_retire(&r);
	}
	unit_check_int("slots.wrap.each_job_in_its_entry", 1, ok);
	unit_check_int("slots.wrap.all_retired", JOBS, (long long)next);
	unit_check_int("slots.wrap.bounded", N, max_in_flight);
	slots_reset(&r);
	unit_check_int("slots.wrap.reset", 0, (long long)slots_next(&r));
	slots_unlock(&r);
	slots_destroy(&r);
}

/* ---- threads ---- */

struct shared {
	struct slots r;
	volatile int stop;
	int marker; /* written by the main thread under the lock */
	int seen;   /* what the waiter found in marker when it woke */
	int result;
	size_t job;  /* what the waiter got */
	size_t want; /* turn_wait: the job whose turn it waits for */
};

static void *take_one(void *arg)
{
	struct shared *s = arg;
	size_t j = 99;

	slots_lock(&s->r);
	s->result = slots_take(&s->r, &j);
	s->job = j;
	s->seen = s->marker;
	slots_unlock(&s->r);
	return NULL;
}

static void *head_wait(void *arg)
{
	struct shared *s = arg;
	size_t j = 99;

	slots_lock(&s->r);
	s->result = slots_head(&s->r, 1, &j);
	s->job = j;
	s->seen = s->marker;
	slots_unlock(&s->r);
	return NULL;
}

static void *turn_wait(void *arg)
{
	struct shared *s = arg;

	slots_lock(&s->r);
	slots_wait_turn(&s->r, s->want);
	s->job = s->r.retired;
	s->seen = s->marker;
	slots_unlock(&s->r);
	return NULL;
}

/* Until the ring counts n idle workers. */
static void wait_idle(struct shared *s, int n)
{
	for (;;) {
		int idle;
		slots_lock(&s->r);
		idle = s->r.idle;
		slots_unlock(&s->r);
		if (idle >= n)
			return;
		sched_yield();
	}
}

static int shared_init(struct shared *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	return slots_init(&s->r, n, &s->stop);
}

/* A worker on an empty ring sleeps until a job is queued; on a closed one
 * it leaves; stop ends its wait too. */
static void test_take_blocks(void)
{
	struct shared s;
	pthread_t t;

	if (shared_init(&s, 2)) {
		unit_fail("slots.take", "init");
		return;
	}
	pthread_create(&t, NULL, take_one, &s);
	wait_idle(&s, 1);
	slots_lock(&s.r);
	s.marker = 1;
	slots_publish(&s.r);
	slots_unlock(&s.r);
	pthread_join(t, NULL);
	unit_check_int("slots.take.wakes_on_publish", 0, s.result);
	unit_check_int("slots.take.woke_after_publish", 1, s.seen);
	unit_check_int("slots.take.job", 0, (long long)s.job);

	pthread_create(&t, NULL, take_one, &s);
	wait_idle(&s, 1);
	slots_lock(&s.r);
	s.marker = 2;
	slots_close(&s.r);
	slots_unlock(&s.r);
	pthread_join(t, NULL);
	unit_check_int("slots.take.close_ends_wait", -1, s.result);
	unit_check_int("slots.take.woke_after_close", 2, s.seen);
	slots_destroy(&s.r);

	if (shared_init(&s, 2)) {
		unit_fail("slots.take", "init");
		return;
	}
	pthread_create(&t, NULL, take_one, &s);
	wait_idle(&s, 1);
	slots_lock(&s.r);
	s.marker = 3;
	s.stop = 1;
	slots_wake(&s.r);
	slots_unlock(&s.r);
	pthread_join(t, NULL);
	unit_check_int("slots.take.stop_ends_wait", -1, s.result);
	unit_check_int("slots.take.woke_after_stop", 3, s.seen);
	slots_destroy(&s.r);
}

/* A full ring: the producer waits at the head for the oldest job, wakes
 * when a worker completes it, and then has room. */
static void test_full_blocks(void)
{
	struct shared s;
	pthread_t t;
	size_t j0, j1;

	if (shared_init(&s, 2)) {
		unit_fail("slots.full", "init");
		return;
	}
	slots_lock(&s.r);
	slots_publish(&s.r);
	slots_publish(&s.r);
	unit_check_int("slots.full.after_n", 1, slots_full(&s.r));
	slots_take(&s.r, &j0);
	slots_take(&s.r, &j1);
	slots_complete(&s.r, j1); /* the newer one first: no room yet */
	slots_unlock(&s.r);
	pthread_create(&t, NULL, head_wait, &s);
	/* whether it is asleep yet or not, it can only come back with job 0
	 * done, after the marker */
	slots_lock(&s.r);
	s.marker = 1;
	slots_complete(&s.r, j0);
	slots_unlock(&s.r);
	pthread_join(t, NULL);
	unit_check_int("slots.full.head_wakes_done", SLOTS_DONE, s.result);
	unit_check_int("slots.full.head_is_oldest", 0, (long long)s.job);
	unit_check_int("slots.full.woke_after_complete", 1, s.seen);
	slots_lock(&s.r);
	slots_retire(&s.r);
	unit_check_int("slots.full.room_after_retire", 0, slots_full(&s.r));
	slots_unlock(&s.r);

	/* A job's turn: job 2's worker waits until job 1 is retired too. */
	slots_lock(&s.r);
	slots_publish(&s.r); /* job 2 */
	slots_take(&s.r, &j0);
	slots_unlock(&s.r);
	s.want = 2;
	pthread_create(&t, NULL, turn_wait, &s);
	slots_lock(&s.r);
	s.marker = 2;
	slots_head(&s.r, 0, &j1);
	slots_retire(&s.r); /* job 1, completed above */
	slots_unlock(&s.r);
	pthread_join(t, NULL);
	unit_check_int("slots.turn.job1_was_head", 1, (long long)j1);
	unit_check_int("slots.turn.after_job1", 2, (long long)s.job);
	unit_check_int("slots.turn.woke_after_retire", 2, s.seen);
	slots_destroy(&s.r);

	/* Stopped: a job no worker took comes out dropped, not waited for. */
	if (shared_init(&s, 4)) {
		unit_fail("slots.stop", "init");
		return;
	}
	slots_lock(&s.r);
	slots_publish(&s.r);
	slots_publish(&s.r);
	slots_take(&s.r, &j0);
	s.stop = 1;
	unit_check_int("slots.stop.no_take", -1, slots_take(&s.r, &j1));
	slots_complete(&s.r, j0);
	unit_check_int("slots.stop.taken_job_done", SLOTS_DONE, slots_head(&s.r, 1, &j1));
	slots_retire(&s.r);
	unit_check_int("slots.stop.untaken_dropped", SLOTS_DROPPED, slots_head(&s.r, 1, &j1));
	unit_check_int("slots.stop.dropped_job", 1, (long long)j1);
	slots_retire(&s.r);
	unit_check_int("slots.stop.empty", SLOTS_NONE, slots_head(&s.r, 1, &j1));
	slots_unlock(&s.r);
	slots_destroy(&s.r);
}

/* ---- many workers, many jobs: the real use ---- */

enum {
	RING = 4,
	WORKERS = 3,
	JOBS = 3000
};

struct pool {
	struct slots r;
	size_t value[RING]; /* the job's number, written by its worker */
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	size_t j;

	slots_lock(&p->r);
	while (!slots_take(&p->r, &j)) {
		unsigned spin = (unsigned)(j * 2654435761u) % 64, i;
		slots_unlock(&p->r);
		/* uneven work, so jobs complete out of order */
		for (i = 0; i < spin; i++)
			sched_yield();
		p->value[j % RING] = j;
		slots_lock(&p->r);
		slots_complete(&p->r, j);
	}
	slots_unlock(&p->r);
	return NULL;
}

static void test_pool(void)
{
	struct pool p;
	pthread_t t[WORKERS];
	size_t j, next = 0;
	int i, ok = 1, bounded = 1;

	memset(&p, 0, sizeof(p));
	if (slots_init(&p.r, RING, NULL)) {
		unit_fail("slots.pool", "init");
		return;
	}
	for (i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, pool_worker, &p);
	slots_lock(&p.r);
	for (i = 0; i < JOBS; i++) {
		/* the producer is the consumer: room comes from the head */
		while (slots_full(&p.r)) {
			if (slots_head(&p.r, 1, &j) != SLOTS_DONE || j != next ||
			    p.value[j % RING] != j)
				ok = 0;
			next++;
			slots_retire(&p.r);
		}
		p.value[slots_next(&p.r) % RING] = (size_t)-1;
		slots_publish(&p.r);
		if (p.r.queued - p.r.retired > RING)
			bounded = 0;
	}
	slots_close(&p.r);
	while (slots_head(&p.r, 1, &j) == SLOTS_DONE) {
		if (j != next || p.value[j % RING] != j)
			ok = 0;
		next++;
		slots_retire(&p.r);
	}
	slots_unlock(&p.r);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	unit_check_int("slots.pool.in_order", 1, ok);
	unit_check_int("slots.pool.all", JOBS, (long long)next);
	unit_check_int("slots.pool.bounded", 1, bounded);
	slots_destroy(&p.r);
}

int main(void)
{
	test_out_of_order();
	test_wrap();
	test_take_blocks();
	test_full_blocks();
	test_pool();
	return unit_done();
}
