/* swapper.c - swap two names in a tight loop until SIGTERM, to race the
 * confinement: a directory and a symlink to the outside trade places.
 *
 * usage: swapper A B COUNTFILE
 * Each round exchanges A and B atomically (renameat2 RENAME_EXCHANGE), or
 * where the filesystem lacks that, by three renames through A.swaptmp. At
 * SIGTERM the names are put back as they were and the number of rounds
 * is written to COUNTFILE, so a test can tell the race really ran.
 * COUNTFILE is created empty once SIGTERM is handled: wait for it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_renameat2
#define SYS_renameat2 316
#endif
#define EXCHANGE 2 /* RENAME_EXCHANGE */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* One exchange; 0 or -1. */
static int swap(const char *a, const char *b, const char *tmp, int *plain)
{
	if (!*plain) {
		if (!syscall(SYS_renameat2, -100, a, -100, b, EXCHANGE))
			return 0;
		if (errno != EINVAL && errno != ENOSYS)
			return -1;
		*plain = 1;
	}
	if (rename(a, tmp) || rename(b, a) || rename(tmp, b))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long rounds = 0;
	struct sigaction sa;
	char tmp[4096];
	int plain = 0;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: swapper A B COUNTFILE\n");
		return 2;
	}
	snprintf(tmp, sizeof(tmp), "%s.swaptmp", argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	/* ready: from now on SIGTERM ends the loop cleanly */
	f = fopen(argv[3], "w");
	if (!f || fclose(f))
		return 1;
	while (!stop) {
		if (swap(argv[1], argv[2], tmp, &plain)) {
			perror("swapper");
			return 1;
		}
		rounds++;
	}
	/* an odd count left them exchanged: once more */
	if (rounds % 2 && swap(argv[1], argv[2], tmp, &plain)) {
		perror("swapper");
		return 1;
	}
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%llu\n", rounds);
	return fclose(f) ? 1 : 0;
}
