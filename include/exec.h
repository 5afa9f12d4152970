/* exec.h - the executor as a state machine, for an event loop.
 *
 * wfs_exec (wickfs.h) runs one command to completion; the daemon instead
 * starts commands with exec_start and drives them from its own loop:
 * it polls exec_fds(), calls exec_io() on readiness and exec_tick() when
 * the timer returned by exec_tick() is due, until exec_done().
 */
#ifndef WFS_EXEC_H
#define WFS_EXEC_H

#include <sys/types.h>
#include "buf.h"
#include "ctx.h"

/* exec: see lib/exec.c */
struct wfs_exec_opts {
	const char *command;
	const char *cwd;            /* NULL: inherit */
	const char *root;           /* the workspace root: cwd must resolve
				       beneath it (NULL: anywhere) */
	const char *cwd_label;      /* how messages name cwd ("--cwd");
				       NULL: "workdir", the daemon's field */
	const char *const *env_add; /* NULL-terminated "K=V" list, or NULL */
	const char *in;             /* stdin bytes; NULL: /dev/null */
	size_t in_len;
	long long timeout_ms; /* 0: none */
	long long idle_ms;    /* silence on both streams this long ends it;
				 0: none */
	size_t max_output;    /* per stream; 0: default 10 MiB */
	int in_pipe;          /* stdin a pipe, its end in exec_proc.in_fd
				 (when in is NULL) */
	/* A terminal instead of pipes: stdin, stdout and stderr are its
	 * slave side, the controlling terminal of a new session; the
	 * master is fd[EXEC_OUT] (the output) and in_fd (a copy, the
	 * input). TERM is xterm-256color unless the environment names one. */
	int pty;
	unsigned short pty_rows, pty_cols;
	int out_fd;              /* > 0: stdout and stderr go to it (a detached process's
		       log), no pipes: fd[EXEC_OUT] and fd[EXEC_ERR] are -1 */
	const char *overlay;     /* the supervisor enters this layer of */
	const char *overlay_dir; /* ... this directory (NULL: ".") first */
};
struct wfs_exec_result {
	struct buf out, err; /* caller calls buf_free on both */
	int exit_code;       /* -1 when killed by a signal; 124 timeout */
	int signal;          /* the signal that killed it, else 0 */
	int timed_out;
	int out_truncated, err_truncated;
	int spawn_failed; /* sh could not start: ctx->err says why */
};
int wfs_exec(struct wfs_ctx *c, const struct wfs_exec_opts *o,
	     struct wfs_exec_result *res);

/* Read-only mode refuses commands: they could write anything. */
#define EXEC_READONLY_MSG "exec: " WFS_READONLY_SPAWN_REFUSED
#define EXEC_DEFAULT_MAX_OUTPUT (10u << 20)
#define EXEC_TERM_GRACE_MS 500 /* TERM, then KILL after this */
#define EXEC_PIPE_GRACE_MS 300 /* then stop waiting for pipe EOF */
#define EXEC_POLL_MS 20        /* without pidfd: how often to waitpid */
#define EXEC_IDLE 2            /* timed_out: by the idle timeout */

enum {
	EXEC_PID,
	EXEC_OUT,
	EXEC_ERR,
	EXEC_NFDS
};

struct exec_proc {
	pid_t pid;         /* also the process group id */
	int fd[EXEC_NFDS]; /* pidfd, stdout, stderr; -1 when closed */
	struct buf out[2]; /* stdout, stderr as gathered */
	int truncated[2];
	size_t max_output;
	long long deadline_ms; /* 0: none */
	long long kill_ms;     /* SIGKILL due; 0: not killing */
	long long abandon_ms;  /* give up on pipe EOF; 0: not yet */
	int exited, status;
	int signal;                 /* what killed it (status -1), else 0 */
	int timed_out;              /* 1: the deadline; EXEC_IDLE: the silence */
	long long idle_ms, idle_at; /* idle_at 0: not counting (paused) */
	int cancelled;              /* killed by exec_kill */
	int in_fd;                  /* the write end of stdin (opts in_pipe), else -1 */
	/* When set, output goes here as it is read instead of into out[]
	 * (stream 0 stdout, 1 stderr); nonzero stops reading for now. */
	int (*sink)(struct exec_proc *p, int stream, const char *s, size_t n);
	/* Called before one of fd[] is closed (e.g. to leave an epoll set). */
	void (*before_close)(struct exec_proc *p, int i);
	void *owner;
};

/* Start the command: in its own process group, sh -c unless it is a plain
 * word list naming a program in PATH. -1 with a message in err when it
 * cannot start ("failed to execute: ..."). */
int exec_start(struct exec_proc *p, const struct wfs_exec_opts *o,
	       char *err, size_t errlen);
/* Descriptor I (EXEC_PID, EXEC_OUT, EXEC_ERR) is ready. */
void exec_io(struct exec_proc *p, int i);
/* Handle timers at time NOW; returns the next time it needs a call
 * (CLOCK_MONOTONIC ms), or 0 when none. */
long long exec_tick(struct exec_proc *p, long long now);
/* A terminal's new size (the kernel signals SIGWINCH): 0 or -1. */
int exec_resize(struct exec_proc *p, unsigned short rows, unsigned short cols);
/* Kill the process group now (TERM, then KILL), e.g. on shutdown. */
void exec_kill(struct exec_proc *p, long long now);
/* The command exited and its pipes are closed or abandoned. */
int exec_done(const struct exec_proc *p);
/* Move the outcome into res (buffers change owner); frees the rest. */
void exec_finish(struct exec_proc *p, struct wfs_exec_result *res);
/* Release everything of an unfinished command: kill, close, reap. */
void exec_abort(struct exec_proc *p);
/* Let it go on without us: close and free, but neither kill nor reap
 * (its own process group; init or a subreaper reaps it). */
void exec_release(struct exec_proc *p);

#endif
