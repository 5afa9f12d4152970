/* init.c - a tiny init for containers: start one command, pass signals on,
 * reap orphans
 *
 * APPLET(init, "", 1, -1, APPLET_STOP_AT_ARG|APPLET_CLI_ONLY|APPLET_OUTSIDE_ROOT)
 *
 * Not APPLET_SPAWNS: its command is the container's entrypoint, chosen by
 * whoever starts the container (often `wickfs daemon`, which keeps
 * read-only mode itself), never by a request; read-only mode must not
 * stop the container from starting.
 *
 * config APPLET_INIT
 *	bool "init: run a command as PID 1 (signals, zombies, exit status)"
 *	default y
 *	help
 *	  usage: wickfs init [--] COMMAND [ARGS...]   (or run as wickfs-init)
 *
 *	  Start COMMAND (found in PATH) and wait for it. SIGTERM, SIGINT,
 *	  SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGWINCH sent to init are
 *	  sent on to COMMAND; every orphan that is handed to init is reaped.
 *	  The exit status is COMMAND's, or 128+N when a signal N killed it.
 *	  Meant as a container's entrypoint, where it runs as PID 1:
 *	  wickfs init -- wick-daemon. Elsewhere it makes itself the child
 *	  subreaper, so orphans of COMMAND are still reaped. Prints no JSON.
 *
 *	  Example: wickfs init -- sh -c 'exec my-server'
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "applet.h"

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT,
				SIGUSR1, SIGUSR2, SIGWINCH};

/* PID 1 drops signals that have no handler; a handler that does nothing
 * makes them count, and sigwaitinfo() takes them while they are blocked. */
static void no_op(int sig)
{
	(void)sig;
}

/* Reap every child that has exited; returns 1 once CHILD is among them,
 * with its wait status in *status. */
static int reap(pid_t child, int *status)
{
	int st, done = 0;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0 || (p < 0 && errno == EINTR)) {
		if (p == child) {
			*status = st;
			done = 1;
		}
	}
	return done;
}

int init_main(struct req *r)
{
	struct sigaction sa;
	sigset_t set, old;
	pid_t child;
	size_t i;
	int status = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = no_op;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		sigaddset(&set, forwarded[i]);
		sigaction(forwarded[i], &sa, NULL);
	}
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (getpid() != 1)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	child = fork();
	if (child < 0) {
		dprintf(2, "wickfs init: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
			sigaction(forwarded[i], &dfl, NULL);
		sigaction(SIGCHLD, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(r->argv[0], r->argv);
		dprintf(2, "wickfs init: %s: %s\n", r->argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}

	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);

		if (sig < 0)
			continue; /* EINTR */
		if (sig != SIGCHLD) {
			kill(child, sig);
			continue;
		}
		if (reap(child, &status))
			break;
	}
	/* Orphans that exited along with the command are reaped too. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
