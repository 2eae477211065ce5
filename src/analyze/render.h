/*
 * render.h - the outputs of `latscope analyze`: the JSON document (docs/analyze-json.md) and the
 * compact text report, plus the field tables they are driven by.
 *
 * A field table describes one kind of result row (a step, a kernel, an operator, ...): for each
 * column its JSON key, its unit and a human label, and where it lives in the row struct. The
 * JSON renderer writes every row array from these tables, in table order; `latscope diff` and
 * `report` walk the same tables to compare or lay out two results column by column
 * (lat_an_field_num() gives a column as a number in its unit).
 *
 * Renderers never print: they write to the FILE* or JSON writer the command gives them;
 * warnings (a rank whose CPU samples cannot be summarised) go to the caller's callback.
 */
#ifndef LAT_ANALYZE_RENDER_H
#define LAT_ANALYZE_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/analysis.h"
#include "core/jsonw.h"

enum lat_an_unit {
    LAT_AN_U_NS,    /* lat_ns column; JSON: µs with 3 decimals; text: a duration */
    LAT_AN_U_NS_D,  /* double ns (a mean); JSON: µs with 3 decimals */
    LAT_AN_U_PCT,   /* double percent (0..100) or share (0..1, key *_ratio); 4 decimals */
    LAT_AN_U_F3,    /* double, 3 decimals */
    LAT_AN_U_F6,    /* double, 6 decimals */
    LAT_AN_U_COUNT, /* uint64_t */
    LAT_AN_U_BYTES, /* uint64_t bytes */
    LAT_AN_U_I64,   /* int64_t (stream ids, lengths) */
    LAT_AN_U_I32,   /* int32_t (step numbers) */
    LAT_AN_U_STR,   /* const char * (NULL: JSON null) */
    LAT_AN_U_BOOL,  /* bool */
    LAT_AN_U_KTYPE, /* enum lat_ktype, by name (analysis_ktype_name) */
};

struct lat_an_field {
    const char *key; /* JSON key (docs/analyze-json.md) */
    enum lat_an_unit unit;
    const char *label; /* short human label (text columns, diff/report headers) */
    size_t off;        /* offset of the column in the row struct */
    bool gpu;          /* a GPU column: says nothing on a CPU-only trace (diff leaves it out) */
};

/* One row kind: its JSON key in a rank object, its fields, and the row struct's size. */
struct lat_an_table {
    const char *key;
    const struct lat_an_field *fields;
    size_t nfields;
    size_t row_size;
};

/* The row kinds of a rank (struct lat_an_rank). top_ops/top_ops_self/ops_by_shape/
 * python_functions share lat_an_op_table,
 * top_kernels/kernels_by_type share lat_an_kernel_table. */
extern const struct lat_an_table lat_an_temporal_table;  /* struct lat_an_temporal */
extern const struct lat_an_table lat_an_idle_table;      /* struct lat_an_idle_stream */
extern const struct lat_an_table lat_an_ktype_table;     /* struct lat_an_ktype_bucket */
extern const struct lat_an_table lat_an_queue_table;     /* struct lat_an_queue */
extern const struct lat_an_table lat_an_step_table;      /* struct lat_an_step */
extern const struct lat_an_table lat_an_op_table;        /* struct lat_an_op */
extern const struct lat_an_table lat_an_op_kernel_table; /* struct lat_an_op_kernel */
extern const struct lat_an_table lat_an_aten_table;      /* struct lat_an_aten_seq */
extern const struct lat_an_table lat_an_kseq_table;      /* struct lat_an_kseq */
extern const struct lat_an_table lat_an_memdev_table;    /* struct lat_an_memdev */
extern const struct lat_an_table lat_an_memop_table;     /* struct lat_an_memop */
extern const struct lat_an_table lat_an_kernel_table;    /* struct lat_an_kernel */
extern const struct lat_an_table lat_an_memcpy_table;    /* struct lat_an_memcpy */
extern const struct lat_an_table lat_an_sync_table;      /* struct lat_an_sync */
extern const struct lat_an_table lat_an_mem_table;       /* struct lat_an_mem */
extern const struct lat_an_table lat_an_thread_table;    /* struct lat_an_thread */
extern const struct lat_an_table lat_an_annot_gpu_table; /* struct lat_an_annot */
extern const struct lat_an_table lat_an_annot_cpu_table; /* struct lat_an_annot */
extern const struct lat_an_table lat_an_membw_table;     /* struct lat_an_membw */
extern const struct lat_an_table lat_an_cupti_op_table;  /* struct lat_an_cupti_op */
extern const struct lat_an_table lat_an_rank_row_table;  /* struct lat_an_rank_row */
extern const struct lat_an_table lat_an_perf_table;      /* struct lat_an_perf */

/* A numeric column as a double in its unit (ns for LAT_AN_U_NS*, percent/share, count...);
 * NaN for strings. Booleans are 0/1, kernel types their enum value. */
double lat_an_field_num(const struct lat_an_field *f, const void *row);
/* Writes key and value of one column of row. */
void lat_an_field_json(struct jsonw *w, const struct lat_an_field *f, const void *row);
/* Writes one row as a JSON object of all its table's columns. */
void lat_an_row_json(struct jsonw *w, const struct lat_an_table *t, const void *row);

/* An input the command skipped (a directory's bad file...), listed in the JSON "skipped". */
struct analyze_skipped {
    const char *path;
    const char *status; /* ingest_status_name(): "error", "not-a-file", ... */
    const char *reason;
};

struct analyze_render_opts {
    /* Called with a one-line message (no newline) for what cannot be rendered; may be NULL. */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    const struct analyze_skipped *skipped;
    size_t nskipped;
    /* what the inputs' directory layout decided ('\n'-separated lines: the run of a TensorFlow
     * profile directory); the JSON's "input_notes" when not NULL */
    const char *input_notes;
    /* text: the op table per (name, input shape), as key_averages(group_by_input_shape=True)
     * (the JSON always has ops_by_shape) */
    bool group_by_input_shape;
    /* Many ranks streamed (analyze on a directory of rank files): the analysis has no ranks
     * (nranks 0), they were rendered one by one (analyze_write_rank_json/_text) as each trace
     * was loaded; these write them back in rank order where the ranks go. NULL otherwise. */
    int (*ranks_json)(void *ctx, struct jsonw *w);
    int (*ranks_text)(void *ctx, FILE *f);
    void *ranks_ctx;
    size_t ranks_timeline; /* timeline ranks among them (kernel profiles are not) */
};

/* Whether t is an input whose steps are PyTorch's ProfilerStep#N (Kineto/Chrome JSON, latscope
 * captures): the others get no "ProfilerStep not found" note (their steps, if any, are their
 * own: TF step markers, ORT runs). */
bool analyze_steps_pytorch(const struct lat_trace *t);
/* Whether t's format is PyTorch-shaped (LAT_FCAP_PROFILER_STEPS; a NULL trace too): every
 * section applies. prep.c, as analyze_steps_pytorch(). */
bool analyze_pytorch_like(const struct lat_trace *t);

/* One rank's object of the "ranks" array (rank i of a), written by a writer made with
 * jsonw_init_at(w, ..., 2) so that the bytes fit in place; and its text report. */
void analyze_write_rank_json(struct jsonw *w, const struct lat_analysis *a, size_t i,
                             const struct analyze_render_opts *o);
void analyze_format_rank_text(FILE *f, const struct lat_analysis *a, size_t i,
                              const struct analyze_render_opts *o);

/* The whole JSON document of an analysis (docs/analyze-json.md), without a trailing newline;
 * the caller owns the writer (jsonw_finish reports a write error). */
void analyze_write_json(struct jsonw *w, const struct lat_analysis *a,
                        const struct analyze_render_opts *o);
/* The text report. 0, or -EIO when writing to f failed. */
int analyze_format_text(FILE *f, const struct lat_analysis *a, const struct analyze_render_opts *o);

/* A name in a text column of width w: padded, or "..." and its tail when longer (format
 * sections: layer and node names differ at their end). */
void lat_an_print_tail(FILE *f, const char *s, int w);

#endif
