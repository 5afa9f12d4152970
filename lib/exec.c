/* exec.c - run a command: own process group, capped output, a timeout
 * that kills the whole group and never waits forever on inherited pipes.
 *
 * The child is started with vfork and execve (so the cost does not grow
 * with the parent's memory). Its exit is observed with
 * a pidfd where the kernel has one (else by polling) and with WNOWAIT, so
 * the pid and its process group stay reserved until exec_finish reaps it:
 * a kill(-pid) can never reach a recycled group.
 *
 * Between us and the command stands a small supervisor, forked (not
 * exec'd): it is the group leader and a child subreaper, so whatever the
 * command starts stays its descendant even after leaving the group
 * (setsid) or losing its parent. At a timeout or a kill, every descendant
 * of the supervisor found in /proc is signalled along with the group.
 * When the command exits by itself the supervisor exits with its status
 * at once, and background processes (servers an agent started) live on.
 * A kill stops the supervisor first and KILLs it last, so it stays the
 * root of the tree while the command and its processes die.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "exec.h"
#include "bytes.h"
#include "confine.h"
#include "ctx.h"
#include "overlay.h"
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
	if (bytes_write_all(fd, in, len) || lseek(fd, 0, SEEK_SET) < 0) {
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
 * entry. Relative names go to sh, which resolves them in the right cwd.
 * PATH is no setting (include/settings.h) but the environment the child
 * inherits from this process: the one getenv lib keeps, so that we find
 * what sh, searching that same PATH, would run. */
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

/* Called in the supervisor only, which is single-threaded: vfork, so the
 * cost does not grow with the parent's memory, and the child's errno
 * comes back through the memory it borrows. The child resets the
 * signals the supervisor ignores with the kernel's own call (libc's
 * sigaction keeps state of the parent's), takes in, out and err as 0, 1
 * and 2 (one already there loses its close-on-exec) and enters cwd.
 * 0, or the errno of the step that failed. */
static int spawn(pid_t *pid, const char *path, char *const argv[],
		 char *const env[], const char *cwd, int in, int out, int err)
{
	static const unsigned char sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
	const int fds[3] = {in, out, err};
	volatile int e = 0;
	int i;

	*pid = vfork();
	if (*pid == 0) {
		unsigned long long dfl[4] = {0}; /* SIG_DFL in any layout, 32 bytes */
		for (i = 0; i < (int)sizeof(sigs); i++)
			syscall(SYS_rt_sigaction, sigs[i], dfl, NULL, 8);
		for (i = 0; i < 3; i++)
			if (fds[i] == i ? fcntl(i, F_SETFD, 0) : dup2(fds[i], i) < 0)
				break;
		if (i == 3 && (!cwd || !chdir(cwd)))
			execve(path, argv, env);
		e = errno;
		_exit(127);
	}
	if (*pid < 0)
		return errno;
	if (e)
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	return e;
}

/* What to run, decided before the fork: a plain word list naming a
 * program in PATH is exec'd directly, anything else with sh -c. */
struct plan {
	struct arena a;
	char **words; /* NULL: sh -c only */
	char prog[4096];
	char *sh_argv[4];
};

static void plan_make(struct plan *pl, const struct wfs_exec_opts *o)
{
	arena_init(&pl->a);
	pl->words = NULL;
	if (shellwords_split(&pl->a, o->command, strlen(o->command), &pl->words) <= 0 ||
	    shellwords_is_builtin(pl->words[0]) ||
	    find_program(pl->words[0], pl->prog, sizeof(pl->prog)))
		pl->words = NULL;
	pl->sh_argv[0] = "sh";
	pl->sh_argv[1] = "-c";
	pl->sh_argv[2] = (char *)o->command;
	pl->sh_argv[3] = NULL;
}

/* 0, or the errno of starting /bin/sh. */
static int spawn_command(pid_t *pid, const struct plan *pl, const char *cwd,
			 char *const env[], int in, int out, int err)
{
	if (pl->words && !spawn(pid, pl->prog, pl->words, env, cwd, in, out, err))
		return 0;
	return spawn(pid, "/bin/sh", pl->sh_argv, env, cwd, in, out, err);
}

static void spawn_message(int rc, char *msg, size_t msglen)
{
	char eb[128];

	if (rc == ENOENT)
		snprintf(msg, msglen, "failed to execute: /bin/sh: no such file "
				      "or directory (there is no shell in this image; only a "
				      "plain command naming a program in PATH runs without one)");
	else
		snprintf(msg, msglen, "failed to execute: /bin/sh: %s",
			 wfs_strerror(rc, eb, sizeof(eb)));
}

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* The supervisor keeps none of the daemon's descriptors (connections,
 * listeners), which would stay open as long as it lives. */
static void close_from(int lo)
{
	char d[1024];
	int fd, n, i;

	if (!syscall(SYS_close_range, lo, ~0u, 0))
		return;
	fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		for (i = lo; i < 4096; i++)
			close(i);
		return;
	}
	while ((n = (int)syscall(SYS_getdents64, fd, d, sizeof(d))) > 0) {
		for (i = 0; i < n;) {
			unsigned short reclen = *(unsigned short *)(d + i + 16);
			int k = atoi(d + i + 19);
			if (k >= lo && k != fd)
				close(k);
			i += reclen;
		}
	}
	close(fd);
}

/* The supervisor (a forked child: raw calls only). Reports the spawn
 * result on rep, then waits for the command, reaping adopted orphans,
 * and exits as the command did. TERM and the like are ignored here, so
 * it stays the root of the tree until the parent kills it last. */
static void supervise(const struct plan *pl, const struct wfs_exec_opts *o,
		      char *const env[], int in, int out, int err, int rep)
{
	const char *cwd = o->cwd;
	int pty = o->pty;
	struct sigaction sa;
	sigset_t none;
	pid_t cmd = 0, w;
	int rc, st = 0;

	/* A terminal's session leader: the command inherits it as its
	 * controlling terminal, and this group is its foreground. */
	if (!pty)
		setpgid(0, 0);
	else if (setsid() < 0 || ioctl(in, TIOCSCTTY, 0))
		_exit(127);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* the command in a layer's view (single-threaded here, as a user
	 * namespace needs): why not, after a code of -1, on rep */
	if (o->overlay) {
		char why[PATH_MAX + 300];
		if (overlay_enter(o->overlay, o->overlay_dir ? o->overlay_dir : ".", why,
				  sizeof(why))) {
			rc = -1;
			if (write(rep, &rc, sizeof(rc)) > 0 && write(rep, why, strlen(why)) < 0)
				_exit(126);
			_exit(127);
		}
	}
	rc = spawn_command(&cmd, pl, cwd, env, in, out, err);
	if (write(rep, &rc, sizeof(rc)) < 0 || rc)
		_exit(127);
	close_from(0);
	for (;;) {
		w = waitpid(-1, &st, 0);
		if (w == cmd)
			break;
		if (w < 0 && errno != EINTR)
			_exit(127);
	}
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	/* dying of the command's signal, without a core of our own */
	wfs_rlimit(RLIMIT_CORE, NULL, &(struct rlimit){0, 0});
	sa.sa_handler = SIG_DFL;
	sigaction(WTERMSIG(st), &sa, NULL);
	kill(getpid(), WTERMSIG(st));
	_exit(128 + WTERMSIG(st));
}

/* Fork the supervisor and learn whether the command started. */
static int start_supervised(pid_t *pid, const struct wfs_exec_opts *o,
			    char *const env[], int in, int out, int err,
			    char *msg, size_t msglen)
{
	struct plan pl;
	int rep[2], rc = -1, got = 0;
	ssize_t n;
	char eb[128];

	if (pipe2(rep, O_CLOEXEC)) {
		snprintf(msg, msglen, "failed to execute: %s",
			 wfs_strerror(errno, eb, sizeof(eb)));
		return -1;
	}
	plan_make(&pl, o);
	*pid = fork();
	if (*pid == 0) {
		close(rep[0]);
		supervise(&pl, o, env, in, out, err, rep[1]);
	}
	close(rep[1]);
	arena_free(&pl.a);
	if (*pid < 0) {
		close(rep[0]);
		snprintf(msg, msglen, "failed to execute: %s",
			 wfs_strerror(errno, eb, sizeof(eb)));
		return -1;
	}
	while ((n = read(rep[0], &got, sizeof(got))) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(got) && !got) {
		close(rep[0]);
		return 0;
	}
	rc = n == (ssize_t)sizeof(got) ? got : EIO;
	if (rc == -1 && (n = read(rep[0], msg, msglen - 1)) > 0)
		msg[n] = 0; /* the overlay's refusal */
	else
		spawn_message(rc, msg, msglen);
	close(rep[0]);
	while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
		;
	*pid = 0;
	return -1;
}

/* A terminal: the master in *m, the slave (to be the command's) in *s. */
static int pty_open(const struct wfs_exec_opts *o, int *m, int *s)
{
	struct winsize ws = {o->pty_rows ? o->pty_rows : 24, o->pty_cols ? o->pty_cols : 80, 0, 0};
	char name[32];
	int n, unlock = 0;

	*m = fd_high(open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
	if (*m < 0 || ioctl(*m, TIOCSPTLCK, &unlock) || ioctl(*m, TIOCGPTN, &n))
		return -1;
	ioctl(*m, TIOCSWINSZ, &ws);
	snprintf(name, sizeof(name), "/dev/pts/%d", n);
	*s = fd_high(open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
	return *s < 0 ? -1 : 0;
}

/* env_add, and TERM when neither it nor the daemon's environment names
 * one (a container's often does not; curses programs need it). */
static const char *const *pty_env(const char *const *add, const char **tmp, size_t max)
{
	size_t k = 0, i;

	for (i = 0; environ[i]; i++)
		if (!strncmp(environ[i], "TERM=", 5))
			return add;
	for (; add && add[k]; k++) {
		if (!strncmp(add[k], "TERM=", 5) || k + 2 >= max)
			return add;
		tmp[k] = add[k];
	}
	tmp[k] = "TERM=xterm-256color";
	tmp[k + 1] = NULL;
	return tmp;
}

int exec_resize(struct exec_proc *p, unsigned short rows, unsigned short cols)
{
	struct winsize ws = {rows, cols, 0, 0};

	return p->in_fd < 0 ? -1 : ioctl(p->in_fd, TIOCSWINSZ, &ws);
}

int exec_start(struct exec_proc *p, const struct wfs_exec_opts *o,
	       char *err, size_t errlen)
{
	int pout[2] = {-1, -1}, perr[2] = {-1, -1}, pin[2], in = -1, i;
	char **env = environ, eb[128], eb2[PATH_MAX * 2 + 128];
	struct stat st;

	memset(p, 0, sizeof(*p));
	p->in_fd = -1;
	for (i = 0; i < EXEC_NFDS; i++)
		p->fd[i] = -1;
	buf_init(&p->out[0]);
	buf_init(&p->out[1]);
	p->max_output = o->max_output ? o->max_output : EXEC_DEFAULT_MAX_OUTPUT;
	if (o->timeout_ms > 0)
		p->deadline_ms = wfs_now_ms() + o->timeout_ms;
	if ((p->idle_ms = o->idle_ms) > 0)
		p->idle_at = wfs_now_ms() + o->idle_ms;
	if (o->cwd && o->root && confine_check(o->root, o->cwd, eb2, sizeof(eb2))) {
		snprintf(err, errlen, "%s %s: %s", o->cwd_label ? o->cwd_label : "workdir",
			 o->cwd, eb2);
		return -1;
	}
	if (o->cwd && stat(o->cwd, &st)) {
		snprintf(err, errlen, "chdir %s: %s", o->cwd,
			 wfs_strerror(errno, eb, sizeof(eb)));
		return -1;
	}
	if (o->cwd && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "chdir %s: not a directory", o->cwd);
		return -1;
	}
	if (o->pty) {
		const char *tmp[64];
		const char *const *add = pty_env(o->env_add, tmp, 64);

		if (pty_open(o, &pout[0], &in) || (p->in_fd = fcntl(pout[0], F_DUPFD_CLOEXEC, 3)) < 0)
			goto fail_errno;
		if (add && !(env = make_env(add)))
			goto fail_errno;
		if (start_supervised(&p->pid, o, env, in, in, in, err, errlen))
			goto fail;
		close_fd(&in);
		goto started;
	}
	if (o->out_fd > 0) { /* a log: no pipes */
		pout[1] = perr[1] = o->out_fd;
	} else if (pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
		goto fail_errno;
	}
	for (i = 0; o->out_fd <= 0 && i < 2; i++) {
		pout[i] = fd_high(pout[i]);
		perr[i] = fd_high(perr[i]);
	}
	if (o->in_pipe && !o->in && !pipe2(pin, O_CLOEXEC)) {
		in = fd_high(pin[0]);
		p->in_fd = fd_high(pin[1]);
		fcntl(p->in_fd, F_SETFL, O_NONBLOCK);
	} else {
		in = open_stdin(o->in, o->in_len);
	}
	if (in < 0 || (o->in_pipe && !o->in && p->in_fd < 0) || pout[1] < 0 || perr[1] < 0 ||
	    (o->out_fd <= 0 && (pout[0] < 0 || perr[0] < 0)))
		goto fail_errno;
	if (o->env_add && !(env = make_env(o->env_add)))
		goto fail_errno;
	if (start_supervised(&p->pid, o, env, in, pout[1], perr[1], err, errlen))
		goto fail;
	close(in);
	if (o->out_fd <= 0) {
		close(pout[1]);
		close(perr[1]);
		fcntl(pout[0], F_SETFL, O_NONBLOCK);
		fcntl(perr[0], F_SETFL, O_NONBLOCK);
	}
	p->fd[EXEC_ERR] = perr[0];
started:
	if (env != environ)
		free(env);
	p->fd[EXEC_OUT] = pout[0];
	p->fd[EXEC_PID] = fd_high((int)syscall(SYS_pidfd_open, p->pid, 0));
	return 0;

fail_errno:
	snprintf(err, errlen, "failed to execute: %s",
		 wfs_strerror(errno, eb, sizeof(eb)));
fail:
	if (env != environ)
		free(env);
	close_fd(&p->in_fd);
	close_fd(&in);
	if (o->out_fd <= 0) { /* the log is the caller's */
		close_fd(&pout[1]);
		close_fd(&perr[1]);
	}
	close_fd(&pout[0]);
	close_fd(&perr[0]);
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
	p->signal = si.si_code == CLD_EXITED ? 0 : si.si_status;
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

		if (room && !p->sink && !buf_reserve(b, room < want ? room : want)) {
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
		if (p->idle_at)
			p->idle_at = wfs_now_ms() + p->idle_ms;
		if (p->sink) {
			if (p->sink(p, i - EXEC_OUT, scratch, (size_t)n))
				return;
		} else if (dst == scratch)
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

/* Parent of pid from /proc/PID/stat; -1 when gone or a zombie. */
static pid_t live_parent(const char *pid)
{
	char path[64], b[512], *e;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	b[n > 0 ? n : 0] = 0;
	e = strrchr(b, ')');
	if (!e || e[1] != ' ' || e[2] == 'Z' || e[2] == 'X')
		return -1;
	return (pid_t)strtol(e + 4, NULL, 10);
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Signal every live descendant of root (not root itself), found in
 * /proc. Returns how many, and them in *set, sorted (the caller frees
 * it; NULL when none or out of memory). A child is listed after its
 * parent only when its pid is larger, so the walk repeats until it finds
 * nothing new. */
static int signal_descendants(pid_t root, int sig, pid_t **set)
{
	pid_t *tree = NULL, *pp = NULL, *np;
	size_t n = 0, cap = 0, i, k;
	int found = 0, grew = 1;
	struct dirent *e;
	DIR *dir = opendir("/proc");

	*set = NULL;
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		pid_t parent;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		parent = live_parent(e->d_name);
		if (parent <= 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			np = realloc(tree, 2 * cap * sizeof(*tree));
			if (!np)
				break;
			tree = np;
		}
		tree[2 * n] = (pid_t)atoi(e->d_name);
		tree[2 * n + 1] = parent;
		n++;
	}
	closedir(dir);
	pp = calloc(n + 1, sizeof(*pp)); /* the set: pp[0..found) */
	if (!pp) {
		free(tree);
		return 0;
	}
	while (grew) {
		grew = 0;
		for (i = 0; i < n; i++) {
			pid_t me = tree[2 * i], parent = tree[2 * i + 1];
			int in = parent == root, mine = 0;
			for (k = 0; k < (size_t)found && !in; k++)
				in = pp[k] == parent;
			for (k = 0; k < (size_t)found && !mine; k++)
				mine = pp[k] == me;
			if (in && !mine && me != root) {
				pp[found++] = me;
				kill(me, sig);
				grew = 1;
			}
		}
	}
	free(tree);
	qsort(pp, (size_t)found, sizeof(*pp), pid_cmp);
	*set = pp;
	return found;
}

/* The group, and the supervisor's descendants that left it. For KILL
 * the descendants go first, round after round while a fork storm makes
 * new ones, and the supervisor last: while it lives, orphans come to it
 * rather than escaping to init. A process with a KILL pending cannot
 * finish a fork, and a child whose fork did finish is in /proc before
 * the next scan. So the rounds go on while any descendant is found (the
 * killed ones are torn down in the meantime), for 50 rounds at least and
 * past them while a round finds one the round before did not. (A fixed
 * 50 could end on a loaded machine while a child forked in the last
 * round was still unseen, and it went to init with the supervisor.) */
static void signal_group(struct exec_proc *p, int sig)
{
	pid_t *prev = NULL, *cur;
	int round, n, nprev = 0, fresh, i;

	if (p->pid <= 0)
		return;
	if (!p->exited)
		for (round = 0; round < 1000; round++) {
			n = signal_descendants(p->pid, sig, &cur);
			for (fresh = i = 0; i < n && cur; i++)
				fresh += !prev || !bsearch(&cur[i], prev, (size_t)nprev,
							   sizeof(*cur), pid_cmp);
			free(prev);
			prev = cur;
			nprev = cur ? n : 0;
			if (sig != SIGKILL || !n || (!fresh && round >= 50))
				break;
		}
	free(prev);
	kill(-p->pid, sig);
	if (!p->exited)
		kill(p->pid, sig);
}

void exec_kill(struct exec_proc *p, long long now)
{
	if (exec_done(p) || p->kill_ms || p->abandon_ms)
		return;
	/* Held stopped until the KILL step: a supervisor that exited with a
	 * command dying of the TERM would hand the processes it adopted
	 * (started after the scan, or in the grace) to init, out of reach. */
	if (!p->exited && p->pid > 0)
		kill(p->pid, SIGSTOP);
	signal_group(p, SIGTERM);
	p->kill_ms = now + EXEC_TERM_GRACE_MS;
}

static long long earliest(long long a, long long b)
{
	return !a ? b : !b ? a
		: a < b    ? a
			   : b;
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
	if (p->idle_at && !p->timed_out && now >= p->idle_at) {
		p->timed_out = EXEC_IDLE;
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
	if (!p->timed_out) {
		next = earliest(next, p->deadline_ms);
		next = earliest(next, p->idle_at);
	}
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
	close_fd(&p->in_fd);
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
	res->signal = p->signal;
}

void exec_abort(struct exec_proc *p)
{
	int i;

	if (p->pid > 0)
		signal_group(p, SIGKILL);
	reap(p);
	close_fd(&p->in_fd);
	for (i = 0; i < EXEC_NFDS; i++)
		proc_close(p, i);
	buf_free(&p->out[0]);
	buf_free(&p->out[1]);
}

void exec_release(struct exec_proc *p)
{
	int i;

	p->pid = 0;
	close_fd(&p->in_fd);
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
