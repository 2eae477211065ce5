/*
 * ivl.h - half-open time intervals [a, b) and merged interval sets, for the doctor's rules.
 *
 * A set is "merged" after doc_ivl_merge(): sorted, disjoint, no empty interval. The binary
 * operations take merged sets and produce merged sets.
 */
#ifndef LAT_DOCTOR_IVL_H
#define LAT_DOCTOR_IVL_H

#include <stddef.h>

#include "core/clock.h"

struct doc_ivl {
    lat_ns a, b;
};

struct doc_ivl_set {
    struct doc_ivl *v;
    size_t n, cap;
};

/* Appends [a, b) (ignored when b <= a). 0 or -ENOMEM. */
int doc_ivl_push(struct doc_ivl_set *s, lat_ns a, lat_ns b);
/* Sorts and merges s in place (touching intervals are joined). */
void doc_ivl_merge(struct doc_ivl_set *s);
/* Measure of a merged set. */
lat_ns doc_ivl_measure(const struct doc_ivl_set *s);
/* Measure of (merged s) ∩ [a, b). */
lat_ns doc_ivl_measure_in(const struct doc_ivl_set *s, lat_ns a, lat_ns b);
/* Index of the first interval of a merged set with b > t (s->n when none). */
size_t doc_ivl_find(const struct doc_ivl_set *s, lat_ns t);
/* out = x ∩ y and out = x − y for merged sets; out must be distinct from x and y. 0/-ENOMEM. */
int doc_ivl_intersect(const struct doc_ivl_set *x, const struct doc_ivl_set *y,
                      struct doc_ivl_set *out);
int doc_ivl_subtract(const struct doc_ivl_set *x, const struct doc_ivl_set *y,
                     struct doc_ivl_set *out);
/* out = the gaps of merged s inside [a, b). 0 or -ENOMEM. */
int doc_ivl_gaps_in(const struct doc_ivl_set *s, lat_ns a, lat_ns b, struct doc_ivl_set *out);
void doc_ivl_reset(struct doc_ivl_set *s);
void doc_ivl_fini(struct doc_ivl_set *s);

#endif
