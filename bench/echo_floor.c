/* echo_floor.c - the floor a daemon's round trip is measured against.
 *
 * usage: echo_floor SOCKET REPLY_FILE [READ_FILE]
 * Listens on the Unix socket SOCKET; a thread per connection reads a
 * request line (up to '\n') and answers with REPLY_FILE's bytes (the
 * daemon's own answer to that request, so that both move the same bytes),
 * with blocking read and write calls and nothing else: what any server
 * on this socket, this machine and this load generator cannot beat.
 * With READ_FILE, each request also opens, fstat's, reads and closes it
 * (the file the request reads): the floor of a server that answers a
 * read from the file itself, as the daemon must (its content may change
 * between two requests).
 * Stops when stdin closes or reaches EOF (so a benchmark script that
 * dies takes it along).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char *reply;
static size_t reply_len;
static const char *read_file;

/* What answering from the file costs: open, fstat, read, close. */
static int read_it(void)
{
	char b[65536];
	struct stat st;
	int fd = open(read_file, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = !fstat(fd, &st) && read(fd, b, sizeof(b)) >= 0;
	close(fd);
	return ok ? 0 : -1;
}

static void *serve(void *arg)
{
	int fd = (int)(long)arg;
	char in[65536];
	size_t have = 0;

	for (;;) {
		char *nl;
		ssize_t n = read(fd, in + have, sizeof(in) - have);

		if (n <= 0)
			break;
		have += (size_t)n;
		while ((nl = memchr(in, '\n', have))) {
			size_t used = (size_t)(nl - in) + 1, off = 0;

			if (read_file && read_it())
				goto out;

			while (off < reply_len) {
				ssize_t w = write(fd, reply + off, reply_len - off);
				if (w <= 0)
					goto out;
				off += (size_t)w;
			}
			memmove(in, in + used, have - used);
			have -= used;
		}
		if (have == sizeof(in))
			break;
	}
out:
	close(fd);
	return NULL;
}

static void *watch_stdin(void *arg)
{
	char c;

	(void)arg;
	while (read(0, &c, 1) > 0)
		;
	exit(0);
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	pthread_t t;
	FILE *f;
	long size;
	int lfd;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: echo_floor SOCKET REPLY_FILE [READ_FILE]\n");
		return 2;
	}
	read_file = argc == 4 ? argv[3] : NULL;
	if (!(f = fopen(argv[2], "rb")) || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(reply = malloc((size_t)size)) ||
	    fread(reply, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "echo_floor: cannot read %s\n", argv[2]);
		return 1;
	}
	fclose(f);
	reply_len = (size_t)size;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	unlink(argv[1]);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 128)) {
		perror("echo_floor: listen");
		return 1;
	}
	pthread_create(&t, NULL, watch_stdin, NULL);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		if (pthread_create(&t, NULL, serve, (void *)(long)fd))
			close(fd);
		else
			pthread_detach(t);
	}
}
