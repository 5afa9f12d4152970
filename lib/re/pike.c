/* pike.c - the Pike VM: a breadth-first NFA simulation in priority order
 *
 * Threads are kept in priority order; when one reaches MATCH, every thread
 * of lower priority is dropped, which gives leftmost-first (Perl/Go)
 * semantics in linear time. Only the match start is tracked per thread.
 */
#include <stdlib.h>
#include <string.h>
#include "re_int.h"

struct thr {
	uint32_t pc;
	size_t start;
};

struct pike {
	uint32_t n;     /* instructions */
	uint32_t *mark; /* generation in which each pc was added */
	uint32_t gen;
	struct thr *cl, *nl;
	uint32_t *stack;
};

RE_COLD struct pike *pike_new(const struct prog *p)
{
	struct pike *vm = calloc(1, sizeof(*vm));

	if (!vm)
		return NULL;
	vm->n = p->ninst;
	vm->mark = calloc(p->ninst, sizeof(*vm->mark));
	vm->cl = malloc(p->ninst * sizeof(*vm->cl));
	vm->nl = malloc(p->ninst * sizeof(*vm->nl));
	vm->stack = malloc((2 * (size_t)p->ninst + 2) * sizeof(*vm->stack));
	if (!vm->mark || !vm->cl || !vm->nl || !vm->stack) {
		pike_free(vm);
		return NULL;
	}
	return vm;
}

void pike_free(struct pike *vm)
{
	if (!vm)
		return;
	free(vm->mark);
	free(vm->cl);
	free(vm->nl);
	free(vm->stack);
	free(vm);
}

static void next_gen(struct pike *vm)
{
	if (++vm->gen == 0) {
		memset(vm->mark, 0, vm->n * sizeof(*vm->mark));
		vm->gen = 1;
	}
}

/* Follow empty transitions from pc in priority order (depth first). */
static void add(struct pike *vm, const struct prog *p, struct thr *list,
		uint32_t *cnt, uint32_t pc, size_t start, unsigned ctx)
{
	uint32_t sp = 0, *stack = vm->stack;
	const struct inst *in;

	stack[sp++] = pc;
	while (sp) {
		pc = stack[--sp];
		if (vm->mark[pc] == vm->gen)
			continue;
		vm->mark[pc] = vm->gen;
		in = &p->inst[pc];
		switch (in->op) {
		case OP_MATCH:
		case OP_BYTE:
			list[*cnt].pc = pc;
			list[*cnt].start = start;
			(*cnt)++;
			break;
		case OP_JMP:
			stack[sp++] = in->x;
			break;
		case OP_SPLIT:
			stack[sp++] = in->y;
			stack[sp++] = in->x;
			break;
		case OP_ASSERT:
			if (ctx & in->arg)
				stack[sp++] = in->x;
			break;
		}
	}
}

int pike_search(struct pike *vm, const struct prog *p, const unsigned char *s,
		size_t n, size_t from, size_t *ms, size_t *me)
{
	uint32_t ncl = 0, nnl, i, nx;
	struct thr *cl = vm->cl, *nl = vm->nl, *tmp;
	int matched = 0, c;
	size_t pos;
	unsigned ctx, nctx = re_ctx(s, n, from);

	next_gen(vm);
	for (pos = from;; pos++) {
		ctx = nctx;
		/* restart at each character boundary, as Go steps */
		if (!matched && (ctx & A_BOUND))
			add(vm, p, cl, &ncl, p->start, pos, ctx);
		if (!ncl && (matched || pos >= n))
			break;
		next_gen(vm);
		nnl = 0;
		c = pos < n ? s[pos] : -1;
		nctx = pos < n ? re_ctx(s, n, pos + 1) : 0;
		for (i = 0; i < ncl; i++) {
			const struct inst *in = &p->inst[cl[i].pc];

			if (in->op == OP_MATCH) {
				matched = 1;
				*ms = cl[i].start;
				*me = pos;
				break;
			}
			if (c < 0)
				continue;
			nx = re_edge_next(p, in, c);
			if (nx != UINT32_MAX)
				add(vm, p, nl, &nnl, nx, cl[i].start, nctx);
		}
		tmp = cl, cl = nl, nl = tmp;
		ncl = nnl;
		if (pos >= n)
			break;
	}
	vm->cl = cl;
	vm->nl = nl;
	return matched;
}
