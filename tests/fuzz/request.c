/* request.c - fuzz target: the daemon's NDJSON request decoder.
 *
 * One request line through the parse entry (request_parse in
 * lib/daemon/request.c): it must answer an error or describe a job, never
 * crash, leak or run anything. Kept thin so the entry can be re-pointed
 * when the decoder moves. The first byte picks whether a token is
 * required.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../lib/daemon/daemon_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct daemon_opts o;
	struct daemon d;
	struct job *j;

	if (!size)
		return 0;
	memset(&o, 0, sizeof(o));
	memset(&d, 0, sizeof(d));
	o.token = data[0] & 1 ? "s3cret" : NULL;
	o.max_output = 1 << 20;
	d.o = &o;
	d.stopping = 1; /* job_free frees, no cache to clean up */
	j = request_parse(&d, (const char *)data + 1, size - 1);
	if (!j) {
		session_free_all(&d);
		return 0;
	}
	if (j->mode == JOB_DONE && (!j->resp.len || j->resp.p[j->resp.len - 1] != '\n'))
		abort(); /* an answer is one whole line */
	if (j->mode == JOB_APPLET && (!j->applet || j->argc < 0 || j->argv[j->argc]))
		abort();
	if ((j->mode == JOB_SHELL || j->mode == JOB_EXEC_APPLET) && !j->exec.command)
		abort();
	if (j->mode != JOB_DONE && j->timeout_s <= 0)
		abort();
	job_free(j);
	session_free_all(&d); /* what a "session" made, as the daemon ends */
	return 0;
}
