/* proc.c - the commands the loop runs: start, events, timers, reaping */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "daemon_int.h"

static void proc_before_close(struct exec_proc *p, int i)
{
	struct job *j = p->owner;

	event_ctl(&j->d->loop, EPOLL_CTL_DEL, p->fd[i], NULL, 0);
}

static void proc_event(struct watch *w, unsigned events);

void proc_start(struct daemon *d, struct job *j)
{
	char err[600];
	struct stat st;
	long long t;
	int i;

	if (j->workdir && (stat(j->workdir, &st) || !S_ISDIR(st.st_mode))) {
		snprintf(err, sizeof(err), "chdir %.400s: %s", j->workdir,
			 errno == ENOENT ? "no such file or directory" : !S_ISDIR(st.st_mode) ? "not a directory"
											      : strerror(errno));
		return job_fail_now(d, j, err);
	}
	if (exec_start(&j->proc, &j->exec, err, sizeof(err))) {
		answer_command(j, NULL, err);
		return job_complete(d, j);
	}
	j->proc.owner = j;
	j->proc.before_close = proc_before_close;
	j->running = 1;
	j->spawned = 1;
	for (i = 0; i < EXEC_NFDS; i++) {
		if (j->proc.fd[i] < 0)
			continue;
		j->w[i] = (struct watch){proc_event, j};
		event_ctl(&d->loop, EPOLL_CTL_ADD, j->proc.fd[i], &j->w[i], EPOLLIN);
	}
	j->prev = NULL;
	j->next = d->running;
	if (d->running)
		d->running->prev = j;
	d->running = j;
	d->nrunning++;
	t = exec_tick(&j->proc, wfs_now_ms());
	d->proc_timer.at = earliest(d->proc_timer.at, t);
	if (d->o->verbose)
		daemon_log("id=%s spawned pid %d: %.200s", j->id, (int)j->proc.pid,
			   j->exec.command);
}

#define PROC_OUTPUT_FLOOR 4096

/* A command's output counts against the budget as it is gathered; past
 * the budget's bulk share, what more it prints is discarded, and the
 * answer flags the streams cut. */
static void proc_count(struct daemon *d, struct job *j)
{
	struct exec_proc *p = &j->proc;
	size_t now = p->out[0].len + p->out[1].len, keep;

	if (now > j->out_counted) {
		wfs_budget_add(&d->mem, now - j->out_counted);
		j->out_counted = now;
	}
	if (wfs_budget_used(&d->mem) <= d->mem.bulk)
		return;
	keep = p->out[0].len > p->out[1].len ? p->out[0].len : p->out[1].len;
	/* a few KiB a stream always: under a flood a small command's answer
	 * is whole (at most --max-procs of these past the budget) */
	if (keep < PROC_OUTPUT_FLOOR)
		keep = PROC_OUTPUT_FLOOR;
	if (keep < p->max_output) {
		p->max_output = keep;
		daemon_log("id=%s: output cut at %zu bytes per stream: the memory budget "
			   "(--max-memory %zu) is in use",
			   j->id, keep, d->mem.limit);
	}
}

static void proc_complete(struct daemon *d, struct job *j)
{
	struct wfs_exec_result res;

	exec_finish(&j->proc, &res);
	j->running = 0;
	if (j->prev)
		j->prev->next = j->next;
	else
		d->running = j->next;
	if (j->next)
		j->next->prev = j->prev;
	d->nrunning--;
	/* its output leaves the budget; the answer made of it enters */
	wfs_budget_sub(&d->mem, j->out_counted);
	j->out_counted = 0;
	answer_command(j, &res, NULL);
	buf_free(&res.out);
	buf_free(&res.err);
	job_complete(d, j);
	while (d->wait_head && d->nrunning < d->o->max_procs) {
		struct job *w = d->wait_head;
		d->wait_head = w->next;
		if (!d->wait_head)
			d->wait_tail = NULL;
		proc_start(d, w);
	}
}

/* A command's pidfd or pipe (which: its index in j->w) is ready. */
static void proc_event(struct watch *w, unsigned events)
{
	struct job *j = w->data;
	struct daemon *d = j->d;

	(void)events;
	if (!j->running)
		return;
	exec_io(&j->proc, (int)(w - j->w));
	proc_count(d, j);
	if (exec_done(&j->proc))
		proc_complete(d, j);
}

void proc_tick(struct timer *tm, long long now)
{
	struct daemon *d = tm->data;
	struct job *j, *next;
	long long t = 0;

	/* Commands started during the walk (the next request of a connection)
	 * put their own timers in proc_timer. */
	tm->at = 0;
	for (j = d->running; j; j = next) {
		long long jt = exec_tick(&j->proc, now);
		next = j->next;
		if (exec_done(&j->proc))
			proc_complete(d, j);
		else
			t = earliest(t, jt);
	}
	d->proc_timer.at = earliest(d->proc_timer.at, t);
}

/* As a container's first process, orphaned grandchildren are ours to
 * reap, once a second. A zombie of a running command is left to its job,
 * which needs its status; waitid peeks (WNOWAIT) before reaping
 * anything. */
void proc_reap(struct timer *t, long long now)
{
	struct daemon *d = t->data;

	t->at = now + 1000;
	for (;;) {
		siginfo_t si;
		struct job *j;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) || !si.si_pid)
			return;
		for (j = d->running; j; j = j->next)
			if (j->proc.pid == si.si_pid)
				return;
		if (bg_owns(d, si.si_pid))
			return;
		waitpid(si.si_pid, NULL, WNOHANG);
	}
}
