/*
 * grow.h - the one way latscope grows an array: doubling, with every size computation checked.
 *
 *     struct row *rows = NULL; size_t n = 0, cap = 0;
 *     if ((rc = LAT_GROW(rows, cap, n, 1, 64))) return rc;   // room for one more
 *     rows[n++] = r;
 *
 * LAT_GROW(arr, cap, n, k, min) makes arr (cap elements, cap a size_t lvalue) hold at least
 * n + k elements: nothing when it already does (an inline compare, so appends in hot loops stay
 * cheap), else the capacity doubles (starting from `min` when it is 0) until it does and arr is
 * realloc'ed. Returns 0, -ENOMEM (arr and cap unchanged, still valid) or LAT_E_OVERFLOW when
 * n + k or the byte size does not fit in size_t (arr and cap unchanged). New elements are not
 * initialised.
 */
#ifndef LAT_CORE_GROW_H
#define LAT_CORE_GROW_H

#include <stddef.h>

/* Out-of-line part of LAT_GROW: pp points at the array pointer (any object pointer type). */
int lat_grow_(void *pp, size_t *cap, size_t n, size_t k, size_t elem, size_t min);

#define LAT_GROW(arr, cap, n, k, min)                                                              \
    ((size_t)(n) + (size_t)(k) >= (size_t)(n) && (size_t)(n) + (size_t)(k) <= (cap)                \
         ? 0                                                                                       \
         : lat_grow_(&(arr), &(cap), (n), (k), sizeof(*(arr)), (min)))

/* The capacity lat_grow_ would pick (for tests and for callers sizing several parallel arrays
 * at once): the smallest of min (or cap when non-zero) doubled that holds need elements of elem
 * bytes, or 0 when need * elem overflows. */
size_t lat_grow_cap(size_t cap, size_t need, size_t elem, size_t min);

#endif
