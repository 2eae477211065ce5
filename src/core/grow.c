/*
 * grow.c - checked doubling growth of arrays (see grow.h).
 *
 * Doubling keeps appends amortised O(1). Every product and sum is checked: a capacity that
 * would overflow when doubled is clamped to what is needed, and a byte size that does not fit
 * in size_t is LAT_E_OVERFLOW, never a short allocation written past its end.
 */
#include "core/grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

size_t lat_grow_cap(size_t cap, size_t need, size_t elem, size_t min)
{
    if (!elem) elem = 1;
    size_t max = SIZE_MAX / elem; /* most elements whose byte size fits */
    if (need > max) return 0;
    size_t c = cap ? cap : (min ? min : 1);
    while (c < need)
        c = c > max / 2 ? need : c * 2;
    return c > max ? need : c;
}

int lat_grow_(void *pp, size_t *cap, size_t n, size_t k, size_t elem, size_t min)
{
    if (n + k < n) return LAT_E_OVERFLOW;
    size_t need = n + k;
    if (need <= *cap) return 0;
    size_t c = lat_grow_cap(*cap, need, elem, min);
    if (!c) return LAT_E_OVERFLOW;
    void *p;
    memcpy(&p, pp, sizeof(p));
    void *np = realloc(p, c * (elem ? elem : 1));
    if (!np) return -ENOMEM;
    memcpy(pp, &np, sizeof(np));
    *cap = c;
    return 0;
}
