/* reply.h - the bytes of every answer: the applet envelope, exec's
 * result, and the daemon's legacy response line (lib/reply.c).
 *
 * The Go host reads daemon responses with a bufio.Scanner of 10 MiB: a
 * line that reaches REPLY_LINE_MAX, newline included, ends its
 * connection. Answers that carry command output are cut to fit (and say
 * so with their truncation flags); callers check the others.
 */
#ifndef WFS_REPLY_H
#define WFS_REPLY_H

#include <stddef.h>
#include "buf.h"
#include "wickfs.h"

#define REPLY_LINE_MAX (10u << 20)

/* A command's outcome as the answers show it. */
struct reply_run {
	const char *out, *err;
	size_t out_len, err_len;
	int exit_code;
	int out_truncated, err_truncated, timed_out;
};

/* The fields of an exec result. */
struct reply_run reply_run_of(const struct wfs_exec_result *res);

/* {"ok":true,"data": ... and its closing }\n */
void reply_ok_open(struct buf *b);
void reply_ok_close(struct buf *b);
/* {"ok":false,"error":MSG}\n */
void reply_error_line(struct buf *b, const char *msg);
/* exec's envelope {"ok":true,"data":{"stdout","stderr","exit_code",...}}
 * in fewer than max bytes: the streams are cut to fit, and flagged. */
void reply_exec(struct buf *b, const struct reply_run *run, size_t max);
/* The daemon's legacy line {"id","stdout","stderr","exit_code",
 * "stdout_truncated"?,"stderr_truncated"?,"error"?}\n, fewer than max
 * bytes in all: the streams are cut to fit, and flagged. error may be
 * NULL. */
void reply_legacy(struct buf *b, const char *id, size_t id_len,
		  const struct reply_run *run, const char *error, size_t max);
/* The error envelope of an answer of size bytes that no line can hold,
 * saying how to ask for less. */
void reply_too_big(struct buf *b, const char *applet, size_t size);
/* Bytes a legacy line takes besides its two streams' escaped text. */
size_t reply_legacy_overhead(const char *id, size_t id_len, const char *error);

#endif
