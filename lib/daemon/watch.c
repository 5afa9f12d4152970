/* watch.c - file watches: the native ops watch and unwatch.
 *
 * One inotify descriptor per watch, in the loop's epoll set as bg.c's
 * pipes are; its events go out as event lines of the watch's request,
 * which stays in flight until the client leaves, an unwatch names it,
 * the watched path goes or the daemon stops.
 *
 * Nothing is queued here: while the connection is more than STREAM_HIGH
 * behind, the descriptor is left unread and the kernel's queue holds
 * the events (fs.inotify.max_queued_events); its overflow is reported
 * as {"event":"overflow","dropped":-1}. Only the entries
 * of a new directory, reported when it is found, can outrun that: past
 * WATCH_BURST lines while behind they are counted, and the count goes
 * out as an overflow event once the reader caught up.
 *
 * A directory is opened beneath the root (confine.c) and given to
 * inotify as /proc/self/fd/N, so no symlink swapped in on the way leads
 * out. Paths are kept as (parent, name) per watch descriptor, so a
 * directory renamed inside the tree reports its new paths.
 *
 * Modifies need no coalescing here: inotify merges an event identical
 * to the last one still queued, so the writes to a file made before the
 * daemon reads are one IN_MODIFY, and two alike are never neighbours in
 * one read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include "confine.h"
#include "daemon_int.h"
#include "json.h"

#define WATCH_MAX 64    /* watches per daemon */
#define WATCH_BURST 512 /* lines sent while behind before drops are counted */
/* a directory's cost in the budget: its slot, its name's estimate */
#define DIR_COST (sizeof(struct watch_dir) + 24)

#define MASK_SUB (IN_CREATE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_EXCL_UNLINK)

struct watch_dir {
	int parent; /* its parent's watch descriptor; 0: the top */
	char *name; /* NULL: a free slot */
};

struct watcher {
	struct daemon *d;
	struct watcher *next;
	struct job *j;
	struct watch w;
	int fd; /* -1 once ended */
	int top, top_dir, recursive, paused;
	unsigned num, burst;
	unsigned long long events, dropped, unsent;
	struct watch_dir *dirs; /* by watch descriptor */
	int ndirs;
	struct buf line, path;
	/* an IN_MOVED_FROM waiting for its IN_MOVED_TO */
	char from[NAME_MAX + 1]; /* "": none */
	int from_wd, from_dir;
	unsigned cookie;
};

/* {"id":ID,"event":NAME, in x->line */
static struct buf *begin(struct watcher *x, const char *name)
{
	struct buf *o = &x->line;

	buf_reset(o);
	buf_puts(o, "{\"id\":");
	json_str(o, x->j->id, x->j->id_len);
	buf_printf(o, ",\"event\":\"%s\"", name);
	return o;
}

/* The line sent, or counted as dropped while the reader is far behind;
 * 1 when sent. */
static int end(struct watcher *x)
{
	struct job *j = x->j;

	if (x->fd < 0)
		return 0;
	if (x->paused && x->burst >= WATCH_BURST) {
		x->dropped++;
		x->unsent++;
		return 0;
	}
	x->burst++;
	buf_puts(&x->line, "}\n");
	if (!x->line.oom && j->emit(j, x->line.p, x->line.len) && x->fd >= 0 && !x->paused) {
		x->paused = 1;
		x->burst = 0;
		event_ctl(&x->d->loop, EPOLL_CTL_DEL, x->fd, NULL, 0);
	}
	return 1;
}

static void put_path(struct watcher *x, int wd)
{
	const struct watch_dir *e = &x->dirs[wd];

	if (e->parent) {
		put_path(x, e->parent);
		if (x->path.len)
			buf_putc(&x->path, '/');
	}
	if (e->name)
		buf_puts(&x->path, e->name);
}

/* The path of name in wd's (of wd itself for NULL), in x->path. */
static const char *path_of(struct watcher *x, int wd, const char *name)
{
	buf_reset(&x->path);
	put_path(x, wd);
	if (name) {
		if (x->path.len)
			buf_putc(&x->path, '/');
		buf_puts(&x->path, name);
	}
	return x->path.p ? x->path.p : "";
}

/* ,"KEY":PATH */
static void put_field(struct buf *o, struct watcher *x, const char *key, int wd, const char *name)
{
	buf_printf(o, ",\"%s\":", key);
	json_cstr(o, path_of(x, wd, name));
}

/* An event on name in wd's; a move names where it came from. */
static void change(struct watcher *x, const char *kind, int wd, const char *name, int dir)
{
	struct buf *o = begin(x, kind);

	if (kind[2] == 'v') /* move */
		put_field(o, x, "from", x->from_wd, x->from);
	put_field(o, x, "path", wd, name);
	if (dir)
		buf_puts(o, ",\"dir\":true");
	x->events += end(x);
}

/* N dropped; -1: the kernel's queue overflowed, how many is unknown */
static void overflow(struct watcher *x, long long n)
{
	buf_printf(begin(x, "overflow"), ",\"dropped\":%lld", n);
	end(x);
}

/* Watch the directory (the top: a file too) open at fd, name in
 * parent's (parent 0: the top); its watch descriptor, or -1 with errno,
 * or 0 when it is watched already. */
static int add(struct watcher *x, int fd, int parent, const char *name)
{
	struct wfs_budget *m = &x->d->mem;
	char proc[40];
	int wd, n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	wd = inotify_add_watch(x->fd, proc,
			       parent ? MASK_SUB | IN_ONLYDIR : MASK_SUB | IN_DELETE_SELF | IN_MOVE_SELF);
	if (wd >= x->ndirs) {
		struct watch_dir *p;
		n = wd * 2 + 8;
		if (wfs_budget_used(m) + (size_t)n * DIR_COST > m->bulk ||
		    !(p = realloc(x->dirs, (size_t)n * sizeof(*p)))) {
			inotify_rm_watch(x->fd, wd);
			errno = ENOMEM;
			return -1;
		}
		memset(p + x->ndirs, 0, (size_t)(n - x->ndirs) * sizeof(*p));
		wfs_budget_add(m, (size_t)(n - x->ndirs) * DIR_COST);
		x->dirs = p;
		x->ndirs = n;
	}
	if (wd < 0 || x->dirs[wd].name)
		return wd < 0 ? -1 : 0;
	x->dirs[wd].parent = parent;
	x->dirs[wd].name = strdup(name);
	return wd;
}

static int reserved(const char *name)
{
	return !strcmp(name, WFS_STATE_DIR);
}

static void scan(struct watcher *x, int fd, int wd, int report);

/* Watch the directory open at fd (taken; -1: its open failed) and those
 * below it. One that cannot be (inotify's limit, no descriptors) is said
 * as {"event":"error","path"}: its events are missed. */
static void add_scan(struct watcher *x, int fd, int parent, const char *name, int report)
{
	int wd = fd < 0 ? -1 : add(x, fd, parent, name);

	if (wd < 0 && errno != ENOENT)
		change(x, "error", parent, name, 1);
	if (wd > 0)
		scan(x, fd, wd, report);
	else if (fd >= 0)
		close(fd);
}

/* The directories below wd's, open at fd (taken), watched; with report,
 * a create event for each entry, made before the watch saw them (one
 * may be reported twice). */
static void scan(struct watcher *x, int fd, int wd, int report)
{
	struct dirent *de;
	DIR *dir = fdopendir(fd);
	int sub;

	if (!dir)
		close(fd);
	while (dir && x->fd >= 0 && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || reserved(de->d_name))
			continue;
		sub = de->d_type == DT_DIR || de->d_type == DT_UNKNOWN
			      ? openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			      : -1;
		if (report)
			change(x, "create", wd, de->d_name, sub >= 0);
		if (sub >= 0 || de->d_type == DT_DIR)
			add_scan(x, sub, wd, de->d_name, report);
	}
	if (dir)
		closedir(dir);
}

/* A directory moved out of the tree: it and what is below go unwatched. */
static void drop_tree(struct watcher *x, int wd)
{
	int i;

	for (i = 1; i < x->ndirs; i++)
		if (x->dirs[i].name && x->dirs[i].parent == wd)
			drop_tree(x, i);
	inotify_rm_watch(x->fd, wd);
	free(x->dirs[wd].name);
	x->dirs[wd].name = NULL;
}

/* The directory watched as name in wd's, or 0. */
static int child(struct watcher *x, int wd, const char *name)
{
	int i;

	for (i = 1; i < x->ndirs; i++)
		if (x->dirs[i].name && x->dirs[i].parent == wd && !strcmp(x->dirs[i].name, name))
			return i;
	return 0;
}

/* An IN_MOVED_FROM no IN_MOVED_TO followed: the file left the tree. */
static void flush_from(struct watcher *x)
{
	int sub;

	if (!*x->from)
		return;
	change(x, "delete", x->from_wd, x->from, x->from_dir);
	if ((sub = child(x, x->from_wd, x->from)))
		drop_tree(x, sub);
	*x->from = 0;
}

/* {"id","ok":true,"data":{"watch":N,"events":N,"dropped":N}} */
static void summary(struct job *j, const struct watcher *x)
{
	buf_reset(&j->resp);
	buf_puts(&j->resp, "{\"id\":");
	json_str(&j->resp, j->id, j->id_len);
	buf_printf(&j->resp,
		   ",\"ok\":true,\"data\":{\"watch\":%u,\"events\":%llu,\"dropped\":%llu}}\n",
		   x->num, x->events, x->dropped);
	j->mode = JOB_DONE;
}

/* The watch ends: its request is answered; the memory goes after the
 * event batch (watch_free_dead), as later events may still name it. */
static void finish(struct watcher *x)
{
	struct daemon *d = x->d;
	struct watcher **pp;

	if (x->fd < 0)
		return;
	x->j->watcher = NULL;
	event_ctl(&d->loop, EPOLL_CTL_DEL, x->fd, NULL, 0);
	close(x->fd);
	x->fd = -1;
	for (pp = &d->watchers; *pp != x; pp = &(*pp)->next)
		;
	*pp = x->next;
	x->next = d->dead_watchers;
	d->dead_watchers = x;
	d->nwatch--;
	summary(x->j, x);
	job_complete(d, x->j);
}

static void one(struct watcher *x, const struct inotify_event *e)
{
	const char *name = e->len ? e->name : NULL, *kind;
	int dir = !!(e->mask & IN_ISDIR), sub;
	char why[300];

	/* first, as it may unwatch the directory of this event */
	if (*x->from && !((e->mask & IN_MOVED_TO) && e->cookie == x->cookie))
		flush_from(x);
	if (e->mask & IN_Q_OVERFLOW)
		return overflow(x, -1);
	if (e->wd <= 0 || e->wd >= x->ndirs || !x->dirs[e->wd].name)
		return; /* a directory no longer watched */
	if (name && reserved(name))
		return;
	if ((e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) && e->wd == x->top) {
		/* the top itself went (or its filesystem): nothing to watch */
		change(x, "delete", e->wd, NULL, x->top_dir);
		return finish(x);
	}
	if (e->mask & IN_IGNORED) {
		free(x->dirs[e->wd].name);
		x->dirs[e->wd].name = NULL;
		return;
	}
	if (e->mask & IN_MOVED_FROM) {
		snprintf(x->from, sizeof(x->from), "%s", name);
		x->from_wd = e->wd;
		x->from_dir = dir;
		x->cookie = e->cookie;
		return;
	}
	if ((e->mask & IN_MOVED_TO) && *x->from) {
		change(x, "move", e->wd, name, dir);
		if ((sub = child(x, x->from_wd, x->from))) {
			x->dirs[sub].parent = e->wd;
			free(x->dirs[sub].name);
			x->dirs[sub].name = strdup(name);
		}
		*x->from = 0;
		return;
	}
	kind = e->mask & IN_MODIFY ? "modify" : (e->mask & IN_DELETE ? "delete" : "create");
	change(x, kind, e->wd, name, dir);
	/* a directory made or moved in: watched, and what it holds reported */
	if (dir && x->recursive && *kind == 'c') {
		path_of(x, e->wd, name);
		sub = x->j->root ? confine_open(x->j->root, -1, x->path.p, O_RDONLY | O_DIRECTORY,
						why, sizeof(why))
				 : open(x->path.p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		add_scan(x, sub, e->wd, name, 1);
	}
}

static void watch_event(struct watch *w, unsigned events)
{
	struct watcher *x = w->data;
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *e;
	ssize_t n = 0, off;

	(void)events;
	while (x->fd >= 0 && !x->paused && (n = read(x->fd, buf, sizeof(buf))) > 0)
		for (off = 0; x->fd >= 0 && off < n; off += (ssize_t)(sizeof(*e) + e->len)) {
			e = (const struct inotify_event *)(buf + off);
			one(x, e);
		}
	if (n < 0 && errno == EAGAIN)
		flush_from(x); /* nothing followed it */
}

/* conn.c's: the connection caught up, or closed. */
static void watch_drained(struct job *j)
{
	struct watcher *x = j->watcher;

	if (!x)
		return;
	if (j->conn->dead)
		return finish(x);
	if (!x->paused)
		return;
	x->paused = 0;
	if (x->unsent)
		overflow(x, (long long)x->unsent);
	x->unsent = 0;
	if (!x->paused)
		event_ctl(&x->d->loop, EPOLL_CTL_ADD, x->fd, &x->w, EPOLLIN);
}

/* 1 when the watch runs (it answers itself), 0 when j is answered. */
static int start(struct daemon *d, struct job *j)
{
	const struct json_val *p = json_get(j->req, "path"), *r = json_get(j->req, "recursive");
	const char *path = p && p->type == JSON_STR ? p->str : "";
	const char *pre = "";
	struct watcher *x = NULL;
	char err[700], why[600] = "";
	struct stat st;
	int fd = -1;

	errno = ENOENT; /* no path */
	if (d->nwatch >= WATCH_MAX)
		strcpy(why, "64 watches are open, the daemon's limit"); /* WATCH_MAX */
	else if (*path &&
		 (fd = j->root ? confine_open(j->root, -1, path, O_RDONLY | O_NONBLOCK, why, sizeof(why))
			       : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) >= 0 &&
		 (x = calloc(1, sizeof(*x))) &&
		 (x->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) >= 0) {
		pre = "inotify: ";
		x->d = d;
		x->j = j;
		x->top_dir = !fstat(fd, &st) && S_ISDIR(st.st_mode);
		x->recursive = r && r->type == JSON_BOOL && r->boolean && x->top_dir;
		/* the top's name is the path as given, "." as none */
		if ((x->top = add(x, fd, 0, strcmp(path, ".") ? path : "")) > 0)
			goto run;
		close(x->fd);
	}
	snprintf(err, sizeof(err), "watch %.300s: %s%s", path, pre, *why ? why : strerror(errno));
	if (fd >= 0)
		close(fd);
	free(x);
	answer_fail(j, 1, err);
	return 0;
run:
	x->num = ++d->watch_seq;
	x->w = (struct watch){watch_event, x};
	x->next = d->watchers;
	d->watchers = x;
	d->nwatch++;
	j->watcher = x;
	j->drained = watch_drained;
	event_ctl(&d->loop, EPOLL_CTL_ADD, x->fd, &x->w, EPOLLIN);
	buf_printf(begin(x, "watching"), ",\"watch\":%u", x->num);
	put_field(&x->line, x, "path", x->top, NULL);
	end(x);
	if (x->recursive)
		scan(x, fd, x->top, 0);
	else
		close(fd);
	return 1;
}

void watch_run(struct daemon *d, struct job *j)
{
	const struct json_val *n = json_get(j->req, "watch");
	struct watcher *x = d->watchers;

	if (j->proc_op == PROC_WATCH) {
		if (start(d, j))
			return;
	} else {
		while (x && !(n && n->type == JSON_NUM && n->num == x->num))
			x = x->next;
		if (!x) {
			answer_fail(j, 1, "unwatch: no such watch (give its \"watch\" number)");
		} else {
			summary(j, x);
			finish(x);
		}
	}
	job_complete(d, j);
}

void watch_stop_all(struct daemon *d)
{
	while (d->watchers)
		finish(d->watchers);
}

void watch_free_dead(struct daemon *d)
{
	struct watcher *x;
	int i;

	while ((x = d->dead_watchers)) {
		d->dead_watchers = x->next;
		for (i = 0; i < x->ndirs; i++)
			free(x->dirs[i].name);
		wfs_budget_sub(&d->mem, (size_t)x->ndirs * DIR_COST);
		free(x->dirs);
		buf_free(&x->line);
		buf_free(&x->path);
		free(x);
	}
}
