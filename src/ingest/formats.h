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

/* The readers' format rows (model/format.h), each defined in its reader's file. */
extern const struct lat_trace_format ingest_fmt_kineto, ingest_fmt_kineto_2021, ingest_fmt_chrome,
    ingest_fmt_pytorch_legacy, ingest_fmt_chakra;         /* kineto.c */
extern const struct lat_trace_format ingest_fmt_ort;      /* ort.c */
extern const struct lat_trace_format ingest_fmt_tensorrt; /* trt.c (trt-log.c too) */
extern const struct lat_trace_format ingest_fmt_xplane, ingest_fmt_tf_trace_viewer; /* xplane.c */
extern const struct lat_trace_format ingest_fmt_nsys;                               /* nsys-map.c */
extern const struct lat_trace_format ingest_fmt_nsys_stats;                         /* nsys-csv.c */
extern const struct lat_trace_format ingest_fmt_ncu;                                /* ncu.c */
extern const struct lat_trace_format ingest_fmt_collapsed_stacks, ingest_fmt_perf_script,
    ingest_fmt_speedscope; /* folded.c, perfscript.c, speedscope.c */

/* Sniffers: whether the first (decompressed) bytes head[0..n) and/or the file name (may be NULL)
 * are the reader's format; each lives in its reader's file, tried in ingest.c's table order. */
typedef bool (*ingest_sniff_fn)(const unsigned char *head, size_t n, const char *path);
bool ingest_sniff_ort(const unsigned char *h, size_t n, const char *path);      /* ort.c */
bool ingest_sniff_sqlite(const unsigned char *h, size_t n, const char *path);   /* nsys.c */
bool ingest_sniff_protobuf(const unsigned char *h, size_t n, const char *path); /* xplane.c */
bool ingest_sniff_perf_script(const unsigned char *h, size_t n,
                              const char *path);                                  /* perfscript.c */
bool ingest_sniff_speedscope(const unsigned char *h, size_t n, const char *path); /* speedscope.c */
bool ingest_sniff_trtexec(const unsigned char *h, size_t n, const char *path);    /* trt.c */
bool ingest_sniff_trtexec_times(const unsigned char *h, size_t n, const char *path);  /* trt.c */
bool ingest_sniff_trtexec_layers(const unsigned char *h, size_t n, const char *path); /* trt.c */
bool ingest_sniff_trex_meta(const unsigned char *h, size_t n, const char *path);      /* trt.c */
bool ingest_sniff_trtexec_log(const unsigned char *h, size_t n, const char *path); /* trt-log.c */
bool ingest_sniff_nsys_csv(const unsigned char *h, size_t n, const char *path);    /* nsys-csv.c */
bool ingest_sniff_ncu(const unsigned char *h, size_t n, const char *path);         /* ncu.c */
bool ingest_sniff_collapsed(const unsigned char *h, size_t n, const char *path);   /* folded.c */

/* sniff.c: the byte tests sniffers share. Whether path ends in suf (case-insensitive; false for
 * NULL); the first byte after whitespace and a UTF-8 BOM (-1 when none; *at its offset, at may
 * be NULL); whether that byte starts a JSON object/array; whether the first n bytes are text
 * (printable, tabs, newlines); the first member name of an object (or, in_array, of an array's
 * first object) into key[0..ksz). */
bool ingest_has_suffix(const char *path, const char *suf);
int ingest_first_char(const unsigned char *h, size_t n, size_t *at);
bool ingest_looks_json(const unsigned char *h, size_t n);
bool ingest_looks_text(const unsigned char *h, size_t n);
bool ingest_first_key(const unsigned char *h, size_t n, bool in_array, char *key, size_t ksz);

typedef int (*ingest_load_fn)(struct ingest_src *src, const char *name,
                              const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                              size_t errsz);

/* kineto.c: Kineto / PyTorch profiler / Chrome trace-event JSON (ort.c parses through it).
 * *ort_shaped (may be NULL): the events are an ONNX Runtime profile's (the trace then has the
 * Chrome row until the caller maps it with ingest_ort_finish(); kineto.c stays below ort.c). */
int ingest_kineto_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, bool *ort_shaped, char *err, size_t errsz);

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
/* nsys-csv.c: `nsys stats --format csv` reports: timeline reports (cuda_gpu_trace,
 * cuda_api_trace, nvtx_pushpop_trace) as events, summaries (cuda_gpu_kern_sum, cuda_api_sum,
 * cuda_gpu_mem_time_sum, nvtx_sum, ...) as summary rows (format "nsys-stats"). */
const char *ingest_nsys_csv_kind(const unsigned char *head, size_t n);
int ingest_nsys_csv_load(struct ingest_src *src, const char *name,
                         const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                         size_t errsz);
/* ncu.c: Nsight Compute `ncu --csv` reports (details page and --page raw). */
int ingest_ncu_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                    struct lat_trace **out, char *err, size_t errsz);
/* Whether a line (n bytes, no newline) is the header of an `ncu --csv` page. */
bool ingest_ncu_header(const char *line, size_t n);
/* trt.c: TensorRT trtexec JSON exports (--exportProfile, --exportTimes, --exportLayerInfo) and
 * TREx metadata, one file each (trace format "tensorrt"); trt-log.c: trtexec's text log. */
int ingest_trt_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                    struct lat_trace **out, char *err, size_t errsz);
int ingest_trt_log_load(struct ingest_src *src, const char *name,
                        const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                        size_t errsz);
/* Length of the engine prefix of a TREx file name (x.engine.profile.json: "x.engine"), 0 when
 * the name has none of the TREx/trtexec suffixes. */
size_t ingest_trt_prefix_len(const char *name);
/* xplane.c: TensorFlow profiler .xplane.pb (XSpace protobuf). */
int ingest_xplane_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, char *err, size_t errsz);
/* xplane.c: the TensorFlow meaning of a loaded trace (xplane or TF's trace_viewer JSON): graph
 * ops ("scope/op:Type", from the name or the JSON's stackFrames) and eager ops
 * ("EagerLocalExecute: Type") become cpu_op events named by node (eager: by type) with args
 * op_type, tf_op (graph) and tf_mode ("graph"/"eager"); Trace(name, step_num=N) regions become
 * steps (numbered in time order, name "<name> <N>"); the framework's own regions user
 * annotations, zero-length markers instants. Sets the metadata key "tf_ops". 0 or -ENOMEM. */
int ingest_tf_finish(struct lat_trace *t);
/* Whether a trace the JSON reader loaded is TF trace_viewer JSON (a "chrome" trace with a
 * process named "<host> /host:CPU" or "/device:..."). */
bool ingest_tf_chrome_like(const struct lat_trace *t);

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
