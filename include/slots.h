/* slots.h - an ordered ring of job slots: jobs are queued in order, run by
 * worker threads in any order, and retired strictly in the order queued
 * (grep's files come out in walk order, gzip's blocks in input order).
 *
 * The ring keeps only the bookkeeping; the jobs live in the caller's array
 * of n entries, job number j in entry j % n. Three roles:
 *
 *   producer  fills entry slots_next(r) % n while !slots_full(r), then
 *             slots_publish(r); slots_close(r) once there are no more
 *   worker    slots_take(r, &j), runs job j unlocked, slots_complete(r, j)
 *   consumer  slots_head(r, wait, &j), uses job j, slots_retire(r)
 *
 * A full ring frees an entry only when the consumer retires the oldest
 * job: a producer that is also the consumer (both users) makes room with
 * slots_head(r, 1, &j) and slots_retire(r).
 *
 * Every call but init, destroy, lock and unlock is made with the lock held
 * (slots_lock); a wait releases it while it sleeps. The caller keeps its
 * own shared state under the same lock, so a job costs no lock of its own.
 * A producer may call slots_next unlocked (it is the counter's only
 * writer), and slots_full too when it is also the consumer.
 *
 * The caller's stop flag (slots_init) ends every wait: workers take no
 * more jobs, and a job no worker took is retired as SLOTS_DROPPED. Setting
 * the flag wakes no one by itself: slots_wake(r) does, when waiters must
 * see it at once.
 */
#ifndef WFS_SLOTS_H
#define WFS_SLOTS_H

#include <pthread.h>
#include <stddef.h>

struct slots {
	pthread_mutex_t mu;
	pthread_cond_t work; /* a job was queued, or the ring closed */
	pthread_cond_t done; /* a job was completed */
	pthread_cond_t turn; /* a job was retired */
	const volatile int *stop;
	unsigned char *complete; /* per entry: its job was completed */
	size_t n;
	size_t queued, taken, retired; /* counts of jobs, in job order */
	int idle;                      /* workers waiting for a job */
	int closed;                    /* no more jobs will be queued */
};

/* What slots_head found at the head of the order. */
enum {
	SLOTS_NONE,   /* nothing to retire (yet) */
	SLOTS_DONE,   /* the oldest job was completed */
	SLOTS_DROPPED /* stopped: the oldest job was never taken */
};

/* A ring of n entries; stop: the caller's flag (NULL: none). 0, or -1
 * when out of memory. */
int slots_init(struct slots *r, size_t n, const volatile int *stop);
void slots_destroy(struct slots *r);
void slots_lock(struct slots *r);
void slots_unlock(struct slots *r);
/* Start again from job 0; only with no job in flight. */
void slots_reset(struct slots *r);

/* Producer. */
size_t slots_next(const struct slots *r); /* the number of the job to fill */
int slots_full(const struct slots *r);    /* its entry is still in use */
void slots_publish(struct slots *r);      /* queue it for the workers */
void slots_close(struct slots *r);        /* no more: idle workers leave */

/* Worker: the next queued job, waiting for one; -1 when the ring is
 * closed and empty, or stopped. */
int slots_take(struct slots *r, size_t *job);
void slots_complete(struct slots *r, size_t job);

/* Consumer: the oldest job not retired, SLOTS_DONE or SLOTS_DROPPED with
 * *job set; SLOTS_NONE when none is queued, or (without wait) it is still
 * running. */
int slots_head(struct slots *r, int wait, size_t *job);
void slots_retire(struct slots *r);

/* Wait until job is the head of the order (every job before it retired),
 * or stopped. */
void slots_wait_turn(struct slots *r, size_t job);
/* Wake every waiter, to see the stop flag. */
void slots_wake(struct slots *r);

#endif
