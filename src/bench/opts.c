/*
 * opts.c - value parsers for `latscope bench` options (see opts.h).
 *
 * Sweeps accept the three forms peers use: a list (perf_analyzer's --concurrency-range is
 * start:end:step, GenAI-Perf sweeps powers of two, vLLM takes lists), so "1,2,4,8",
 * "1:64:x2" and "10:200:10" all work. Every parser rejects trailing garbage and non-finite
 * or non-positive values with a sentence that says what was expected.
 */
#include "bench/opts.h"

#include "core/err.h"
#include "core/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int parse_num(const char *s, const char *end, double *v)
{
    if (s == end) return -1;
    char tmp[64];
    size_t n = (size_t)(end - s);
    if (n >= sizeof(tmp)) return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *e;
    errno = 0;
    double d = strtod(tmp, &e);
    if (e == tmp || *e || errno || !isfinite(d)) return -1;
    /* k/M suffixes are not accepted here: rates are plain numbers. */
    *v = d;
    return 0;
}

int bench_parse_sweep(const char *s, bool integer, double *out, size_t *n, const char **why)
{
    *n = 0;
    if (!s || !*s) {
        *why = "empty value";
        return LAT_E_USAGE;
    }
    const char *c1 = strchr(s, ':');
    if (c1) {
        const char *c2 = strchr(c1 + 1, ':');
        if (!c2 || strchr(c2 + 1, ':') || strchr(s, ',')) {
            *why = "a range is START:END:STEP (e.g. 10:200:10) or START:END:xFACTOR (1:64:x2)";
            return LAT_E_USAGE;
        }
        double a, b, step;
        bool geo = c2[1] == 'x' || c2[1] == 'X' || c2[1] == '*';
        if (parse_num(s, c1, &a) || parse_num(c1 + 1, c2, &b) ||
            parse_num(c2 + 1 + geo, c2 + strlen(c2), &step)) {
            *why = "a range is START:END:STEP (e.g. 10:200:10) or START:END:xFACTOR (1:64:x2)";
            return LAT_E_USAGE;
        }
        if (!(a > 0) || b < a) {
            *why = "a range needs 0 < START <= END";
            return LAT_E_USAGE;
        }
        if (geo ? !(step > 1) : !(step > 0)) {
            *why = geo ? "the factor of a geometric range must be > 1" : "the step must be > 0";
            return LAT_E_USAGE;
        }
        for (size_t i = 0;; i++) {
            double v = geo ? a * pow(step, (double)i) : a + step * (double)i;
            if (v > b * (1 + 1e-9)) break;
            if (*n == BENCH_SWEEP_MAX) {
                *why = "too many sweep points (at most 1024)";
                return LAT_E_USAGE;
            }
            out[(*n)++] = v;
        }
    } else {
        const char *p = s;
        for (;;) {
            const char *e = strchr(p, ',');
            if (!e) e = p + strlen(p);
            double v;
            if (parse_num(p, e, &v) || !(v > 0)) {
                *why = "expected positive numbers separated by commas";
                return LAT_E_USAGE;
            }
            if (*n == BENCH_SWEEP_MAX) {
                *why = "too many sweep points (at most 1024)";
                return LAT_E_USAGE;
            }
            out[(*n)++] = v;
            if (!*e) break;
            p = e + 1;
        }
    }
    if (integer) {
        for (size_t i = 0; i < *n; i++) {
            if (out[i] != floor(out[i]) || out[i] > 1e6) {
                *why = "expected whole numbers (at most 1000000)";
                return LAT_E_USAGE;
            }
        }
    }
    return 0;
}

static int parse_whole(const char *s, const char *e, unsigned *out)
{
    double v;
    if (parse_num(s, e, &v) || !(v >= 1) || v > 1e6 || v != floor(v)) return -1;
    *out = (unsigned)v;
    return 0;
}

int bench_parse_conc_range(const char *s, unsigned *start, unsigned *lo, unsigned *hi,
                           const char **why)
{
    static const char form[] = "--find-max takes a concurrency range LO:HI (e.g. 1:256) or a "
                               "start N, whole numbers 1..1000000";
    const char *c = s ? strchr(s, ':') : NULL;
    if (!s || !*s || strchr(s, ',') || (c && strchr(c + 1, ':'))) {
        *why = form;
        return LAT_E_USAGE;
    }
    if (!c) {
        if (parse_whole(s, s + strlen(s), start)) {
            *why = form;
            return LAT_E_USAGE;
        }
        *lo = 1;
        *hi = *start > BENCH_FIND_MAX_CONC ? *start : BENCH_FIND_MAX_CONC;
        return 0;
    }
    if (parse_whole(s, c, lo) || parse_whole(c + 1, c + strlen(c), hi)) {
        *why = form;
        return LAT_E_USAGE;
    }
    if (*hi < *lo) {
        *why = "a concurrency range needs LO <= HI";
        return LAT_E_USAGE;
    }
    *start = *lo;
    return 0;
}

int bench_parse_arrival(const char *s, enum bench_arrival *a, double *shape, const char **why)
{
    *shape = 0;
    if (strcmp(s, "constant") == 0) {
        *a = BENCH_ARRIVAL_CONSTANT;
        return 0;
    }
    if (strcmp(s, "poisson") == 0) {
        *a = BENCH_ARRIVAL_POISSON;
        return 0;
    }
    if (strncmp(s, "gamma", 5) == 0 && (s[5] == '\0' || s[5] == ':')) {
        *a = BENCH_ARRIVAL_GAMMA;
        *shape = 1.0;
        if (s[5] == ':' && (parse_num(s + 6, s + strlen(s), shape) || !(*shape > 0))) {
            *why = "gamma:K needs a shape K > 0 (K < 1 is burstier than Poisson)";
            return LAT_E_USAGE;
        }
        return 0;
    }
    *why = "arrival is constant, poisson or gamma:K";
    return LAT_E_USAGE;
}

int bench_parse_warmup(const char *s, lat_ns *ns, uint64_t *count, const char **why)
{
    *ns = 0;
    *count = 0;
    size_t n = strlen(s);
    bool bare = n > 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) bare = false;
    if (bare) {
        if (units_parse_count(s, count) == 0) return 0;
    } else if (units_parse_duration(s, LAT_NS_PER_S, ns) == 0 && *ns >= 0) {
        return 0;
    }
    *why = "warmup is a duration with a unit (5s, 500ms) or a request count (100)";
    return LAT_E_USAGE;
}

int bench_parse_expect_status(const char *s, int *cls, const char **why)
{
    if (strcmp(s, "any") == 0) {
        *cls = 0;
        return 0;
    }
    if (strlen(s) == 3 && s[0] >= '1' && s[0] <= '5' && (s[1] == 'x' || s[1] == 'X') &&
        (s[2] == 'x' || s[2] == 'X')) {
        *cls = s[0] - '0';
        return 0;
    }
    *why = "expected a status class such as 2xx, or 'any'";
    return LAT_E_USAGE;
}

bool bench_datatype_valid(const char *dt)
{
    static const char *const names[] = {"BOOL", "UINT8", "UINT16", "UINT32", "UINT64",
                                        "INT8", "INT16", "INT32",  "INT64",  "FP16",
                                        "FP32", "FP64",  "BYTES",  "BF16"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(dt, names[i]) == 0) return true;
    return false;
}

int bench_parse_input(const char *s, struct bench_input *in, const char **why)
{
    memset(in, 0, sizeof(*in));
    const char *c1 = strchr(s, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || c1 == s) {
        *why = "--input is NAME:SHAPE:DATATYPE[:random|zeros|@FILE], e.g. x:1x3x224x224:FP32";
        return LAT_E_USAGE;
    }
    if ((size_t)(c1 - s) >= sizeof(in->name)) {
        *why = "input name too long";
        return LAT_E_USAGE;
    }
    memcpy(in->name, s, (size_t)(c1 - s));
    const char *p = c1 + 1;
    while (p < c2) {
        char *e;
        errno = 0;
        long long d = strtoll(p, &e, 10);
        if (e == p || errno || (d < 1 && d != -1) || d > (1LL << 31) ||
            (e != c2 && *e != 'x' && *e != ',')) {
            *why = "shape is dimensions separated by 'x' or ',' (e.g. 1x3x224x224; -1 = batch)";
            return LAT_E_USAGE;
        }
        if (in->ndims == BENCH_MAX_DIMS) {
            *why = "at most 8 dimensions";
            return LAT_E_USAGE;
        }
        in->shape[in->ndims++] = d;
        p = e == c2 ? c2 : e + 1;
    }
    if (in->ndims == 0) {
        *why = "shape needs at least one dimension";
        return LAT_E_USAGE;
    }
    const char *c3 = strchr(c2 + 1, ':');
    size_t dl = c3 ? (size_t)(c3 - (c2 + 1)) : strlen(c2 + 1);
    if (dl == 0 || dl >= sizeof(in->datatype)) {
        *why = "unknown datatype (KServe v2: BOOL, INT8..INT64, UINT8..UINT64, FP16, FP32, FP64, "
               "BYTES)";
        return LAT_E_USAGE;
    }
    memcpy(in->datatype, c2 + 1, dl);
    for (char *q = in->datatype; *q; q++)
        *q = (char)toupper((unsigned char)*q);
    if (!bench_datatype_valid(in->datatype)) {
        *why = "unknown datatype (KServe v2: BOOL, INT8..INT64, UINT8..UINT64, FP16, FP32, FP64, "
               "BYTES)";
        return LAT_E_USAGE;
    }
    if (c3) {
        const char *f = c3 + 1;
        if (strcmp(f, "random") == 0) {
            in->fill = BENCH_FILL_RANDOM;
        } else if (strcmp(f, "zeros") == 0) {
            in->fill = BENCH_FILL_ZEROS;
        } else if (strncmp(f, "file", 4) == 0 || f[0] == '@') {
            const char *path = f[0] == '@' ? f + 1 : (f[4] == '=' ? f + 5 : "");
            if (!*path || strlen(path) >= sizeof(in->file)) {
                *why = "file fill is @PATH (a JSON array of the tensor's values)";
                return LAT_E_USAGE;
            }
            in->fill = BENCH_FILL_FILE;
            strcpy(in->file, path);
        } else {
            *why = "fill is random, zeros or @FILE";
            return LAT_E_USAGE;
        }
    }
    return 0;
}
