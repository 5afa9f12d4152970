/* daemon_int.h - what the daemon's parts share.
 *
 * The files call each other one way, top to bottom: daemon.c (setup,
 * signals, shutdown); listen.c (the listening sockets) and conn.c
 * (connections, and the listeners' accept); proc.c (commands); bg.c
 * (background and streamed processes); watch.c (file watches); pool.c
 * (worker threads); request.c (parsing); job.c (jobs and their
 * completion); answer.c (the answers); loop.c and event.c (event.h).
 * Calls the other way, a command's exit or a new connection, go through
 * the handler a watch, a timer or a job carries. */
#ifndef WFS_DAEMON_INT_H
#define WFS_DAEMON_INT_H

#include <pthread.h>
#include <sys/types.h>
#include "applet.h"
#include "daemon.h"
#include "event.h"
#include "exec.h"
#include "settings.h"

struct daemon;
struct conn;
struct lane;

/* How a request is answered. */
enum job_mode {
	JOB_DONE,        /* the response is already rendered */
	JOB_APPLET,      /* in-process applet on a worker thread */
	JOB_SHELL,       /* spawned command: the reference behaviour */
	JOB_EXEC_APPLET, /* `wickfs exec CMD`: spawned CMD, exec's envelope */
	JOB_PARSE,       /* a big line, parsed on a worker, then dispatched */
	JOB_PROC,        /* a process op (bg.c): j->proc_op */
};

/* The native ops on processes (bg.c); PROC_EXEC is exec with "stream". */
enum proc_op {
	PROC_EXEC,
	PROC_START,
	PROC_LIST,
	PROC_OUTPUT,
	PROC_ATTACH,
	PROC_INPUT,
	PROC_SIGNAL,
	PROC_WAIT,
	PROC_KILL,
	PROC_RESIZE,
	PROC_WATCH, /* watch.c's, from here on */
	PROC_UNWATCH,
};

struct bg;
struct session;
struct watcher;

struct job {
	struct daemon *d;
	struct conn *conn;
	struct job *next, *prev; /* queue links */
	struct arena arena;
	enum job_mode mode;
	int native; /* {"op"} form: answer {"id","ok",...} */
	const char *id;
	size_t id_len;
	long long timeout_s, deadline_ms;
	long long started_ms;
	struct settings set; /* the daemon's, with this request's changes */

	/* applet */
	const struct applet *applet;
	int argc;
	char **argv;
	const char *workdir; /* NULL: the daemon's own cwd */
	const char *root;    /* the daemon's, or the request's own beneath it */
	const char *overlay; /* "overlay": what it runs runs in that layer */
	int own_envelope;    /* a spawned applet: its stdout is the answer */
	const char *in;
	size_t in_len;

	/* command */
	struct wfs_exec_opts exec;
	struct exec_proc proc;
	struct watch w[EXEC_NFDS];
	int running, cancelled;
	int spawned;      /* a command ran (no polling after it) */
	int exit_code;    /* JOB_SHELL: the command's, once done */
	int probe;        /* inline read, not stat'ed: may be too big */
	const char *line; /* JOB_PARSE: the request line */
	size_t line_len;
	int parsed;         /* back from a worker's parse: dispatch it */
	int refused;        /* bad or missing token */
	int authed;         /* a request that passed the token check */
	char *owned_line;   /* JOB_PARSE: the connection's buffer, taken */
	size_t counted;     /* the line's bytes, in the budget until
				     the job is done (its arena holds them) */
	size_t budget_held; /* taken by the applet for a file it read */
	size_t out_counted; /* a command's output, in the budget */
	/* The answer's handler, set by whoever runs the job (conn.c's
	 * dispatch): job_complete calls it. */
	void (*answered)(struct job *j);
	/* Set by the loop when the client is gone or the daemon stops: the
	 * applet's cancel flag (ctx.cancel), and a queued job never starts. */
	volatile int abandon;

	struct buf resp; /* the response line, '\n' included */
	struct buf out;  /* an applet's answer, before resp wraps it */

	/* JOB_PROC (bg.c) */
	enum proc_op proc_op;
	const struct json_val *req; /* the request, for the op's own fields */
	struct bg *bg;              /* the process it follows or feeds */
	struct watcher *watcher;    /* the watch whose events it streams */
	struct job *bg_next;        /* that process's other followers */
	size_t in_done;             /* input: bytes written */
	/* conn.c's: queue an event line now; 1 when the reader is behind */
	int (*emit)(struct job *j, const char *line, size_t n);
	/* bg.c's: what the connection had to send is sent, or it closed
	 * (j->abandon) */
	void (*drained)(struct job *j);
	const char *session; /* a command's session: its state read at the end */
	/* "session": applied by the loop, which holds the sessions; a line
	 * parsed off the loop (off_loop) leaves it to the loop */
	const struct json_val *session_v;
	int off_loop;
};

/* job.c: jobs, recycled, and their completion. */
struct job *job_new(struct daemon *d);
void job_free(struct job *j);
/* A job as new, keeping its arena and buffers; those emptied; gone. */
void job_clear(struct job *j, struct daemon *d);
void job_recycle(struct job *j);
void job_destroy(struct job *j);
void job_cache_free(struct daemon *d);
/* The job is done with what it held in the budget: its line, a file it
 * read, a command's output. */
void job_release(struct job *j);
/* A request is answered (j->resp): its owner's j->answered sends it; the
 * job is freed after the event batch. Nothing while it still runs. */
void job_complete(struct daemon *d, struct job *j);
/* Answer with an error line now. */
void job_fail_now(struct daemon *d, struct job *j, const char *msg);

/* session.c: a command's working directory and environment, kept. */
/* The session named v for this request: its directory and variables in,
 * a command wrapped to hand its own back. Answers the job on an error. */
void session_apply(struct job *j, const struct json_val *v);
/* Read back what the session's command left (its end). */
void session_collect(struct daemon *d, const char *name);
/* The ops "session" and "session_close": 1 when op is one (answered). */
int session_op(struct job *j, const char *op, const struct json_val *v);
void session_free_all(struct daemon *d);
/* Our own binary's path (NULL with msg set), resolved once. */
const char *session_self(struct daemon *d, char *msg, size_t n);

/* request.c: parsing. */
/* Parse one line into a job: JOB_DONE with a response (errors), or a job
 * to run. Returns NULL only when out of memory. */
struct job *request_parse(struct daemon *d, const char *line, size_t len);
/* Lines longer than this are parsed on a worker (JOB_PARSE), so a 10 MiB
 * request does not hold up the other connections. */
#define PARSE_INLINE_MAX (256u << 10)
struct job *request_defer_parse(struct daemon *d, const char *line, size_t len);
/* The same, taking buf (malloc'd; the line is at start, and buf has a
 * byte to spare after it): the job frees it. */
struct job *request_take_line(struct daemon *d, char *buf, size_t start,
			      size_t len);
/* Parse j->line into j itself (any thread). */
void request_parse_into(struct job *j, const char *line, size_t len);
#define INLINE_MAX (1u << 20)
/* 0: a worker's; 1: the loop's; 2: the loop's, as a probe (j->probe). */
int request_inline_ok(const struct job *j);

/* answer.c: the answers, each rendered into j->resp (the job is done). */
void answer_legacy(struct job *j, const char *out, size_t out_len,
		   const char *err, size_t err_len, int code, const char *error);
/* An error: {"id","ok":false,"error"} (native) or a legacy line with
 * exit_code code. */
void answer_fail(struct job *j, int code, const char *msg);
/* A line that is no request: the legacy error with an empty id. */
void answer_invalid(struct job *j, const char *what);
/* An answer the budget has no room for: an error naming it. */
void answer_over_budget(struct job *j, size_t size);
/* A finished command (JOB_SHELL, JOB_EXEC_APPLET). */
void answer_command(struct job *j, struct wfs_exec_result *res,
		    const char *spawn_error);
/* Run an applet job and render its answer (worker thread, or the loop
 * when request_inline_ok). Returns 1, answering nothing, when a job tried
 * on the loop (j->probe) turns out to read a file over INLINE_MAX: it
 * goes to a worker then. */
int answer_applet(struct job *j, int cwd_fd, int private_cwd);

/* pool.c */
struct pool;
struct pool *pool_start(int nthreads, int wake_fd, int cwd_fd);
/* 1 when every worker has its own working directory (unshare CLONE_FS). */
int pool_private_cwd(const struct pool *p);
void pool_submit(struct pool *p, struct job *j);
/* Take the finished jobs (a list linked by next). */
struct job *pool_take_done(struct pool *p);
void pool_stop(struct pool *p);

struct listener {
	int fd;
	int is_unix;
	struct watch w;
};

struct daemon {
	const struct daemon_opts *o;
	volatile int stopping; /* also the cancel flag of applets */
	int private_cwd;       /* workers can chdir per request */
	int loop_private_cwd;  /* so can the loop thread */
	struct loop loop;
	int wake_fd, sig_fd, cwd_fd;
	struct watch wake_w, sig_w, life_w;
	struct listener lis[2];
	int nlis;
	char *sock_path; /* our socket, unlinked at exit */
	ino_t sock_ino;
	struct pool *pool;
	struct conn *conns;
	int nconns;
	struct job *running;               /* commands in flight (prev/next) */
	struct job *wait_head, *wait_tail; /* over max_procs, not started */
	int nrunning, inflight;
	struct timer proc_timer;   /* the earliest command timer */
	struct timer accept_timer; /* accepting paused (EMFILE) until */
	struct timer conn_timer;   /* the next line or write deadline */
	struct timer reap_timer;   /* PID 1: the next orphan reaping */
	struct timer stop_timer;   /* shutting down: the wait ends */
	struct timer bg_timer;     /* background processes' timers (bg.c) */
	struct bg *bgs, *dead_bgs; /* background processes; freed ones */
	int nbg, nbg_running;
	unsigned bg_seq;                          /* the last handle given */
	struct watcher *watchers, *dead_watchers; /* watch.c's */
	int nwatch;
	unsigned watch_seq;
	struct conn *dead_conns; /* freed after the current event batch */
	struct job *dead_jobs;
	struct job *job_cache; /* recycled jobs (job.c) */
	int njob_cache;
	const char *root;      /* WICKFS_ROOT, resolved; NULL: none */
	struct wfs_budget mem; /* --max-memory: what is held, both ways */
	struct log_rate flood; /* daemon_log_rate's, for refusals */
	struct lane *lanes;    /* lane.c */
	int nlanes, lane_wake, back_fd;
	struct watch back_w;
	pthread_mutex_t lane_mu;
	struct conn *lane_back; /* given back, for the loop (back_fd) */
	/* lane.c's, while lanes run: an idle connection to one (0: it went) */
	int (*to_lane)(struct conn *c);
	struct session *sessions; /* session.c */
	int nsessions;
	char *session_dir, *session_self;
};

/* Answers up to this size may use the whole memory budget; bigger ones
 * only its bulk share, which leaves room for requests and small ones. */
#define SMALL_ANSWER WFS_BUDGET_SMALL

/* Connections (conn.c). */
#define READ_CHUNK 65536
#define KEEP_BUF (256u << 10) /* idle buffers larger than this are freed */
/* A streamed process is paused while its reader is this far behind. */
#define STREAM_HIGH (128u << 10)

struct conn {
	struct daemon *d;
	int fd;
	struct watch w;
	unsigned events;
	struct buf in;
	size_t in_off, scan_off; /* consumed; searched for '\n' */
	struct buf out;
	size_t out_off;
	struct job *job; /* the request in flight */
	int skipping;    /* dropping an oversize line to its end */
	int eof, dead;
	int authed;               /* sent a request that passed the token */
	size_t held;              /* our bytes in the budget */
	const char *in_p, *out_p; /* the buffers in_hw and out_hw are of */
	size_t in_hw, out_hw;     /* their most bytes since allocated */
	long long opened_ms;
	long long line_since;  /* the unfinished line began; 0: none */
	long long write_since; /* an answer waits for the reader since
				     (its last progress); 0: none */
	struct conn *prev, *next;
	int lane;               /* 0: the loop's; k: lane k-1's (lane.c) */
	int lane_fit;           /* its last request was one a lane answers */
	struct conn *back_next; /* given back by a lane */
};

/* Connections that sent nothing whole for this long may be closed to
 * make room for a new one when --max-conns is reached. */
#define IDLE_GRACE_MS 1000

/* A listener's watch handler (w is the listener's, w->data the
 * daemon): take the new connections. */
void conn_accept(struct watch *w, unsigned events);
/* d->accept_timer: accepting resumes after a pause (EMFILE). */
void conn_accept_resume(struct timer *t, long long now);
/* The wake_fd's handler: the jobs the workers finished. */
void conn_pool_done(struct watch *w, unsigned events);
/* d->conn_timer: answer and close the connections whose unfinished line
 * is older than --line-timeout, close those whose answer waited for its
 * reader longer than --write-timeout; sets the timer to the next such
 * deadline. */
void conn_expire(struct timer *t, long long now);
/* Answer buffered lines while nothing is in flight. */
void conn_process(struct conn *c);
/* recv into c->in, with room for at least room bytes first: the bytes
 * read (*asked: how many it asked for), 0 at the end, -1 with errno
 * (EAGAIN: nothing now). */
ssize_t conn_recv(struct conn *c, size_t room, size_t *asked);
/* Its buffers' bytes, counted in the budget. */
void conn_account(struct conn *c);
/* A connection a lane gave back: watched again, its output sent and its
 * next lines answered (the loop's). */
void conn_resume(struct conn *c);
/* Lanes (lane.c): threads that serve connections while they send small
 * file operations. */
void lane_start(struct daemon *d, int n);
void lane_stop(struct daemon *d);
/* Close now; the memory goes (after the event batch) once no job refers
 * to it any more. */
void conn_close(struct conn *c);

/* Commands (proc.c). */
void proc_start(struct daemon *d, struct job *j);
/* d->proc_timer: timers of every running command. */
void proc_tick(struct timer *t, long long now);
/* d->reap_timer: as PID 1, reap orphaned grandchildren, never a running
 * command. */
void proc_reap(struct timer *t, long long now);

/* Background and streamed processes (bg.c). */
/* Run a JOB_PROC job: it answers at once, or follows its process. */
void bg_run(struct daemon *d, struct job *j);
/* d->bg_timer: the processes' kill and timeout steps, wait deadlines. */
void bg_tick(struct timer *t, long long now);
/* Shutdown: kill them all; teardown (now 1): reap and free them. */
void bg_stop_all(struct daemon *d, int now);
/* 1 when pid is a running process's, whose status is its own to reap. */
int bg_owns(struct daemon *d, pid_t pid);
/* After an event batch: free the processes removed during it. */
void bg_free_dead(struct daemon *d);

/* File watches (watch.c). */
/* Run a watch or unwatch job: it answers at once, or streams events. */
void watch_run(struct daemon *d, struct job *j);
/* Shutdown: end every watch, each answering its summary. */
void watch_stop_all(struct daemon *d);
/* After an event batch: free the watches ended during it. */
void watch_free_dead(struct daemon *d);

/* Listening sockets (listen.c). */
int listen_tcp(struct daemon *d, const char *addr);
int listen_unix(struct daemon *d, const char *path);
/* Unlink our socket, if it is still ours. */
void listen_remove_socket(struct daemon *d);

#endif
