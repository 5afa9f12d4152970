/* job.c - a request's job: made, recycled, completed.
 *
 * Completion is here, below the connections and the commands, so that
 * both can complete a job without calling each other: the answer goes to
 * whoever set j->answered (conn.c).
 */
#include <stdlib.h>
#include <string.h>
#include "daemon_int.h"

/* Jobs and their arenas are recycled by the loop thread (the only one
 * that creates and frees them): no malloc or page faults per request. */
#define JOB_CACHE 16

/* A job as new, keeping its arena and buffers. */
void job_clear(struct job *j, struct daemon *d)
{
	struct arena a = j->arena;
	struct buf b = j->resp, o = j->out;

	memset(j, 0, sizeof(*j));
	j->arena = a;
	j->resp = b;
	j->out = o;
	j->d = d;
	j->id = "";
}

struct job *job_new(struct daemon *d)
{
	struct job *j = d->job_cache;

	if (j) {
		d->job_cache = j->next;
		d->njob_cache--;
	} else {
		j = calloc(1, sizeof(*j));
		if (!j)
			return NULL;
		arena_init(&j->arena);
		buf_init(&j->resp);
		buf_init(&j->out);
	}
	job_clear(j, d);
	return j;
}

/* Its arena and buffers emptied for the next request, big ones freed. */
void job_recycle(struct job *j)
{
	arena_reset(&j->arena);
	if (j->resp.cap > (64u << 10))
		buf_free(&j->resp);
	buf_reset(&j->resp);
	if (j->out.cap > (64u << 10))
		buf_free(&j->out);
	buf_reset(&j->out);
}

void job_release(struct job *j)
{
	wfs_budget_sub(&j->d->mem, j->counted + j->budget_held + j->out_counted);
	j->counted = j->budget_held = j->out_counted = 0;
}

void job_free(struct job *j)
{
	struct daemon *d;

	if (!j)
		return;
	job_release(j);
	free(j->owned_line);
	j->owned_line = NULL;
	d = j->d;
	if (d && d->njob_cache < JOB_CACHE && !d->stopping) {
		job_recycle(j);
		j->next = d->job_cache;
		d->job_cache = j;
		d->njob_cache++;
		return;
	}
	job_destroy(j);
}

void job_destroy(struct job *j)
{
	arena_free(&j->arena);
	buf_free(&j->resp);
	buf_free(&j->out);
	free(j);
}

void job_cache_free(struct daemon *d)
{
	struct job *j;

	while ((j = d->job_cache)) {
		d->job_cache = j->next;
		job_destroy(j);
	}
	d->njob_cache = 0;
}

void job_complete(struct daemon *d, struct job *j)
{
	if (j->mode != JOB_DONE || j->running)
		return;
	job_release(j);
	if (j->session)
		session_collect(d, j->session);
	if (d->o->verbose)
		daemon_log("id=%s answered in %lld ms", j->id,
			   wfs_now_ms() - j->started_ms);
	j->answered(j);
	j->next = d->dead_jobs;
	d->dead_jobs = j;
}

void job_fail_now(struct daemon *d, struct job *j, const char *msg)
{
	answer_legacy(j, "", 0, "", 0, 1, msg);
	job_complete(d, j);
}
