/* exec.c - run a command: own process group, capped output, a timeout
 * that kills the whole group and never waits forever on inherited pipes.
 *
 * The child is started with posix_spawn (musl: vfork-style clone, so the
 * cost does not grow with the parent's memory). Its exit is observed with
 * a pidfd where the kernel has one (else by polling) and with WNOWAIT, so
 * the pid and its process group stay reserved until exec_finish reaps it:
 * a kill(-pid) can never reach a recycled group.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "exec.h"
#include "util.h"
#include "json.h"
#include "shellwords.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

extern char **environ;

/* Keep our descriptors off 0-2 so the child's dup2s cannot collide. */
static int fd_high(int fd)
{
	int n;

	if (fd < 0 || fd > 2)
		return fd;
	n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void proc_close(struct exec_proc *p, int i)
{
	if (p->fd[i] < 0)
		return;
	if (p->before_close)
		p->before_close(p, i);
	close_fd(&p->fd[i]);
}

/* The child's stdin: /dev/null (or an empty pipe where there is none), or
 * the bytes in a memfd, which the child reads at its own pace. */
static int open_stdin(const char *in, size_t len)
{
	int fd, pp[2];

	if (!in || !len) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd_high(fd);
		if (pipe2(pp, O_CLOEXEC))
			return -1;
		close(pp[1]);
		return fd_high(pp[0]);
	}
	fd = memfd_create("wickfs-stdin", MFD_CLOEXEC);
	if (fd < 0)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, in, len) || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd_high(fd);
}

static int executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* A program named by a plain word: absolute, or found in an absolute PATH
 * entry. Relative names go to sh, which resolves them in the right cwd. */
static int find_program(const char *name, char *out, size_t outlen)
{
	const char *path = getenv("PATH"), *p, *end;

	if (name[0] == '/') {
		if (strlen(name) >= outlen || !executable(name))
			return -1;
		strcpy(out, name);
		return 0;
	}
	if (strchr(name, '/'))
		return -1;
	for (p = path ? path : DEFAULT_PATH; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (*p != '/')
			continue;
		if ((size_t)snprintf(out, outlen, "%.*s/%s", (int)(end - p), p,
				     name) >= outlen)
			continue;
		if (executable(out))
			return 0;
	}
	return -1;
}

/* environ with the additions replacing same-named entries (malloc'd). */
static char **make_env(const char *const *add)
{
	size_t n = 0, k = 0, i, j;
	char **env;

	while (environ[n])
		n++;
	while (add[k])
		k++;
	env = malloc((n + k + 1) * sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0, j = 0; i < n; i++) {
		size_t kl = strcspn(environ[i], "=");
		size_t a;
		for (a = 0; a < k; a++)
			if (!strncmp(add[a], environ[i], kl) && add[a][kl] == '=')
				break;
		if (a == k)
			env[j++] = environ[i];
	}
	for (i = 0; i < k; i++)
		env[j++] = (char *)add[i];
	env[j] = NULL;
	return env;
}

static int spawn(pid_t *pid, const char *path, char *const argv[],
		 char *const env[], const char *cwd, int in, int out, int err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t mask, def;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	sigemptyset(&mask);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	sigaddset(&def, SIGQUIT);
	sigaddset(&def, SIGCHLD);
	posix_spawnattr_setsigmask(&at, &mask);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
				 POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, err, 2);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	rc = posix_spawn(pid, path, &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return rc;
}

/* Direct exec for a plain word list naming a program; else sh -c. */
static int spawn_command(pid_t *pid, const struct wfs_exec_opts *o,
			 char *const env[], int in, int out, int err,
			 char *msg, size_t msglen)
{
	char *sh_argv[] = {"sh", "-c", (char *)o->command, NULL};
	char prog[4096], eb[128];
	struct arena a;
	char **words;
	int rc = -1;

	arena_init(&a);
	if (shellwords_split(&a, o->command, strlen(o->command), &words) > 0 &&
	    !shellwords_is_builtin(words[0]) &&
	    !find_program(words[0], prog, sizeof(prog)))
		rc = spawn(pid, prog, words, env, o->cwd, in, out, err);
	arena_free(&a);
	if (rc == 0)
		return 0;
	rc = spawn(pid, "/bin/sh", sh_argv, env, o->cwd, in, out, err);
	if (rc == 0)
		return 0;
	if (rc == ENOENT)
		snprintf(msg, msglen, "failed to execute: /bin/sh: no such file "
			 "or directory (there is no shell in this image; only a "
			 "plain command naming a program in PATH runs without one)");
	else
		snprintf(msg, msglen, "failed to execute: /bin/sh: %s",
			 wfs_strerror(rc, eb, sizeof(eb)));
	return -1;
}

int exec_start(struct exec_proc *p, const struct wfs_exec_opts *o,
	       char *err, size_t errlen)
{
	int pout[2] = {-1, -1}, perr[2] = {-1, -1}, in = -1, i;
	char **env = environ, eb[128];
	struct stat st;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < EXEC_NFDS; i++)
		p->fd[i] = -1;
	buf_init(&p->out[0]);
	buf_init(&p->out[1]);
	p->max_output = o->max_output ? o->max_output : EXEC_DEFAULT_MAX_OUTPUT;
	if (o->timeout_ms > 0)
		p->deadline_ms = wfs_now_ms() + o->timeout_ms;
	if (o->cwd && stat(o->cwd, &st)) {
		snprintf(err, errlen, "chdir %s: %s", o->cwd,
			 wfs_strerror(errno, eb, sizeof(eb)));
		return -1;
	}
	if (o->cwd && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "chdir %s: not a directory", o->cwd);
		return -1;
	}
	if (pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC))
		goto fail_errno;
	for (i = 0; i < 2; i++) {
		pout[i] = fd_high(pout[i]);
		perr[i] = fd_high(perr[i]);
	}
	in = open_stdin(o->in, o->in_len);
	if (in < 0 || pout[0] < 0 || pout[1] < 0 || perr[0] < 0 || perr[1] < 0)
		goto fail_errno;
	if (o->env_add && !(env = make_env(o->env_add)))
		goto fail_errno;
	if (spawn_command(&p->pid, o, env, in, pout[1], perr[1], err, errlen))
		goto fail;
	if (env != environ)
		free(env);
	close(in);
	close(pout[1]);
	close(perr[1]);
	p->fd[EXEC_OUT] = pout[0];
	p->fd[EXEC_ERR] = perr[0];
	fcntl(pout[0], F_SETFL, O_NONBLOCK);
	fcntl(perr[0], F_SETFL, O_NONBLOCK);
	p->fd[EXEC_PID] = fd_high((int)syscall(SYS_pidfd_open, p->pid, 0));
	return 0;

fail_errno:
	snprintf(err, errlen, "failed to execute: %s",
		 wfs_strerror(errno, eb, sizeof(eb)));
fail:
	if (env != environ)
		free(env);
	close_fd(&in);
	close_fd(&pout[0]);
	close_fd(&pout[1]);
	close_fd(&perr[0]);
	close_fd(&perr[1]);
	return -1;
}

/* Note the exit without reaping (WNOWAIT): the zombie keeps the pid. */
static void check_exit(struct exec_proc *p)
{
	siginfo_t si;

	if (p->exited)
		return;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT)) {
		if (errno != ECHILD)
			return;
		/* Reaped behind our back (a PID 1 reaper): gone, status lost. */
		p->pid = 0;
		si.si_code = CLD_KILLED;
	} else if (si.si_pid != p->pid) {
		return;
	}
	p->exited = 1;
	p->status = si.si_code == CLD_EXITED ? si.si_status : -1;
	proc_close(p, EXEC_PID);
}

static void read_stream(struct exec_proc *p, int i)
{
	char scratch[65536];
	struct buf *b = &p->out[i - EXEC_OUT];
	int k;

	for (k = 0; k < 4; k++) {
		size_t room = b->len < p->max_output ? p->max_output - b->len : 0;
		char *dst = scratch;
		size_t want = sizeof(scratch);
		ssize_t n;

		if (room && !buf_reserve(b, room < want ? room : want)) {
			dst = b->p + b->len;
			want = room < want ? room : want;
		}
		n = read(p->fd[i], dst, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			proc_close(p, i);
			return;
		}
		if (dst == scratch)
			p->truncated[i - EXEC_OUT] = 1;
		else
			b->len += (size_t)n;
	}
}

void exec_io(struct exec_proc *p, int i)
{
	if (i == EXEC_PID)
		check_exit(p);
	else if (p->fd[i] >= 0)
		read_stream(p, i);
}

int exec_done(const struct exec_proc *p)
{
	return p->exited && p->fd[EXEC_OUT] < 0 && p->fd[EXEC_ERR] < 0;
}

static void signal_group(struct exec_proc *p, int sig)
{
	if (p->pid <= 0)
		return;
	kill(-p->pid, sig);
	if (!p->exited)
		kill(p->pid, sig);
}

void exec_kill(struct exec_proc *p, long long now)
{
	if (exec_done(p) || p->kill_ms || p->abandon_ms)
		return;
	signal_group(p, SIGTERM);
	p->kill_ms = now + EXEC_TERM_GRACE_MS;
}

static long long earliest(long long a, long long b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

long long exec_tick(struct exec_proc *p, long long now)
{
	long long next = 0;

	if (!p->exited && p->fd[EXEC_PID] < 0)
		check_exit(p);
	if (exec_done(p))
		return 0;
	if (p->deadline_ms && !p->timed_out && now >= p->deadline_ms) {
		p->timed_out = 1;
		exec_kill(p, now);
	}
	if (p->kill_ms && now >= p->kill_ms) {
		signal_group(p, SIGKILL);
		p->kill_ms = 0;
		p->abandon_ms = now + EXEC_PIPE_GRACE_MS;
	}
	/* Grandchildren in other groups may hold the pipes: stop waiting. */
	if (p->abandon_ms && now >= p->abandon_ms) {
		proc_close(p, EXEC_OUT);
		proc_close(p, EXEC_ERR);
	}
	if (exec_done(p))
		return 0;
	if (!p->timed_out)
		next = earliest(next, p->deadline_ms);
	next = earliest(next, p->kill_ms);
	if (p->fd[EXEC_OUT] >= 0 || p->fd[EXEC_ERR] >= 0)
		next = earliest(next, p->abandon_ms);
	if (!p->exited && p->fd[EXEC_PID] < 0)
		next = earliest(next, now + EXEC_POLL_MS);
	return next;
}

static void reap(struct exec_proc *p)
{
	while (p->pid > 0 && waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
}

void exec_finish(struct exec_proc *p, struct wfs_exec_result *res)
{
	int i;

	memset(res, 0, sizeof(*res));
	reap(p);
	for (i = 0; i < EXEC_NFDS; i++)
		proc_close(p, i);
	res->out = p->out[0];
	res->err = p->out[1];
	buf_init(&p->out[0]);
	buf_init(&p->out[1]);
	res->out_truncated = p->truncated[0];
	res->err_truncated = p->truncated[1];
	res->timed_out = p->timed_out;
	res->exit_code = p->timed_out ? 124 : p->status;
}

void exec_abort(struct exec_proc *p)
{
	int i;

	if (p->pid > 0)
		signal_group(p, SIGKILL);
	reap(p);
	for (i = 0; i < EXEC_NFDS; i++)
		proc_close(p, i);
	buf_free(&p->out[0]);
	buf_free(&p->out[1]);
}

int wfs_exec(struct wfs_ctx *c, const struct wfs_exec_opts *o,
	     struct wfs_exec_result *res)
{
	struct exec_proc p;

	memset(res, 0, sizeof(*res));
	if (c->readonly && !c->readonly_exec)
		return wfs_fail(c, "%s", EXEC_READONLY_MSG);
	if (exec_start(&p, o, c->err, sizeof(c->err))) {
		res->spawn_failed = 1;
		return -1;
	}
	p.deadline_ms = earliest(p.deadline_ms, c->deadline_ms);
	for (;;) {
		struct pollfd pf[EXEC_NFDS];
		long long now = wfs_now_ms(), next;
		int i, n = 0, wait;

		if (c->cancel && *c->cancel)
			exec_kill(&p, now);
		next = exec_tick(&p, now);
		if (exec_done(&p))
			break;
		for (i = 0; i < EXEC_NFDS; i++)
			if (p.fd[i] >= 0)
				pf[n++] = (struct pollfd){p.fd[i], POLLIN, 0};
		wait = next ? (int)(next > now ? next - now : 0) : -1;
		if (c->cancel && (wait < 0 || wait > 100))
			wait = 100;
		if (poll(pf, (nfds_t)n, wait) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			int k;
			if (!pf[i].revents)
				continue;
			for (k = 0; k < EXEC_NFDS; k++)
				if (p.fd[k] == pf[i].fd)
					exec_io(&p, k);
		}
	}
	exec_finish(&p, res);
	return 0;
}
