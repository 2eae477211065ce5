/*
 * trt.h - TensorRT inputs (trt.c: trtexec JSON exports and TREx metadata; trt-log.c: trtexec's
 * text log). Internal to src/ingest/.
 *
 * Every TensorRT input is first read into a struct trt_eng (what one engine's files say), then
 * turned into one struct lat_trace by trt_emit(): layers as events (cat "trt_layer"), queries as
 * events (cats "trt_enqueue", "trt_h2d", "trt_compute", "trt_d2h"), the performance summary and
 * the options as metadata keys "trt.*" (docs/format-tensorrt.md). The files of one engine (a
 * TREx directory or a common prefix) fill the same trt_eng.
 */
#ifndef LAT_INGEST_TRT_H
#define LAT_INGEST_TRT_H

#include "ingest/formats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trt_layer {
    char *name;
    /* --exportProfile (ms); has_profile when the layer is a row of it */
    bool has_profile, has_median;
    char *time_txt, *avg_txt, *median_txt, *pct_txt; /* the numbers' exact text */
    double time_ms, avg_ms, median_ms, pct;
    /* --exportLayerInfo; has_info when the layer is in it */
    bool has_info;
    char *type, *tactic, *tactic_value, *origin, *in_fmt, *out_fmt, *precision;
};

/* One query of --exportTimes, ns from the start of the inference run (host clock for enqueue,
 * GPU events for the rest) */
struct trt_query {
    int64_t enq0, enq1, h2d0, h2d1, c0, c1, d2h0, d2h1;
};

#define TRT_NMETRIC 6
#define TRT_MAXSTAT 12
/* A summary metric: min, max, mean, median and percentiles (NaN-free: have[] says which) */
struct trt_metric {
    bool have_min, have_max, have_mean, have_median;
    double min, max, mean, median;
    size_t npct;
    double pct_at[TRT_MAXSTAT], pct[TRT_MAXSTAT];
};
/* latency, enqueue, h2d, gpu_compute, d2h, end_to_end */
extern const char *const trt_metric_keys[TRT_NMETRIC];

struct trt_kv {
    char *key, *value; /* value: a string (quoted on emit) */
};

struct trt_eng {
    struct trt_layer *layers;
    size_t nlayers, layers_cap;
    uint32_t *idx; /* name -> layer index + 1 (open addressing, idx_cap a power of 2) */
    size_t idx_cap;
    bool have_profile, have_info, have_times, info_names_only;
    int64_t profile_count; /* the leading {"count": N}; -1 when absent */
    struct trt_query *q;
    size_t nq, q_cap;
    uint64_t q_bad; /* queries left out: a time missing, not a number, negative, or an end
                       before its start */
    uint64_t q_drops[LAT_DROP_REASON_COUNT]; /* q_bad by reason (the first found per query) */
    /* the performance summary (profile.metadata.json or the log) */
    bool have_summary;
    const char *summary_source;
    struct trt_metric m[TRT_NMETRIC];
    bool have_qps, have_wall, have_gpu_total;
    double qps, wall_s, gpu_total_s;
    struct trt_kv *kv; /* options, device and build information, log warnings ... */
    size_t nkv, kv_cap;
    size_t nwarn;    /* [W] lines of a log */
    char cut[240];   /* where a log stops early (the trace's cut_note), "" when complete */
    char inputs[96]; /* "profile,layers,times,..." */
};

void trt_eng_fini(struct trt_eng *e);
/* Adds key = value (copied) to e->kv; 0 or -ENOMEM. */
int trt_kv_add(struct trt_eng *e, const char *key, const char *value, size_t vlen);
void trt_note_input(struct trt_eng *e, const char *what);
/* The layer named name (created, zeroed, when absent; *created says so); NULL on ENOMEM. */
struct trt_layer *trt_layer_get(struct trt_eng *e, const char *name, bool *created);
/* Reads one trtexec/TREx JSON file into e (which kind is decided by its content); 0 or an error
 * with err = "NAME: why". Closes src. */
int trt_read_json(struct ingest_src *src, const char *name, struct trt_eng *e, char *err,
                  size_t errsz);
/* Reads trtexec's text log into e; closes src. */
int trt_read_log(struct ingest_src *src, const char *name, struct trt_eng *e, char *err,
                 size_t errsz);
/* The trace of e (format "tensorrt"); 0 or -ENOMEM. */
int trt_emit(struct trt_eng *e, const char *path, struct lat_trace **out);

/* Whether the base name of path ends as a TREx/trtexec export does (.profile.json,
 * .graph.json, .timing.json, .metadata.json, .layers.json, .times.json). */
bool trt_export_name(const char *path);
/* Whether the text looks like a trtexec log (its option banners, summary or &&&& lines). */
bool trt_log_sniff(const unsigned char *h, size_t n);

#endif
