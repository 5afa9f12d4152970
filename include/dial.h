/* dial.h - a client's side of a daemon connection (lib/dial.c): connect to
 * unix:PATH or tcp:HOST:PORT, send all, read one line. */
#ifndef WFS_DIAL_H
#define WFS_DIAL_H

#include <stddef.h>
#include "buf.h"

/* A connected socket (send and receive timeouts timeout_s), or -1 with
 * "connect ADDR: cause" (or "socket path too long: PATH") in err. ADDR:
 * unix:PATH, tcp:HOST:PORT, a path with a '/', or HOST:PORT. */
int dial_connect(const char *addr, int timeout_s, char *err, size_t errlen);
/* All n bytes (no SIGPIPE): 0, or -1 with errno. */
int dial_send_all(int fd, const char *p, size_t n);
/* One line into b, without its '\n', reading no byte past it (the rest
 * stays for the next call): 0, or -1 at the end or an error. */
int dial_recv_line(int fd, struct buf *b);

#endif
