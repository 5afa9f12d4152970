/* slots.c - an ordered ring of job slots (include/slots.h)
 *
 * Job numbers only grow; entry j % n is free once job j - n is retired,
 * so queued - retired <= n holds throughout and the three counters say
 * where every job is: retired <= taken <= queued. Only completion comes
 * out of order, hence one flag per entry.
 */
#include <stdlib.h>
#include "slots.h"

static int stopped(const struct slots *r)
{
	return r->stop && *r->stop;
}

int slots_init(struct slots *r, size_t n, const volatile int *stop)
{
	r->complete = calloc(n ? n : 1, 1);
	if (!r->complete)
		return -1;
	r->n = n ? n : 1;
	r->stop = stop;
	r->queued = r->taken = r->retired = 0;
	r->idle = r->closed = 0;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->done, NULL);
	pthread_cond_init(&r->turn, NULL);
	return 0;
}

void slots_destroy(struct slots *r)
{
	if (!r->complete)
		return;
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->done);
	pthread_cond_destroy(&r->turn);
	free(r->complete);
	r->complete = NULL;
}

void slots_lock(struct slots *r)
{
	pthread_mutex_lock(&r->mu);
}

void slots_unlock(struct slots *r)
{
	pthread_mutex_unlock(&r->mu);
}

void slots_reset(struct slots *r)
{
	r->queued = r->taken = r->retired = 0;
	r->closed = 0;
}

size_t slots_next(const struct slots *r)
{
	return r->queued;
}

int slots_full(const struct slots *r)
{
	return r->queued - r->retired >= r->n;
}

void slots_publish(struct slots *r)
{
	/* The entry's last job was retired (the producer saw room). */
	r->complete[r->queued % r->n] = 0;
	r->queued++;
	/* A busy worker looks for the next job before it sleeps. */
	if (r->idle)
		pthread_cond_signal(&r->work);
}

void slots_close(struct slots *r)
{
	r->closed = 1;
	pthread_cond_broadcast(&r->work);
}

int slots_take(struct slots *r, size_t *job)
{
	while (r->taken == r->queued && !r->closed && !stopped(r)) {
		r->idle++;
		pthread_cond_wait(&r->work, &r->mu);
		r->idle--;
	}
	if (r->taken == r->queued || stopped(r))
		return -1;
	*job = r->taken++;
	return 0;
}

void slots_complete(struct slots *r, size_t job)
{
	r->complete[job % r->n] = 1;
	pthread_cond_broadcast(&r->done);
}

int slots_head(struct slots *r, int wait, size_t *job)
{
	for (;;) {
		size_t j = r->retired;

		if (j == r->queued)
			return SLOTS_NONE;
		*job = j;
		if (r->complete[j % r->n])
			return SLOTS_DONE;
		if (j >= r->taken && stopped(r))
			return SLOTS_DROPPED;
		if (!wait)
			return SLOTS_NONE;
		pthread_cond_wait(&r->done, &r->mu);
	}
}

void slots_retire(struct slots *r)
{
	r->retired++;
	/* A dropped job is never taken after it. */
	if (r->taken < r->retired)
		r->taken = r->retired;
	pthread_cond_broadcast(&r->turn);
}

void slots_wait_turn(struct slots *r, size_t job)
{
	while (r->retired < job && !stopped(r))
		pthread_cond_wait(&r->turn, &r->mu);
}

void slots_wake(struct slots *r)
{
	pthread_cond_broadcast(&r->work);
	pthread_cond_broadcast(&r->done);
	pthread_cond_broadcast(&r->turn);
}
