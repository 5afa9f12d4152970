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

/* For a request (lib/applet.c runs the applets): */
struct req;
/* Envelope helpers. reply_ok_begin writes {"ok":true,"data": and
 * reply_ok_end closes it; both return 0. reply_error writes the error
 * envelope and returns 1. */
int reply_ok_begin(struct req *r);
int reply_ok_end(struct req *r);
int reply_error(struct req *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* reply_error with the message left in r->ctx->err by a wfs_* call. */
int reply_ctx_error(struct req *r);
/* The answer of an applet that acted on one path (argv[0]) and counts
 * something: {"path":ARGV0,"KEY":N} in the ok envelope. Returns 0. */
int reply_path_num(struct req *r, const char *key, long long n);
/* The answer of an applet that built its data in b apart (so that a
 * failure half-way leaves nothing in r->out): b in the ok envelope when
 * rc is 0, else r->ctx's error. b is freed; returns 0 or 1. */
int reply_buf(struct req *r, struct buf *b, int rc);

#endif
