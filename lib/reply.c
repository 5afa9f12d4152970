/* reply.c - the one writer of answers: envelopes, exec results and the
 * daemon's legacy lines, each within a byte budget where it carries
 * command output (include/reply.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "json.h"
#include "applet.h"
#include "reply.h"

/* Room for everything but the two streams: keys, exit code, flags. */
#define FIXED 200

struct reply_run reply_run_of(const struct wfs_exec_result *res)
{
	struct reply_run r = {
		res->out.p ? res->out.p : "", res->err.p ? res->err.p : "",
		res->out.len, res->err.len, res->exit_code,
		res->out_truncated, res->err_truncated, res->timed_out};
	return r;
}

void reply_ok_open(struct buf *b)
{
	buf_puts(b, "{\"ok\":true,\"data\":");
}

void reply_ok_close(struct buf *b)
{
	buf_puts(b, "}\n");
}

void reply_error_line(struct buf *b, const char *msg)
{
	buf_puts(b, "{\"ok\":false,\"error\":");
	json_cstr(b, msg);
	buf_puts(b, "}\n");
}

/* "stdout":..,"stderr":..,"exit_code":N with the streams' escaped text
 * within budget bytes: when both do not fit, the smaller keeps what it
 * needs up to half and the other takes the rest. Escaping counts, so 3 MB
 * of NUL bytes (18 MB escaped) are cut as they would be sent. */
static void streams(struct buf *b, const struct reply_run *run, size_t budget)
{
	const char *s[2] = {run->out, run->err};
	size_t fit[2] = {run->out_len, run->err_len}, need[2], half, used;

	if ((fit[0] + fit[1]) > budget / 6) {
		need[0] = json_str_size(s[0], fit[0], budget, &fit[0]);
		need[1] = json_str_size(s[1], fit[1], budget, &fit[1]);
		if (fit[0] < run->out_len || fit[1] < run->err_len ||
		    need[0] + need[1] > budget) {
			fit[0] = run->out_len;
			fit[1] = run->err_len;
			half = budget / 2;
			used = need[0] <= half   ? need[0]
			       : need[1] <= half ? budget - need[1]
						 : half;
			used = json_str_size(s[0], fit[0], used, &fit[0]);
			json_str_size(s[1], fit[1], budget - used, &fit[1]);
		}
	}
	buf_puts(b, "\"stdout\":");
	json_str(b, s[0], fit[0]);
	buf_puts(b, ",\"stderr\":");
	json_str(b, s[1], fit[1]);
	buf_printf(b, ",\"exit_code\":%d", run->exit_code);
	if (run->out_truncated || fit[0] < run->out_len)
		buf_puts(b, ",\"stdout_truncated\":true");
	if (run->err_truncated || fit[1] < run->err_len)
		buf_puts(b, ",\"stderr_truncated\":true");
}

static size_t less(size_t max, size_t n)
{
	return max > n ? max - n : 0;
}

void reply_exec(struct buf *b, const struct reply_run *run, size_t max)
{
	reply_ok_open(b);
	buf_putc(b, '{');
	streams(b, run, less(max, FIXED));
	if (run->timed_out)
		buf_puts(b, ",\"timed_out\":true");
	buf_putc(b, '}');
	reply_ok_close(b);
}

size_t reply_legacy_overhead(const char *id, size_t id_len, const char *error)
{
	return FIXED + json_str_size(id, id_len, SIZE_MAX, NULL) +
	       (error ? json_str_size(error, strlen(error), SIZE_MAX, NULL) : 0);
}

void reply_legacy(struct buf *b, const char *id, size_t id_len,
		  const struct reply_run *run, const char *error, size_t max)
{
	buf_puts(b, "{\"id\":");
	json_str(b, id, id_len);
	buf_putc(b, ',');
	streams(b, run, less(max, reply_legacy_overhead(id, id_len, error)));
	if (error && *error) {
		buf_puts(b, ",\"error\":");
		json_cstr(b, error);
	}
	buf_puts(b, "}\n");
}

void reply_too_big(struct buf *b, const char *applet, size_t size)
{
	char msg[400];

	snprintf(msg, sizeof(msg), "%s: the answer is %zu bytes, more than one "
				   "daemon response line holds (%u bytes); ask for less: "
				   "read --bytes --offset N --limit N reads a part of a file, "
				   "grep --max N caps the matches",
		 applet, size, REPLY_LINE_MAX);
	reply_error_line(b, msg);
}

/* ---- the applet envelope, for a request (include/applet.h) ---- */

int reply_ok_begin(struct req *r)
{
	reply_ok_open(r->out);
	return 0;
}

int reply_ok_end(struct req *r)
{
	reply_ok_close(r->out);
	return 0;
}

int reply_error(struct req *r, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	wfs_vformat(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	reply_error_line(r->out, msg);
	return 1;
}

int reply_ctx_error(struct req *r)
{
	return reply_error(r, "%s", r->ctx->err);
}

int reply_path_num(struct req *r, const char *key, long long n)
{
	reply_ok_begin(r);
	buf_puts(r->out, "{\"path\":");
	json_cstr(r->out, r->argv[0]);
	buf_printf(r->out, ",\"%s\":%lld}", key, n);
	return reply_ok_end(r);
}

int reply_buf(struct req *r, struct buf *b, int rc)
{
	if (!rc) {
		reply_ok_begin(r);
		buf_add(r->out, b->p, b->len);
		reply_ok_end(r);
	}
	buf_free(b);
	return rc ? reply_ctx_error(r) : 0;
}
