/*
 * jsonw.h - streaming JSON writer shared by every producer of JSON (analyze/doctor/bench
 * results, the Kineto trace writer, JSONL records).
 *
 * Commas and nesting are tracked for the caller; strings are escaped and invalid UTF-8 becomes
 * U+FFFD, so any interned trace string can be written as is; control characters (C0, DEL and
 * the C1 U+0080-U+009F) are \u escapes, so no raw byte a terminal acts on is written. Output
 * accumulates in a buffer that is flushed to `out` (when not NULL) whenever it passes 64 KiB and at
 * jsonw_finish().
 */
#ifndef LAT_CORE_JSONW_H
#define LAT_CORE_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/buf.h"

#define JSONW_MAX_DEPTH 64

struct jsonw {
    struct lat_buf buf;
    FILE *out; /* NULL: keep everything in buf */
    int depth;
    bool pretty; /* newline + 2-space indent per level */
    bool first[JSONW_MAX_DEPTH];
    bool after_key;
    int err;        /* first error (-ENOMEM, -EIO, LAT_E_USAGE), sticky */
    int base_depth; /* jsonw_init_at: the depth the value is written at */
    /* 0 (jsonw_init's default): strings are written whole. N > 0: a string value longer than N
     * bytes is cut to at most N bytes at a UTF-8 character boundary and ends in U+2026 "…"
     * (keys are never cut). The report sets it so a 20 MB name costs KB, not MB per copy. */
    size_t str_max;
};

void jsonw_init(struct jsonw *w, FILE *out, bool pretty);
/* A writer for one value that another writer will place, with jsonw_raw(), at nesting depth
 * `depth` (e.g. 2: an element of an array inside the top-level object): indentation as there,
 * no separator before it (the placing writer's jsonw_raw adds it). The bytes are the ones the
 * placing writer would have written itself. jsonw_finish() checks the depth is back. */
void jsonw_init_at(struct jsonw *w, FILE *out, bool pretty, int depth);
/* Flushes to out (if any); returns the sticky error or 0. buf keeps data when out is NULL. */
int jsonw_finish(struct jsonw *w);
void jsonw_fini(struct jsonw *w);

void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
void jsonw_arr_begin(struct jsonw *w);
void jsonw_arr_end(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_str(struct jsonw *w, const char *s);
void jsonw_strn(struct jsonw *w, const char *s, size_t n);
void jsonw_i64(struct jsonw *w, int64_t v);
void jsonw_u64(struct jsonw *w, uint64_t v);
/* Doubles: NaN and infinities are written as null. %.*g with `digits` significant digits. */
void jsonw_double(struct jsonw *w, double v, int digits);
/* Fixed-point: v with exactly `decimals` decimals (e.g. µs with 3 decimals from ns). */
void jsonw_fixed(struct jsonw *w, double v, int decimals);
/* ns as µs with 3 decimals, exactly (integer arithmetic), e.g. 1500 -> 1.500. */
void jsonw_ns_as_us(struct jsonw *w, int64_t ns);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* Already-valid JSON text, written verbatim. */
void jsonw_raw(struct jsonw *w, const char *json, size_t n);

/* Appends s[0..n) to b as a JSON string literal (quotes included). 0 or -ENOMEM. */
int json_escape(struct lat_buf *b, const char *s, size_t n);

#endif
