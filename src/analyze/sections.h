/*
 * sections.h - format-specific sections of analyze's per-rank output.
 *
 * Some inputs carry what the common analyses do not cover (an ONNX Runtime profile's runs and
 * nodes, a TensorRT engine's layers, ...). Each such section is one row of lat_an_sections[] in
 * render.c: `applies` says whether the trace holds that format, `write_json` writes the
 * section's key(s) into the rank object (docs/analyze-json.md), `format_text` appends its part of
 * the text report. Both return 0 or a negative error (-ENOMEM...); the renderer reports a
 * failure as a warning naming `what` and carries on with the other sections.
 *
 * Adding a section: the three functions in the format's own analyze file, their prototypes here,
 * one row in render.c.
 */
#ifndef LAT_ANALYZE_SECTIONS_H
#define LAT_ANALYZE_SECTIONS_H

#include "core/jsonw.h"
#include "model/events.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lat_an_section {
    const char *what; /* "ONNX Runtime section": named in warnings */
    bool (*applies)(const struct lat_trace *t);
    int (*write_json)(struct jsonw *w, const struct lat_trace *t, size_t top_n);
    int (*format_text)(FILE *f, const struct lat_trace *t, size_t top_n);
};

extern const struct lat_an_section lat_an_sections[];
extern const size_t lat_an_nsections;

/* ONNX Runtime (analyze/ort.c) */
int lat_ort_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n);
int lat_ort_section_text(FILE *f, const struct lat_trace *t, size_t top_n);

/* Nsight Compute (analyze/ncu.c) */
bool lat_ncu_is(const struct lat_trace *t);
int lat_ncu_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n);
int lat_ncu_section_text(FILE *f, const struct lat_trace *t, size_t top_n);

/* TensorRT (analyze/trt.c) */
bool lat_trt_is(const struct lat_trace *t);
int lat_trt_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n);
int lat_trt_section_text(FILE *f, const struct lat_trace *t, size_t top_n);

/* `nsys stats` CSV reports (analyze/nsys-stats.c) */
bool lat_nsys_stats_is(const struct lat_trace *t);
int lat_nsys_stats_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n);
int lat_nsys_stats_section_text(FILE *f, const struct lat_trace *t, size_t top_n);

/* TensorFlow (analyze/tf.c) */
int lat_tf_section_json(struct jsonw *w, const struct lat_trace *t, size_t top_n);
int lat_tf_section_text(FILE *f, const struct lat_trace *t, size_t top_n);

#endif
