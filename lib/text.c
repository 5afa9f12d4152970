/* text.c - the text form of an answer, for people and CI logs
 *
 * Applets answer in JSON (the hosts' form); the CLI's text mode turns the
 * finished answer into what a person expects, here and in the applets'
 * NAME_text functions. The applets whose output can be large (read, exec,
 * grep) write their text form directly instead, so nothing is held twice.
 */
#include <string.h>
#include "text.h"
#include "applet.h"

void text_json(struct buf *b, const struct json_val *v)
{
	size_t i;

	switch (v->type) {
	case JSON_NULL:
		buf_puts(b, "null");
		break;
	case JSON_BOOL:
		buf_puts(b, v->boolean ? "true" : "false");
		break;
	case JSON_NUM:
		buf_puts(b, v->str ? v->str : "0");
		break;
	case JSON_STR:
		json_str(b, v->str, v->len);
		break;
	case JSON_ARR:
		buf_putc(b, '[');
		for (i = 0; i < v->len; i++) {
			if (i)
				buf_putc(b, ',');
			text_json(b, &v->items[i]);
		}
		buf_putc(b, ']');
		break;
	case JSON_OBJ:
		buf_putc(b, '{');
		for (i = 0; i < v->len; i++) {
			if (i)
				buf_putc(b, ',');
			if (v->key_lens)
				json_str(b, v->keys[i], v->key_lens[i]);
			else
				json_cstr(b, v->keys[i]);
			buf_putc(b, ':');
			text_json(b, &v->items[i]);
		}
		buf_putc(b, '}');
		break;
	}
}

void text_value(struct buf *b, const struct json_val *v)
{
	if (v->type == JSON_STR)
		buf_add(b, v->str, v->len);
	else
		text_json(b, v);
}

/* An object on one line: key=value pairs. */
static void put_pairs(struct buf *b, const struct json_val *o)
{
	size_t i;

	for (i = 0; i < o->len; i++) {
		if (i)
			buf_putc(b, ' ');
		buf_add(b, o->keys[i], o->key_lens[i]);
		buf_putc(b, '=');
		text_value(b, &o->items[i]);
	}
}

static void put_items(struct buf *b, const struct json_val *a, const char *indent)
{
	size_t i;

	for (i = 0; i < a->len; i++) {
		buf_puts(b, indent);
		if (a->items[i].type == JSON_OBJ)
			put_pairs(b, &a->items[i]);
		else
			text_value(b, &a->items[i]);
		buf_putc(b, '\n');
	}
}

void text_generic(struct buf *b, const struct json_val *d)
{
	size_t i;

	if (!d)
		return;
	if (d->type == JSON_STR) {
		buf_add(b, d->str, d->len);
		return;
	}
	if (d->type == JSON_ARR) {
		put_items(b, d, "");
		return;
	}
	if (d->type != JSON_OBJ) {
		text_value(b, d);
		buf_putc(b, '\n');
		return;
	}
	for (i = 0; i < d->len; i++) {
		const struct json_val *v = &d->items[i];

		buf_add(b, d->keys[i], d->key_lens[i]);
		buf_putc(b, ':');
		if (v->type == JSON_ARR) {
			buf_putc(b, '\n');
			put_items(b, v, "  ");
			continue;
		}
		buf_putc(b, ' ');
		if (v->type == JSON_OBJ)
			put_pairs(b, v);
		else
			text_value(b, v);
		buf_putc(b, '\n');
	}
}

const char *text_str(const struct json_val *o, const char *key)
{
	const struct json_val *v = o ? json_get(o, key) : NULL;

	return v && v->type == JSON_STR ? v->str : NULL;
}

long long text_num(const struct json_val *o, const char *key)
{
	const struct json_val *v = o ? json_get(o, key) : NULL;

	return v && v->type == JSON_NUM ? (long long)v->num : 0;
}

int text_bool(const struct json_val *o, const char *key)
{
	const struct json_val *v = o ? json_get(o, key) : NULL;

	return v && v->type == JSON_BOOL && v->boolean;
}

int text_error(struct req *r, const char *msg)
{
	const char *name = r->applet ? r->applet->name : "";
	size_t n = strlen(name);

	if (!strncmp(msg, "usage:", 6)) {
		buf_puts(r->err, msg);
	} else {
		buf_puts(r->err, "wickfs ");
		buf_puts(r->err, name);
		buf_puts(r->err, ": ");
		/* "read a.txt: cause" -> "wickfs read: a.txt: cause" */
		if (n && !strncmp(msg, name, n) && (msg[n] == ' ' || msg[n] == ':'))
			msg += n + 1 + (msg[n] == ':' && msg[n + 1] == ' ');
		buf_puts(r->err, msg);
	}
	buf_putc(r->err, '\n');
	return 1;
}

int text_render(struct req *r, size_t base, int rc)
{
	struct json_val env;
	const struct json_val *ok, *v;
	char why[128];
	int st;

	r->text_done = 1;
	if (r->out->len <= base ||
	    json_parse(r->arena, r->out->p + base, r->out->len - base, &env, why, sizeof(why)) ||
	    env.type != JSON_OBJ || !(ok = json_get(&env, "ok")) || ok->type != JSON_BOOL)
		return rc; /* not an envelope (help text): as it is */
	r->out->len = base;
	if (ok->boolean) {
		v = json_get(&env, "data");
		if (r->applet && r->applet->text)
			return r->applet->text(r, 1, v);
		text_generic(r->out, v);
		return rc;
	}
	v = json_get(&env, "error");
	if (!v || v->type != JSON_STR)
		return rc ? rc : 1;
	if (r->applet && r->applet->text && rc != 2)
		return r->applet->text(r, 0, v);
	st = text_error(r, v->str);
	return rc ? rc : st;
}
