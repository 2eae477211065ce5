/*
 * opts.h - parsers for `latscope bench` option values (sweeps, arrival, warmup, inputs).
 *
 * Pure functions (no I/O) so the unit tests can cover every form. Each returns 0 or
 * LAT_E_USAGE with *why pointing at a static sentence saying what is wrong.
 */
#ifndef LAT_BENCH_OPTS_H
#define LAT_BENCH_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "core/clock.h"

#define BENCH_SWEEP_MAX 1024

/*
 * A sweep of positive numbers: "8", "1,2,4,8", "1:64:x2" (geometric, factor 2) or
 * "10:200:10" (arithmetic, step 10). End points are included when the steps hit them.
 * Fills out[0..*n) (at most BENCH_SWEEP_MAX values). integer: values must be whole numbers.
 */
int bench_parse_sweep(const char *s, bool integer, double *out, size_t *n, const char **why);
/*
 * The concurrency range of `--find-max --concurrency`: "LO:HI" searches whole numbers in
 * [LO, HI] starting at LO; "N" starts at N with LO = 1 and HI = max(N, BENCH_FIND_MAX_CONC).
 * 1 <= LO <= HI <= 1000000.
 */
#define BENCH_FIND_MAX_CONC 1024
int bench_parse_conc_range(const char *s, unsigned *start, unsigned *lo, unsigned *hi,
                           const char **why);
/* "constant", "poisson", "gamma:K" (K > 0, default 1 when ":K" is absent). */
int bench_parse_arrival(const char *s, enum bench_arrival *a, double *shape, const char **why);
/* A warmup: a duration with a unit ("5s", "500ms") or a bare request count ("100"). */
int bench_parse_warmup(const char *s, lat_ns *ns, uint64_t *count, const char **why);
/* "2xx" -> 2, "any" -> 0 (anything below 400 passes). */
int bench_parse_expect_status(const char *s, int *cls, const char **why);

enum bench_fill { BENCH_FILL_RANDOM = 0, BENCH_FILL_ZEROS, BENCH_FILL_FILE };

#define BENCH_MAX_DIMS 8
/* A KServe v2 input tensor: --input name:shape:datatype[:random|zeros|@file]. */
struct bench_input {
    char name[128];
    char datatype[16]; /* KServe v2: BOOL, UINT8..UINT64, INT8..INT64, FP16, FP32, FP64, BYTES */
    int64_t shape[BENCH_MAX_DIMS]; /* -1: variable (replaced by --batch or 1) */
    int ndims;
    enum bench_fill fill;
    char file[512];
    uint64_t max_bytes; /* BENCH_FILL_FILE: refuse a larger file (0: 256 MB) */
};
/* Parses one --input value; shape is "1x3x224" or "1,3,224" ("-1" allowed). */
int bench_parse_input(const char *s, struct bench_input *in, const char **why);
/* True when dt is a KServe v2 datatype name. */
bool bench_datatype_valid(const char *dt);

#endif
