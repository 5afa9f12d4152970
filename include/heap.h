/* heap.h - lib/heap.c defines, in the static build only, malloc, free,
 * calloc and realloc under their own names (and musl's internal names
 * for them, __libc_malloc and the rest, and its fork hook
 * __malloc_atfork), and pthread_mutex_init, _destroy, _lock and _unlock,
 * so that musl's allocator and mutexes are not linked: their
 * declarations are the C library's, included here for a reader looking
 * for them. Nothing else is declared. */
#ifndef WFS_HEAP_H
#define WFS_HEAP_H

#include <stdlib.h>

#endif
