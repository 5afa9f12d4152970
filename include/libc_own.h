/* libc_own.h - lib/libc_own.c defines, in the static build only, C
 * library functions under their own names (qsort, qsort_r, strstr,
 * strtol, strtoll, strtoul, strtoull, inet_pton, inet_ntop, and
 * pthread_cond_init, _destroy, _wait, _signal and _broadcast), so that
 * musl's larger ones are not linked: their declarations are the C
 * library's headers', included here for a reader looking for them.
 * Nothing else is declared. */
#ifndef WFS_LIBC_OWN_H
#define WFS_LIBC_OWN_H

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#endif
