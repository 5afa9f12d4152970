/* exec.c - run a shell command
 *
 * APPLET(exec, "timeout#<0 max-output#<0 cwd:", 1, -1, APPLET_STOP_AT_ARG|APPLET_REF(1)|APPLET_SPAWNS)
 *
 * config APPLET_EXEC
 *	bool "exec: run a command, capture its output"
 *	default y
 *	help
 *	  usage: wickfs exec [--timeout SECONDS] [--max-output BYTES] [--cwd DIR] COMMAND...
 *
 *	  Join COMMAND's words with spaces and run them with sh -c (or
 *	  directly when they are plain words naming a program), stdin
 *	  /dev/null, in a process group of its own:
 *	  {"stdout","stderr","exit_code"}; exit_code -1 when killed by a
 *	  signal. ok is true even when the command fails. A single argument
 *	  is always the command, even "--help"; -- ends the options.
 *
 *	  --timeout SECONDS  kill the whole group (TERM, then KILL) after
 *	                     SECONDS: exit_code 124, "timed_out":true
 *	  --max-output BYTES keep at most BYTES of each stream (default
 *	                     10 MiB); the rest is discarded and
 *	                     "stdout_truncated"/"stderr_truncated" are set
 *	  --cwd DIR          run in DIR
 *
 *	  Example: wickfs exec --timeout 600 'make test'
 */
#define FOR_exec
#include "applet_opts.h"
#include "applet.h"
#include "reply.h"

/* Text mode: the command's output as it wrote it, its exit status as
 * ours (a signal as a shell reports it, 128 + N; a timeout 124), and what
 * was cut or stopped said on stderr. */
static int exec_text_out(struct req *r, struct wfs_exec_result *res)
{
	int rc = res->exit_code;

	r->text_done = 1;
	buf_add(r->out, res->out.p, res->out.len);
	buf_add(r->err, res->err.p, res->err.len);
	if (res->out_truncated || res->err_truncated)
		buf_printf(r->err, "wickfs exec: output cut at %lld bytes a stream (--max-output)\n",
			   opt_num(r, OPT_max_output));
	if (res->timed_out)
		buf_printf(r->err, "wickfs exec: timed out after %lld s, killed\n",
			   opt_num(r, OPT_timeout));
	if (rc < 0)
		rc = res->signal > 0 ? 128 + res->signal : 137;
	buf_free(&res->out);
	buf_free(&res->err);
	return rc;
}

int exec_main(struct req *r)
{
	struct wfs_exec_opts o = {0};
	struct wfs_exec_result res;
	struct reply_run run;
	struct buf cmd;
	int i;

	buf_init(&cmd);
	for (i = 0; i < r->argc; i++) {
		if (i)
			buf_putc(&cmd, ' ');
		buf_puts(&cmd, r->argv[i]);
	}
	if (cmd.oom) {
		buf_free(&cmd);
		return reply_error(r, "exec: out of memory");
	}
	o.command = cmd.p ? cmd.p : "";
	o.cwd = opt_str(r, OPT_cwd);
	o.root = r->ctx->root;
	o.cwd_label = "exec --cwd";
	o.timeout_ms = opt_num(r, OPT_timeout) * 1000;
	o.max_output = (size_t)opt_num(r, OPT_max_output);
	if (wfs_exec(r->ctx, &o, &res)) {
		buf_free(&cmd);
		return reply_ctx_error(r);
	}
	buf_free(&cmd);
	if (r->text)
		return exec_text_out(r, &res);
	run = reply_run_of(&res);
	reply_exec(r->out, &run, REPLY_LINE_MAX);
	buf_free(&res.out);
	buf_free(&res.err);
	return 0;
}
