/* pool.c - worker threads for in-process applets, so a long grep never
 * holds up the event loop. Finished jobs go back through an eventfd.
 *
 * Each worker unshares its filesystem context (CLONE_FS), so it can chdir
 * to a request's workdir without touching the other threads: relative
 * paths then resolve exactly as in the spawned command.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "daemon_int.h"

#define WORKER_STACK (2u << 20)

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv, ready_cv;
	struct job *head, *tail; /* waiting to run */
	struct job *done;        /* finished, for the loop */
	int stop, ready, private_cwd;
	int wake_fd, cwd_fd;
	int n;
	pthread_t *threads;
};

static void *worker_main(void *arg)
{
	struct pool *p = arg;
	int private_cwd = unshare(CLONE_FS) == 0;
	uint64_t one = 1;

	pthread_mutex_lock(&p->mu);
	p->ready++;
	if (!private_cwd)
		p->private_cwd = 0;
	pthread_cond_signal(&p->ready_cv);
	for (;;) {
		struct job *j;
		int was_empty;

		while (!p->head && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->head)
			break;
		j = p->head;
		p->head = j->next;
		if (!p->head)
			p->tail = NULL;
		pthread_mutex_unlock(&p->mu);

		if (j->abandon) {
			/* its client went away (or the daemon stops) while it
			 * waited: no worker time for it */
			answer_fail(j, 1, j->d->stopping ? "daemon shutting down" : "cancelled: the client went away");
			j->parsed = j->mode == JOB_PARSE;
		} else if (j->mode == JOB_PARSE) {
			request_parse_into(j, j->line, j->line_len);
			j->parsed = 1;
		} else {
			answer_applet(j, p->cwd_fd, private_cwd);
		}

		pthread_mutex_lock(&p->mu);
		was_empty = !p->done;
		j->next = p->done;
		p->done = j;
		/* One wakeup per batch: the loop reads the eventfd first and
		 * takes the list after, so no job is left behind. */
		if (was_empty && write(p->wake_fd, &one, sizeof(one)) < 0)
			(void)0;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct pool *pool_start(int nthreads, int wake_fd, int cwd_fd)
{
	struct pool *p = calloc(1, sizeof(*p));
	pthread_attr_t at;
	int i;

	if (!p)
		return NULL;
	p->threads = calloc((size_t)nthreads, sizeof(*p->threads));
	if (!p->threads) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_cond_init(&p->ready_cv, NULL);
	p->wake_fd = wake_fd;
	p->cwd_fd = cwd_fd;
	p->private_cwd = 1;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, WORKER_STACK);
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&p->threads[i], &at, worker_main, p))
			break;
		p->n++;
	}
	pthread_attr_destroy(&at);
	if (!p->n) {
		pool_stop(p);
		return NULL;
	}
	pthread_mutex_lock(&p->mu);
	while (p->ready < p->n)
		pthread_cond_wait(&p->ready_cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return p;
}

int pool_private_cwd(const struct pool *p)
{
	return p->private_cwd;
}

void pool_submit(struct pool *p, struct job *j)
{
	pthread_mutex_lock(&p->mu);
	j->next = NULL;
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

struct job *pool_take_done(struct pool *p)
{
	struct job *j;

	pthread_mutex_lock(&p->mu);
	j = p->done;
	p->done = NULL;
	pthread_mutex_unlock(&p->mu);
	return j;
}

/* Workers finish the queue, then exit; unclaimed results are freed. */
void pool_stop(struct pool *p)
{
	struct job *j, *next;
	int i;

	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->n; i++)
		pthread_join(p->threads[i], NULL);
	for (j = p->done; j; j = next) {
		next = j->next;
		job_free(j);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->ready_cv);
	free(p->threads);
	free(p);
}
