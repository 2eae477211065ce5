/*
 * formats.h - the readers behind ingest.c's format table. Internal to src/ingest/.
 *
 * A reader takes an opened source (ingest/source.h: plain or inflated bytes, first chunk
 * peekable) and owns it from then on (closes it on every path). It fills *out or returns
 * -errno / LAT_E_* with err = "NAME: why".
 */
#ifndef LAT_INGEST_FORMATS_H
#define LAT_INGEST_FORMATS_H

#include "ingest/ingest.h"
#include "ingest/source.h"

typedef int (*ingest_load_fn)(struct ingest_src *src, const char *name,
                              const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                              size_t errsz);

/* kineto.c: Kineto / PyTorch profiler / Chrome trace-event JSON (ort.c parses through it). */
int ingest_kineto_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, char *err, size_t errsz);

/* ort.c: ONNX Runtime profiles (JSON array of cat Session/Node events). */
int ingest_ort_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                    struct lat_trace **out, char *err, size_t errsz);
/* The ORT meaning of a trace the JSON reader loaded (format "ort"): sort, node/run mapping,
 * fences folded. For an ORT profile the sniff missed (its first chunk too short to show a
 * "cat"). 0, or an error with t freed and err filled. */
int ingest_ort_finish(struct lat_trace *t, const char *name, char *err, size_t errsz);
/* Whether path's base name is one ORT's EndProfiling() writes (<prefix>_YYYY-MM-DD_HH-MM-SS
 * [_mmm].json, or onnxruntime_profile*). */
bool ingest_ort_name(const char *path);
/* nsys.c: Nsight Systems `nsys export --type sqlite` files (needs LAT_HAVE_SQLITE3; without it
 * the reader fails saying so). */
int ingest_nsys_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                     struct lat_trace **out, char *err, size_t errsz);
/* nsys.c: `nsys stats --format csv` reports: named (which report), never read. */
const char *ingest_nsys_csv_kind(const unsigned char *head, size_t n);
int ingest_nsys_csv_load(struct ingest_src *src, const char *name,
                         const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                         size_t errsz);

/* CPU stack files (stacks.h: CPU samples as `latscope trace --cpu` records them). folded.c:
 * collapsed stacks (py-spy raw, stackcollapse-*.pl), no timestamps. */
int ingest_folded_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, char *err, size_t errsz);
/* perfscript.c: `perf script` text. */
int ingest_perf_script_load(struct ingest_src *src, const char *name,
                            const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                            size_t errsz);
/* speedscope.c: speedscope JSON (py-spy --format speedscope), sampled and evented profiles. */
int ingest_speedscope_load(struct ingest_src *src, const char *name,
                           const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                           size_t errsz);

#endif
