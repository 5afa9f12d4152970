/* text.h - answers for people: the text form of an applet's answer
 * (lib/text.c). wickfs -t / WICKFS_OUTPUT=text turn it on in the CLI;
 * JSON stays the default and the daemon's only form.
 *
 * An applet with a text form of its own defines NAME_text (the table
 * names it); the rest get the generic form: a string as its bytes, an
 * object as "key: value" lines, a list one item a line. Errors go to
 * stderr as "wickfs APPLET: PATH: cause". */
#ifndef WFS_TEXT_H
#define WFS_TEXT_H

#include "buf.h"
#include "json.h"

struct req;

/* Turn the JSON answer the applet left in r->out (from offset base) into
 * its text form; rc is the applet's status. Returns the exit status. */
int text_render(struct req *r, size_t base, int rc);
/* The error line on r->err; returns 1. msg is "OP PATH: cause" as the
 * operations word it: the applet's name gets its colon. */
int text_error(struct req *r, const char *msg);
/* A value as a person reads it: a string's bytes, a number's literal,
 * true/false, anything else as compact JSON. */
void text_value(struct buf *b, const struct json_val *v);
/* v as compact JSON (a number without its text as 0). */
void text_json(struct buf *b, const struct json_val *v);
/* The generic form of data (see above). */
void text_generic(struct buf *b, const struct json_val *data);
/* The member key of obj: its string (NULL when absent or not a string),
 * its number, its boolean. */
const char *text_str(const struct json_val *obj, const char *key);
long long text_num(const struct json_val *obj, const char *key);
int text_bool(const struct json_val *obj, const char *key);

#endif
