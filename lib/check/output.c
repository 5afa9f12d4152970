/* output.c - results in goss's formats
 *
 * documentation and rspecish for people, json with goss's field names,
 * junit and tap for CI, silent for the exit status alone. The summary
 * lines are goss's, so scripts that grep them keep working.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "ctx.h"
#include "check_int.h"

/* clang-format off */
static const char *const formats[] = {
	"documentation", "rspecish", "json", "junit", "tap", "silent", NULL,
};
/* clang-format on */

int check_format_known(const char *f)
{
	size_t i;

	for (i = 0; f && formats[i]; i++)
		if (!strcmp(formats[i], f))
			return 1;
	return !f;
}

/* goss shows an expectation as a list: [true], ["0644"]. */
static void listed(struct buf *b, const char *e)
{
	if (e[0] == '[')
		buf_puts(b, e);
	else
		buf_printf(b, "[%s]", e);
}

static void expected(struct buf *b, const struct check_result *r)
{
	listed(b, r->expected ? r->expected : "null");
}

static void head(struct buf *b, const struct check_result *r)
{
	buf_printf(b, "%s: %s: %s", r->type, r->id, r->property);
}

/* One result as a person reads it; fails span lines. */
static void human(struct buf *b, const struct check_result *r)
{
	head(b, r);
	if (r->result == CHECK_SKIPPED) {
		buf_puts(b, ": skipped");
		if (r->how && strcmp(r->how, "skip: true"))
			buf_printf(b, " (%s)", r->how);
	} else if (r->err) {
		buf_printf(b, ": Error: %s", r->err);
	} else if (r->result == CHECK_OK) {
		buf_puts(b, ": matches expectation: ");
		expected(b, r);
	} else if (r->found) {
		buf_printf(b, ":\nExpected\n    %s\nto %s\n    %s", r->found, r->how, r->want);
	} else {
		buf_printf(b, ": doesn't match, expect: ");
		expected(b, r);
		buf_printf(b, " (%s)", r->how ? r->how : "");
	}
}

/* The same on one line, for TAP and JUnit names. */
static void one_line(struct buf *b, const struct check_result *r)
{
	size_t from = b->len, i;

	human(b, r);
	for (i = from; i < b->len; i++)
		if (b->p[i] == '\n')
			b->p[i] = ' ';
}

/* Seconds with milliseconds, "0.012" (no floating point formatting). */
static const char *secs(char *t, long long ns)
{
	snprintf(t, 32, "%lld.%03lld", ns / 1000000000, ns / 1000000 % 1000);
	return t;
}

static void summary(struct buf *b, size_t n, size_t failed, size_t skipped, long long ns)
{
	char t[32];

	buf_printf(b, "Total Duration: %ss\n", secs(t, ns));
	buf_printf(b, "Count: %zu, Failed: %zu, Skipped: %zu\n", n, failed, skipped);
}

static void failures(struct buf *b, const struct check_result *res, size_t n)
{
	size_t i, any = 0;

	for (i = 0; i < n; i++) {
		if (res[i].result == CHECK_OK)
			continue;
		buf_puts(b, any++ ? "\n" : "\n\nFailures/Skipped:\n\n");
		human(b, &res[i]);
		buf_putc(b, '\n');
	}
	buf_putc(b, '\n');
}

static void xml(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '&')
			buf_puts(b, "&amp;");
		else if (c == '<')
			buf_puts(b, "&lt;");
		else if (c == '>')
			buf_puts(b, "&gt;");
		else if (c == '"')
			buf_puts(b, "&quot;");
		else if (c < 0x20 && c != '\n' && c != '\t')
			buf_putc(b, '?'); /* not allowed in XML 1.0 */
		else
			buf_putc(b, (char)c);
	}
}

static void render_json(struct buf *b, const struct check_result *res, size_t n, size_t failed,
			size_t skipped, long long ns)
{
	struct buf h;
	size_t i;
	char t[32];

	buf_init(&h);
	buf_puts(b, "{\"results\":[");
	for (i = 0; i < n; i++) {
		const struct check_result *r = &res[i];

		h.len = 0;
		human(&h, r);
		buf_printf(b, "%s{\"duration\":%lld,\"err\":", i ? "," : "", r->duration_ns);
		if (r->err)
			json_cstr(b, r->err);
		else
			buf_puts(b, "null");
		buf_puts(b, ",\"expected\":");
		expected(b, r);
		buf_puts(b, ",\"found\":");
		if (r->found)
			listed(b, r->found);
		else
			buf_puts(b, "null");
		buf_puts(b, ",\"human\":");
		json_str(b, r->result == CHECK_OK ? "" : h.p, r->result == CHECK_OK ? 0 : h.len);
		buf_printf(b, ",\"meta\":%s,\"property\":", r->meta ? r->meta : "null");
		json_cstr(b, r->property);
		buf_puts(b, ",\"resource-id\":");
		json_cstr(b, r->id);
		buf_puts(b, ",\"resource-type\":");
		json_cstr(b, r->type);
		buf_printf(b, ",\"result\":%d,\"skipped\":%s,\"successful\":%s,\"summary-line\":", r->result,
			   r->result == CHECK_SKIPPED ? "true" : "false",
			   r->result == CHECK_FAILED ? "false" : "true");
		h.len = 0;
		one_line(&h, r);
		json_str(b, h.p, h.len);
		buf_puts(b, ",\"title\":");
		json_cstr(b, r->title ? r->title : "");
		buf_putc(b, '}');
	}
	buf_printf(b, "],\"summary\":{\"failed-count\":%zu,\"skipped-count\":%zu,\"summary-line\":", failed,
		   skipped);
	h.len = 0;
	buf_printf(&h, "Count: %zu, Failed: %zu, Skipped: %zu, Duration: %ss", n, failed, skipped,
		   secs(t, ns));
	json_str(b, h.p, h.len);
	buf_printf(b, ",\"test-count\":%zu,\"total-duration\":%lld}}\n", n, ns);
	buf_free(&h);
}

static void render_junit(struct buf *b, const struct check_result *res, size_t n, size_t failed,
			 size_t skipped, long long ns)
{
	char ts[80], t[32];
	time_t now = time(NULL);
	struct tm tm;
	struct buf h;
	size_t i;

	buf_init(&h);
	wfs_gmtime(now, &tm);
	/* by hand: strftime brings in the time zone code */
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	buf_printf(b, "<testsuite name=\"goss\" errors=\"0\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" time=\"%s\" timestamp=\"%s\">\n",
		   n, failed, skipped, secs(t, ns), ts);
	for (i = 0; i < n; i++) {
		const struct check_result *r = &res[i];

		h.len = 0;
		buf_printf(&h, "%s %s %s", r->type, r->id, r->property);
		buf_putc(&h, 0);
		buf_puts(b, "<testcase name=\"");
		xml(b, h.p);
		buf_printf(b, "\" time=\"%s\">\n", secs(t, r->duration_ns));
		h.len = 0;
		human(&h, r);
		buf_putc(&h, 0);
		if (r->result == CHECK_SKIPPED)
			buf_puts(b, "<skipped/>\n");
		else if (r->result == CHECK_FAILED) {
			buf_puts(b, "<failure message=\"");
			xml(b, r->err ? r->err : "doesn't match");
			buf_puts(b, "\">");
			xml(b, h.p);
			buf_puts(b, "</failure>\n");
		}
		buf_puts(b, "<system-out>");
		xml(b, h.p);
		buf_puts(b, "</system-out>\n</testcase>\n");
	}
	buf_puts(b, "</testsuite>\n");
	buf_free(&h);
}

int check_render(struct buf *b, const char *format, const struct check_result *res, size_t n,
		 long long ns)
{
	size_t i, failed = 0, skipped = 0;
	const char *f = format ? format : "documentation";
	struct buf h;

	for (i = 0; i < n; i++) {
		failed += res[i].result == CHECK_FAILED;
		skipped += res[i].result == CHECK_SKIPPED;
	}
	if (!strcmp(f, "silent"))
		return 0;
	if (!strcmp(f, "json")) {
		render_json(b, res, n, failed, skipped, ns);
		return 0;
	}
	if (!strcmp(f, "junit")) {
		render_junit(b, res, n, failed, skipped, ns);
		return 0;
	}
	if (!strcmp(f, "tap")) {
		buf_init(&h);
		buf_printf(b, "1..%zu\n", n);
		for (i = 0; i < n; i++) {
			size_t k;
			h.len = 0;
			one_line(&h, &res[i]);
			buf_printf(b, "%s %zu - %s", res[i].result == CHECK_FAILED ? "not ok" : "ok", i + 1,
				   res[i].result == CHECK_SKIPPED ? "# SKIP " : "");
			/* '#' starts a TAP directive: escape it in names */
			for (k = 0; k < h.len; k++) {
				if (h.p[k] == '#' && res[i].result != CHECK_SKIPPED)
					buf_putc(b, '\\');
				buf_putc(b, h.p[k]);
			}
			buf_putc(b, '\n');
		}
		buf_free(&h);
		return 0;
	}
	if (!strcmp(f, "rspecish")) {
		for (i = 0; i < n; i++)
			buf_putc(b, res[i].result == CHECK_OK ? '.' : (res[i].result == CHECK_FAILED ? 'F' : 'S'));
		failures(b, res, n);
	} else {
		for (i = 0; i < n; i++) {
			human(b, &res[i]);
			buf_putc(b, '\n');
		}
		failures(b, res, n);
	}
	summary(b, n, failed, skipped, ns);
	return 0;
}
