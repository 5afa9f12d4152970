/* client.c - send one request to a wick-daemon
 *
 * APPLET(client, "connect:$DAEMON_CONNECT token:$DAEMON_TOKEN timeout#<1=120 workdir: i|stdin raw parallel#<1=1 session:", 0, -1, APPLET_STOP_AT_ARG|APPLET_CLI_ONLY|APPLET_OUTSIDE_ROOT)
 *
 * config APPLET_CLIENT
 *	bool "client: drive a wick-daemon from the command line"
 *	default y
 *	help
 *	  usage: wickfs client [--connect unix:PATH|tcp:HOST:PORT] [--token T] [OPTIONS] APPLET [ARGS...]
 *
 *	  Send `wickfs APPLET 'ARG'...` to the daemon and print what the
 *	  applet printed (its envelope, byte for byte), exiting with its
 *	  status. A daemon-level error (token, timeout, ...) prints
 *	  {"ok":false,"error":...} and exits 1 (124 for a timeout). An
 *	  exec's --timeout S becomes exec's own (`exec --timeout S CMD`),
 *	  so it answers as exec does: exit_code 124, timed_out, the output
 *	  so far.
 *
 *	  --connect ADDR  unix:PATH, tcp:HOST:PORT (default DAEMON_CONNECT,
 *	                  else unix:$DAEMON_SOCKET, else unix:/tmp/wick-daemon.sock)
 *	  --token T       the daemon's token (default DAEMON_TOKEN)
 *	  --timeout S     the request's timeout in seconds (default 120)
 *	  --workdir DIR   the request's working directory
 *	  -i, --stdin     send our stdin as the request's stdin
 *	  --raw [LINE...] send each LINE (else each line of stdin) as it is
 *	                  and print each response line
 *	  --parallel N    send the request on N connections at once; print
 *	                  the first answer and exit 1 unless all N answered
 *	  --session NAME  in the daemon's session NAME: commands start in the
 *	                  directory and with the variables the last one left
 *
 *	  Processes: `exec --stream CMD` prints the output as it comes and
 *	  exits with the command's status; `start [--tag T] [--pty]
 *	  [--detach] [--log FILE] CMD` (--pty: on a terminal of this one's
 *	  size; --detach: it outlives the daemon, its output appended to
 *	  FILE, else dropped), `ps`, `logs [-f]
 *	  HANDLE|TAG` (-f: follow to the exit), `kill HANDLE|TAG`, and
 *	  `attach HANDLE|TAG`: the output as it comes, and our stdin as the
 *	  process's input; on a terminal, in raw mode (keys as typed, ^C
 *	  to the process), its size followed; Ctrl-] detaches.
 *
 *	  Files: `watch [-r] PATH` prints a line per change under PATH
 *	  (-r: in subdirectories too) as it comes: `create P`, `modify P`,
 *	  `delete P`, `move FROM -> P`, `overflow N dropped` (-1: the kernel's
 *	  queue overflowed); with --raw, the event lines as they are. It runs
 *	  until interrupted (Ctrl-C) or the daemon ends the watch.
 *
 *	  Example: wickfs client --connect tcp:127.0.0.1:9090 read README.md
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <termios.h>
#include <unistd.h>
#define FOR_client
#include "applet_opts.h"
#include "applet.h"
#include "dial.h"
#include "base64.h"
#include "bytes.h"
#include "json.h"
#include "settings.h"

/* The daemon at addr, or -1 with the error answered. */
static int dial(struct req *r, const char *addr, int timeout_s)
{
	char err[512];
	int fd = dial_connect(addr, timeout_s, err, sizeof(err));

	if (fd < 0)
		reply_error(r, "client: %s", err);
	return fd;
}

static void quote(struct buf *b, const char *s)
{
	buf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *s);
	}
	buf_putc(b, '\'');
}

static void build_request(struct req *r, struct buf *line, const char *token,
			  const char *in, size_t in_len)
{
	struct buf cmd;
	const char *wd = opt_str(r, OPT_workdir);
	int i;

	/* exec's timeout is exec's own --timeout, so a command that runs
	 * too long answers as `wickfs exec --timeout` does (ok, exit_code
	 * 124, timed_out, the output so far), not as a failed request; the
	 * request's timeout is then only a guard behind it. */
	int exec_timeout = r->argc > 1 && !strcmp(r->argv[0], "exec") && r->argv[1][0] != '-';

	buf_init(&cmd);
	buf_puts(&cmd, "wickfs");
	for (i = 0; i < r->argc; i++) {
		buf_putc(&cmd, ' ');
		if (i == 0)
			buf_puts(&cmd, r->argv[0]);
		else
			quote(&cmd, r->argv[i]);
		if (i == 0 && exec_timeout)
			buf_printf(&cmd, " --timeout %lld", opt_num(r, OPT_timeout));
	}
	buf_puts(line, "{\"id\":\"c1\",\"cmd\":");
	json_str(line, cmd.p, cmd.len);
	if (exec_timeout)
		buf_printf(line, ",\"timeout\":%lld", opt_num(r, OPT_timeout) + 10);
	else if (opt_has(r, OPT_timeout))
		buf_printf(line, ",\"timeout\":%lld", opt_num(r, OPT_timeout));
	if (wd) {
		buf_puts(line, ",\"workdir\":");
		json_cstr(line, wd);
	}
	if (in) {
		buf_puts(line, ",\"stdin\":");
		json_str(line, in, in_len);
	}
	if (token) {
		buf_puts(line, ",\"token\":");
		json_cstr(line, token);
	}
	buf_puts(line, "}\n");
	buf_free(&cmd);
}

/* A string field's bytes to fd, base64-decoded when enc says so. */
static void write_data(struct arena *a, int fd, const struct json_val *d,
		       const struct json_val *enc)
{
	unsigned char *raw;
	long n;

	if (!d || d->type != JSON_STR)
		return;
	if (!enc || enc->type != JSON_STR) {
		bytes_write_all(fd, d->str, d->len);
		return;
	}
	raw = arena_alloc(a, d->len * 3 / 4 + 3);
	if (raw && (n = base64_decode(d->str, d->len, raw)) > 0)
		bytes_write_all(fd, raw, (size_t)n);
}

/* A native answer: the envelope without the id; logs prints the
 * output itself. */
static int show_native(struct req *r, const struct json_val *v, const char *line, size_t len)
{
	const struct json_val *ok = json_get(v, "ok"), *d = json_get(v, "data"), *e;
	int good = ok && ok->type == JSON_BOOL && ok->boolean;

	if (good && d && json_get(d, "stdout_offset")) {
		write_data(r->arena, 1, json_get(d, "stdout"), json_get(d, "stdout_encoding"));
		write_data(r->arena, 2, json_get(d, "stderr"), json_get(d, "stderr_encoding"));
		return 0;
	}
	/* exec's answer in text mode: the command's output and status */
	if (good && r->text && (e = json_get(d, "exit_code")) && e->type == JSON_NUM &&
	    json_get(d, "stdout")) {
		write_data(r->arena, 1, json_get(d, "stdout"), NULL);
		write_data(r->arena, 2, json_get(d, "stderr"), NULL);
		r->text_done = 1;
		return (int)e->num;
	}
	e = json_get(v, "error");
	if (!good)
		return reply_error(r, "%s", e && e->type == JSON_STR ? e->str : "bad answer");
	/* our id is c1: {"id":"c1",REST is printed {REST */
	buf_putc(r->out, '{');
	buf_add(r->out, line + 11, len > 11 ? len - 11 : 0);
	buf_putc(r->out, '\n');
	return 0;
}

/* Print what the applet printed; returns its exit status. */
static int show_response(struct req *r, const char *line, size_t len)
{
	const struct json_val *out, *err, *code, *error;
	struct json_val v;
	char msg[256];
	int rc;

	if (json_parse(r->arena, line, len, &v, msg, sizeof(msg)))
		return reply_error(r, "client: bad response from daemon: %s", msg);
	out = json_get(&v, "stdout");
	err = json_get(&v, "stderr");
	code = json_get(&v, "exit_code");
	error = json_get(&v, "error");
	rc = code && code->type == JSON_NUM ? (int)code->num : 1;
	if (err && err->type == JSON_STR)
		buf_add(r->err, err->str, err->len);
	if (error && error->type == JSON_STR && error->len) {
		if (!out || out->type != JSON_STR || !out->len)
			reply_error(r, "%s", error->str);
		else
			buf_add(r->out, out->str, out->len);
		return rc == 124 ? 124 : rc > 0 && rc < 256 ? rc
							    : 1;
	}
	if (out && out->type == JSON_STR)
		buf_add(r->out, out->str, out->len);
	return rc >= 0 && rc < 256 ? rc : 1;
}

static int run_raw(struct req *r, int fd)
{
	struct buf resp;
	const char *in;
	size_t in_len;
	int i, rc = 0;

	buf_init(&resp);
	if (!r->argc) {
		if (req_stdin(r, &in, &in_len)) {
			buf_free(&resp);
			return reply_error(r, "client: reading stdin: %s", strerror(errno));
		}
		if (dial_send_all(fd, in, in_len) || shutdown(fd, SHUT_WR))
			rc = -1;
		while (!rc && !dial_recv_line(fd, &resp)) {
			buf_add(r->out, resp.p, resp.len);
			buf_putc(r->out, '\n');
		}
		buf_free(&resp);
		return 0;
	}
	for (i = 0; i < r->argc && !rc; i++) {
		if (!r->argv[i][strspn(r->argv[i], " \t\r")])
			continue; /* the daemon answers no blank line: wait for none */
		if (dial_send_all(fd, r->argv[i], strlen(r->argv[i])) || dial_send_all(fd, "\n", 1) ||
		    dial_recv_line(fd, &resp)) {
			rc = reply_error(r, "client: no response to line %d: %s", i + 1,
					 strerror(errno));
			break;
		}
		buf_add(r->out, resp.p, resp.len);
		buf_putc(r->out, '\n');
	}
	buf_free(&resp);
	return rc;
}

static int run_parallel(struct req *r, const char *addr, int timeout_s,
			struct buf *line, long n)
{
	struct rlimit rl;
	struct buf resp, first;
	int *fds, i, ok = 0, differ = 0, rc = 1;

	if (!wfs_rlimit(RLIMIT_NOFILE, &rl, NULL) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		wfs_rlimit(RLIMIT_NOFILE, NULL, &rl);
	}
	fds = arena_alloc(r->arena, (size_t)n * sizeof(*fds));
	if (!fds)
		return reply_error(r, "client: out of memory");
	for (i = 0; i < n; i++) {
		fds[i] = dial(r, addr, timeout_s);
		if (fds[i] < 0) {
			while (i--)
				close(fds[i]);
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		dial_send_all(fds[i], line->p, line->len);
	/* Every reply is compared with the first one shown: the same request
	 * must get the same answer on each connection, so one odd reply (an
	 * error among successes) fails the run instead of passing unseen. */
	buf_init(&resp);
	buf_init(&first);
	for (i = 0; i < n; i++) {
		if (!dial_recv_line(fds[i], &resp)) {
			if (!ok++) {
				rc = show_response(r, resp.p, resp.len);
				buf_add(&first, resp.p, resp.len);
			} else if (resp.len != first.len ||
				   memcmp(resp.p, first.p, resp.len)) {
				differ++;
			}
		}
		close(fds[i]);
	}
	buf_free(&resp);
	buf_free(&first);
	buf_printf(r->err, "client: %d of %ld connections answered, %d %s from the first\n",
		   ok, n, differ, differ == 1 ? "reply differs" : "replies differ");
	return ok == n && !differ ? rc : 1;
}

/* The process commands: exec --stream, start, ps, logs [-f], kill, attach;
 * and watch [-r] PATH. */
static const char *const proc_cmds[] = {"exec", "start", "ps", "logs",
					"kill", "attach", "watch", NULL};

/* A handle's field: "handle":N for a number, else "tag":NAME. */
static void handle_field(struct buf *line, const char *h)
{
	if (*h && !h[strspn(h, "0123456789")]) {
		buf_printf(line, ",\"handle\":%s", h);
	} else {
		buf_puts(line, ",\"tag\":");
		json_cstr(line, h);
	}
}

/* Its request, or -1 when argv is no process command. */
static int build_proc_request(struct req *r, struct buf *line)
{
	static const char *const ops[] = {"exec", "start", "list", "output", "kill", "attach"};
	char **a = r->argv + 1;
	int k, n = r->argc - 1, args = 0, follow, pty = 0, detach = 0;
	const char *tag = NULL, *log = NULL;
	struct winsize ws;

	for (k = 0; proc_cmds[k] && strcmp(proc_cmds[k], r->argv[0]); k++)
		;
	if (!proc_cmds[k] || (k == 0 && (!n || strcmp(a[0], "--stream"))))
		return -1;
	if (k == 6) {
		follow = n && !strcmp(a[0], "-r");
		buf_puts(line, "{\"id\":\"c1\",\"op\":\"watch\",\"path\":");
		json_cstr(line, n > follow ? a[follow] : "");
		buf_printf(line, ",\"recursive\":%s", follow ? "true" : "false");
		return 0;
	}
	follow = k == 3 && n && !strcmp(a[0], "-f");
	if (k == 0 || follow)
		a++, n--;
	for (; k == 1 && n > 0; a++, n--) {
		if (!strcmp(a[0], "--pty"))
			pty = 1;
		else if (!strcmp(a[0], "--detach"))
			detach = 1;
		else if (n > 1 && !strcmp(a[0], "--tag"))
			tag = *++a, n--;
		else if (n > 1 && !strcmp(a[0], "--log"))
			log = *++a, n--, detach = 1;
		else
			break;
	}
	buf_printf(line, "{\"id\":\"c1\",\"op\":\"%s\"", follow ? "attach" : ops[k]);
	if (pty && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col)
		buf_printf(line, ",\"pty\":{\"rows\":%u,\"cols\":%u}", ws.ws_row, ws.ws_col);
	else if (pty)
		buf_puts(line, ",\"pty\":true");
	if (k == 0 && opt_has(r, OPT_timeout))
		buf_printf(line, ",\"timeout\":%lld", opt_num(r, OPT_timeout));
	if (k == 0 || k == 1) {
		buf_puts(line, k ? ",\"args\":[" : ",\"stream\":true,\"args\":[");
		for (args = 0; args < n; args++) {
			if (args)
				buf_putc(line, ',');
			json_cstr(line, a[args]);
		}
		buf_putc(line, ']');
		if (opt_str(r, OPT_workdir)) {
			buf_puts(line, ",\"workdir\":");
			json_cstr(line, opt_str(r, OPT_workdir));
		}
	} else if (k >= 3) {
		if (n != 1)
			return -1;
		handle_field(line, a[0]);
	}
	if (tag) {
		buf_puts(line, ",\"tag\":");
		json_cstr(line, tag);
	}
	if (detach)
		buf_puts(line, ",\"detach\":true");
	if (log) {
		buf_puts(line, ",\"log\":");
		json_cstr(line, log);
	}
	return 0;
}

/* Our native form: a process command's, or with --session any applet's
 * as {"op","args"}; -1 when it is neither (the reference's form then). */
static int build_native(struct req *r, struct buf *line, const char *token)
{
	const char *session = opt_str(r, OPT_session);
	int i;

	if (build_proc_request(r, line)) {
		const struct applet *a = applet_find(r->argv[0]);
		/* one the daemon runs as its own command: our form finds this
		 * binary where the reference's would need wickfs in PATH */
		if (!session && !(a && (a->flags & APPLET_DAEMON_SPAWN)))
			return -1;
		buf_reset(line);
		buf_puts(line, "{\"id\":\"c1\",\"op\":");
		json_cstr(line, r->argv[0]);
		buf_puts(line, ",\"args\":[");
		for (i = 1; i < r->argc; i++) {
			if (i > 1)
				buf_putc(line, ',');
			json_cstr(line, r->argv[i]);
		}
		buf_putc(line, ']');
		if (opt_has(r, OPT_timeout))
			buf_printf(line, ",\"timeout\":%lld", opt_num(r, OPT_timeout));
	}
	if (session) {
		buf_puts(line, ",\"session\":");
		json_cstr(line, session);
	}
	if (token) {
		buf_puts(line, ",\"token\":");
		json_cstr(line, token);
	}
	buf_puts(line, "}\n");
	return 0;
}

/* A watch's event as a line of text: "create PATH", "move FROM -> PATH",
 * "overflow N dropped" (-1: the kernel's queue overflowed, N unknown). */
static void watch_text(const struct json_val *v, const char *ev)
{
	const struct json_val *f = json_get(v, "from"), *p = json_get(v, "path");
	const struct json_val *n = json_get(v, "dropped");
	struct buf o;

	buf_init(&o);
	buf_puts(&o, ev);
	if (f && f->type == JSON_STR)
		buf_printf(&o, " %s ->", f->str);
	if (p && p->type == JSON_STR)
		buf_printf(&o, " %s", p->str);
	if (n && n->type == JSON_NUM)
		buf_printf(&o, " %lld dropped", (long long)n->num);
	buf_putc(&o, '\n');
	bytes_write_all(*ev == 'w' ? 2 : 1, o.p, o.len);
	buf_free(&o);
}

/* attach's other connection: our input and our terminal's size. */
struct feed {
	int fd, tty;
	const char *who, *token; /* the process's field, as sent */
	struct termios saved;
};

static volatile sig_atomic_t winched;
static void on_winch(int sig)
{
	(void)sig;
	winched = 1;
}

/* One request on the feed connection; its answer is read and dropped
 * (a process that exited says so in the stream). */
static void feed_send(struct feed *f, const char *op, const char *more, const char *s,
		      size_t n)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "{\"id\":\"f\",\"op\":\"%s\"%s%s", op, f->who, more);
	if (s) {
		buf_puts(&b, ",\"stdin\":");
		json_str(&b, s, n);
	}
	if (f->token) {
		buf_puts(&b, ",\"token\":");
		json_cstr(&b, f->token);
	}
	buf_puts(&b, "}\n");
	if (!b.oom && !dial_send_all(f->fd, b.p, b.len))
		dial_recv_line(f->fd, &b);
	buf_free(&b);
}

/* Our input to the process: 1 when the user detached (Ctrl-]). */
static int feed_input(struct feed *f, int *in_open)
{
	char c[4096];
	ssize_t n = read(0, c, sizeof(c));
	char *d = NULL;

	if (n <= 0) {
		*in_open = 0;
		feed_send(f, "input", ",\"eof\":true", "", 0);
		return 0;
	}
	if (f->tty && (d = memchr(c, 0x1d, (size_t)n)))
		n = d - c;
	if (n)
		feed_send(f, "input", "", c, (size_t)n);
	return f->tty && d;
}

static void feed_size(struct feed *f)
{
	struct winsize ws;
	char more[64];

	winched = 0;
	if (ioctl(0, TIOCGWINSZ, &ws) || !ws.ws_row || !ws.ws_col)
		return;
	snprintf(more, sizeof(more), ",\"rows\":%u,\"cols\":%u", ws.ws_row, ws.ws_col);
	feed_send(f, "resize", more, NULL, 0);
}

/* The events of a streamed exec or attach, written as they come; the
 * command's status (124 timed out, 128+N killed by signal N). With a
 * feed (attach), our stdin goes to the process meanwhile. A watch's as
 * text, or as they are with --raw, until its last line. */
static int run_stream(struct req *r, int fd, struct feed *f)
{
	int in_open = f != NULL, raw = opt_has(r, OPT_raw);
	struct timeval none = {0, 0};
	struct arena a; /* one line's, so memory stays that of a line */
	struct buf resp;
	int rc = -1;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	buf_init(&resp);
	arena_init(&a);
	while (rc < 0) {
		const struct json_val *ev, *code, *sig;
		struct json_val v;
		char msg[256];
		struct pollfd p[2] = {{fd, POLLIN, 0}, {0, POLLIN, 0}};

		if (f && winched)
			feed_size(f);
		if (f && poll(p, in_open ? 2 : 1, -1) < 0)
			continue; /* a signal: SIGWINCH */
		if (f && (p[1].revents & (POLLIN | POLLHUP)) && !(p[0].revents & POLLIN)) {
			if (feed_input(f, &in_open)) {
				rc = 0;
				buf_puts(r->err, "\nclient: detached\n");
				break;
			}
			continue;
		}
		if (dial_recv_line(fd, &resp))
			break;
		arena_reset(&a);
		if (json_parse(&a, resp.p, resp.len, &v, msg, sizeof(msg)))
			break;
		if (raw) {
			buf_putc(&resp, '\n');
			bytes_write_all(1, resp.p, resp.len);
		}
		ev = json_get(&v, "event");
		if (!ev || ev->type != JSON_STR) {
			code = json_get(&v, "ok");
			rc = !raw ? show_native(r, &v, resp.p, resp.len) : !(code && code->boolean);
			break;
		}
		if (raw)
			continue;
		if (!strcmp(ev->str, "stdout") || !strcmp(ev->str, "stderr")) {
			write_data(&a, ev->str[3] == 'o' ? 1 : 2, json_get(&v, "data"),
				   json_get(&v, "encoding"));
		} else if (!strcmp(ev->str, "exit")) {
			code = json_get(&v, "exit_code");
			sig = json_get(&v, "signal");
			rc = code && code->type == JSON_NUM ? (int)code->num : 1;
			if (sig && sig->type == JSON_NUM && sig->num > 0)
				rc = 128 + (int)sig->num;
			rc = rc >= 0 && rc < 256 ? rc : 1;
		} else if (strcmp(ev->str, "start")) {
			watch_text(&v, ev->str);
		}
	}
	buf_free(&resp);
	arena_free(&a);
	return rc < 0 ? reply_error(r, "client: the stream ended before the exit") : rc;
}

/* A stream, and for attach its feed: a second connection, our terminal
 * in raw mode (restored on the way out), its size on SIGWINCH. */
static int attach(struct req *r, const char *addr, int timeout_s, int fd, const char *token)
{
	struct feed f = {.tty = isatty(0), .token = token};
	struct termios raw;
	struct buf h;
	char who[300];
	int rc;

	if (strcmp(r->argv[0], "attach"))
		return run_stream(r, fd, NULL);
	if ((f.fd = dial(r, addr, timeout_s)) < 0)
		return 1;
	buf_init(&h);
	handle_field(&h, r->argv[1]);
	snprintf(who, sizeof(who), "%s", h.p ? h.p : "");
	buf_free(&h);
	f.who = who;
	if (f.tty && !tcgetattr(0, &f.saved)) {
		raw = f.saved;
		cfmakeraw(&raw);
		tcsetattr(0, TCSANOW, &raw);
		signal(SIGWINCH, on_winch);
		winched = 1;
	} else {
		f.tty = 0;
	}
	rc = run_stream(r, fd, &f);
	if (f.tty)
		tcsetattr(0, TCSANOW, &f.saved);
	close(f.fd);
	return rc;
}

int client_main(struct req *r)
{
	const char *addr = opt_str(r, OPT_connect), *token = opt_str(r, OPT_token);
	const char *in = NULL, *sock = settings_env(r->ctx->set, "DAEMON_SOCKET");
	char dflt[300];
	int timeout_s = (int)opt_num(r, OPT_timeout) + 30, fd, rc;
	size_t in_len = 0;
	struct buf line, resp;

	if (!addr) {
		snprintf(dflt, sizeof(dflt), "unix:%s",
			 sock && *sock ? sock : "/tmp/wick-daemon.sock");
		addr = dflt;
	}
	if (token && !*token)
		token = NULL;
	if (!opt_has(r, OPT_raw) && !r->argc)
		return reply_error(r, "usage: wickfs client [--connect ADDR] APPLET [ARGS...]");
	if (opt_has(r, OPT_i) && req_stdin(r, &in, &in_len))
		return reply_error(r, "client: reading stdin: %s", strerror(errno));
	buf_init(&line);
	if ((!opt_has(r, OPT_raw) || (r->argc && !strcmp(r->argv[0], "watch"))) &&
	    !build_native(r, &line, token)) {
		fd = dial(r, addr, timeout_s);
		if (fd < 0)
			rc = 1;
		else if (dial_send_all(fd, line.p, line.len))
			rc = reply_error(r, "client: send: %s", strerror(errno));
		else
			rc = attach(r, addr, timeout_s, fd, token);
		if (fd >= 0)
			close(fd);
		buf_free(&line);
		return rc;
	}
	buf_reset(&line);
	if (!opt_has(r, OPT_raw))
		build_request(r, &line, token, in, in_len);
	if (opt_has(r, OPT_parallel)) {
		rc = run_parallel(r, addr, timeout_s, &line, opt_num(r, OPT_parallel));
		buf_free(&line);
		return rc;
	}
	fd = dial(r, addr, timeout_s);
	if (fd < 0) {
		buf_free(&line);
		return 1;
	}
	if (opt_has(r, OPT_raw)) {
		rc = run_raw(r, fd);
		close(fd);
		buf_free(&line);
		return rc;
	}
	buf_init(&resp);
	if (dial_send_all(fd, line.p, line.len) || dial_recv_line(fd, &resp))
		rc = reply_error(r, "client: no response from %s: %s", addr,
				 errno ? strerror(errno) : "connection closed");
	else
		rc = show_response(r, resp.p, resp.len);
	close(fd);
	buf_free(&line);
	buf_free(&resp);
	return rc;
}
