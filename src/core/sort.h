/*
 * sort.h - the shared qsort comparators (ascending) and the rule for sorts that need a context.
 *
 *     qsort(v, n, sizeof(*v), lat_cmp_i64);
 *
 * A comparator that needs more than its two elements (a trace's string table, an offset, the
 * rows an index points at) takes it as qsort_r's third argument (glibc's order: a, b, ctx;
 * the build defines _GNU_SOURCE), never from a file-scope or thread-local variable: analyses
 * and loaders run on several threads, and a static context is a data race. Ties of a sort
 * whose result is printed are broken by a key (an index) so the order never depends on qsort.
 */
#ifndef LAT_CORE_SORT_H
#define LAT_CORE_SORT_H

#include <stdint.h>
#include <stdlib.h>

/* int64_t (and lat_ns), uint64_t, uint32_t, double (NaN sorts as equal to everything: callers
 * keep NaN out), and C strings through a const char * array. */
int lat_cmp_i64(const void *a, const void *b);
int lat_cmp_u64(const void *a, const void *b);
int lat_cmp_u32(const void *a, const void *b);
int lat_cmp_f64(const void *a, const void *b);
int lat_cmp_str(const void *a, const void *b);

#endif
