/*
 * ingest.h - trace readers: files on disk -> struct lat_trace (src/model/events.h).
 *
 * ingest_open() reads one file (plain or gzip, detected by content, or "-" for stdin). The
 * format is sniffed from the first (decompressed) bytes and the name (the formats[] table of
 * ingest.c): Kineto / PyTorch profiler traces (current, 2022 and 2021 layouts), the legacy
 * PyTorch array format, and any Chrome trace-event JSON (ONNX Runtime profiles load as generic
 * Chrome), Nsight Systems SQLite exports (nsys.c, with libsqlite3), and CPU stack files as CPU
 * samples (speedscope.c, perfscript.c, folded.c: py-spy speedscope/raw, `perf script` text,
 * collapsed stacks). Inputs it recognises but cannot read (other SQLite files, protobuf, CSV,
 * trtexec profiles, .nsys-rep, ...) fail with LAT_E_NOT_TRACE and a message that
 * names the format and what to do. ingest_paths() loads files and directories into one set;
 * ingest_dir() one directory of per-rank traces. Accepted inputs and what is kept:
 * docs/trace-input.md.
 *
 * What the model holds after a load (the contract analyses rely on):
 *  - events in file order (not sorted: call lat_trace_sort() when needed); X, B/E pairs (one
 *    event, LAT_EVF_BEGIN_END), i/I/R instants, C counters. M metadata become track labels;
 *    s/t/f become trace->flows. Other phases (b/e/n async, P samples, O objects...) and
 *    events without a usable ph/ts are counted in trace->dropped.
 *  - ts/dur: exact int64 ns (µs text scaled by 1000 without rounding through double).
 *    trace->frac_ts: some ts in the file was written with a fraction or exponent (pandas would
 *    type HTA's ts column float64, which turns on HTA's ns rounding).
 *  - stream/correlation/external_id/device columns from args ("External id" or "external id");
 *    stream is args.stream exactly as HTA reads it (-1 when absent or not an integer) on every
 *    event, CPU ops included (Triton cpu_ops carry stream 0): decide CPU vs GPU by kind.
 *    device: args.device, else the pid of a GPU event, else -1.
 *  - these promoted args are not repeated in trace->args unless LAT_INGEST_ARGS_ALL.
 *  - metadata: every top-level key except traceEvents, value as compact raw JSON. Secret-looking
 *    keys (lat_meta_is_secret), at any depth inside a metadata value, have their value replaced
 *    by "REDACTED" at load: the secret never reaches the model.
 * Library code: never prints; errors come back as a code plus a detail string.
 */
#ifndef LAT_INGEST_INGEST_H
#define LAT_INGEST_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/events.h"

enum lat_ingest_flags {
    LAT_INGEST_ARGS_ALL = 1u << 0,  /* keep every arg (default: all but the bulky ones below) */
    LAT_INGEST_NO_ARGS = 1u << 1,   /* keep no args at all (columns only) */
    LAT_INGEST_NO_THREAD = 1u << 2, /* gzip: inflate on the parsing thread */
};

/* Args dropped by default (bulky, unused by the analyses): "Call stack", "Concrete Inputs",
 * "Input Strides", "Module Hierarchy", "Python module id" ... see docs/trace-input.md. */

/* Counts about the input, filled when lat_ingest_opts.stats is set (ingest_dir: summed over
 * the files). */
struct lat_ingest_stats {
    uint64_t input_events; /* elements of traceEvents (all phases) */
    uint64_t meta_events;  /* ph M elements (turned into track labels) */
    uint64_t json_bytes;   /* bytes of JSON parsed (decompressed size for gzip) */
    uint64_t raw_bytes;    /* bytes read from the file */
    bool gzip;
};

struct lat_ingest_opts {
    unsigned flags;                 /* enum lat_ingest_flags */
    struct lat_ingest_stats *stats; /* may be NULL */
    size_t chunk_bytes; /* read size (0 = 1 MiB); tests use tiny chunks to exercise splits */
    /* Called about every 16 MiB of input with bytes read so far and the file size (0 when
     * unknown, e.g. stdin or gzip). May be NULL. */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* The largest string, number or kept raw value (a metadata value, an array arg) one trace
     * may hold, in bytes; a bigger one fails the load with LAT_E_OVERFLOW and a message naming
     * the limit. 0 = the environment variable LATSCOPE_MAX_VALUE (a count, k/M/G suffixes),
     * else LAT_INGEST_MAX_VALUE. It bounds the memory one hostile value costs (a 3 GB string
     * in a 3 MB gzip) to a few times the limit. */
    uint64_t max_value_bytes;
    /* ingest_paths_each only: load and visit only the files i (set order) with i % share_count
     * == share_index (the processes of one job split a set); the other files stay listed,
     * unloaded, with their status from the listing. 0 or 1: every file. */
    size_t share_count, share_index;
};

#define LAT_INGEST_MAX_VALUE (64u << 20) /* 64 MiB */

#define LAT_INGEST_ERRLEN 512

/* Reads the trace at path ("-" = stdin). opts may be NULL. On success *out is a new trace
 * (caller frees with lat_trace_free) and 0 is returned. On failure *out is NULL, the return is
 * -errno, LAT_E_BAD_JSON, LAT_E_TRUNCATED, LAT_E_GZIP, LAT_E_NOT_TRACE, LAT_E_OVERFLOW (nesting
 * too deep) or -ENOMEM, and err (errsz bytes, may be NULL) says what and where: the byte
 * offset (of the decompressed JSON for gzip input) and what was expected. */
int ingest_open(const char *path, const struct lat_ingest_opts *opts, struct lat_trace **out,
                char *err, size_t errsz);
/* Same for an in-memory document (plain or gzip); name is used in messages and trace->path. */
int ingest_mem(const void *data, size_t n, const char *name, const struct lat_ingest_opts *opts,
               struct lat_trace **out, char *err, size_t errsz);

/* ---- directories of per-rank traces ---- */

enum lat_ingest_status {
    LAT_INGEST_OK = 0,
    LAT_INGEST_NO_RANK,   /* loaded; no distributedInfo.rank: used as rank 0 (HTA does the same,
                             with a warning: the caller should warn) */
    LAT_INGEST_DUP_RANK,  /* skipped: an earlier file (name order) has the same rank (HTA keeps
                             one file per rank and warns "has the same rank") */
    LAT_INGEST_ERROR,     /* could not be loaded: rc and err say why */
    LAT_INGEST_NOT_FILE,  /* skipped, never opened: not a regular file (a FIFO, socket, device)
                             found in a directory */
    LAT_INGEST_SAME_FILE, /* skipped: the same file (device and inode) as an earlier input */
};

struct lat_ingest_file {
    char *path;              /* as given, or DIR/NAME for a directory's file (no doubled '/') */
    struct lat_trace *trace; /* NULL unless status is OK or NO_RANK */
    int32_t rank;            /* rank used: distributedInfo.rank, 0 for NO_RANK */
    enum lat_ingest_status status;
    int rc;
    char err[LAT_INGEST_ERRLEN]; /* "PATH: why" for every status but OK */
    bool in_dir;                 /* found in a directory (not named by the caller) */
    bool trt_engine;             /* path is the common prefix of one TensorRT engine's TREx
                                    files (PREFIX.profile.json, .graph.json, ...): one trace */
};

struct lat_ingest_set {
    /* ingest_dir: every *.json / *.json.gz in the directory, name order; ingest_paths: the
     * inputs in order, a directory's files in name order at its place */
    struct lat_ingest_file *files;
    size_t n;
    /* What a directory's layout decided, for the command to say (one line per directory,
     * '\n'-separated, "PATH: ..."): which run of a TensorFlow profile directory was read and
     * why, its hosts, skipped twins and empty runs. NULL when there is nothing to say. */
    char *note;
};

/* Loads every path into one set: a file (or "-"), or a directory (its *.json / *.json.gz, as
 * ingest_dir; a TensorFlow profile directory: see below). Files are loaded several at once (as
 * ingest_dir). Rules (docs/trace-input.md):
 *  - a file named in paths that cannot be loaded, a directory that cannot be listed or has no
 *    trace file: the call fails (that rc, err "PATH: why", *out NULL);
 *  - a directory's file that cannot be loaded stays in the set as LAT_INGEST_ERROR, a
 *    non-regular one as LAT_INGEST_NOT_FILE (never opened: a FIFO named x.json cannot block);
 *    the caller reports them as skipped;
 *  - a file met twice (same device and inode, e.g. named and inside a named directory) is
 *    loaded once: the later entries are LAT_INGEST_SAME_FILE;
 *  - ranks as ingest_dir within each directory (NO_RANK, DUP_RANK); a named file keeps
 *    trace->rank (-1 when the trace has none).
 * A set where no file loaded is still returned (0): see ingest_set_loaded(). */
int ingest_paths(const char *const *paths, size_t n, const struct lat_ingest_opts *opts,
                 struct lat_ingest_set **out, char *err, size_t errsz);
/* Streaming (many-rank directories in bounded memory): the same set and rules as ingest_paths(),
 * but the files are loaded `batch` at a time (in parallel within a batch, as ingest_paths), and
 * visit(ctx, set, i) is called for each file i in set order once its status is settled (OK,
 * NO_RANK, DUP_RANK, ERROR, ...; set->files[i].trace is non-NULL for OK and NO_RANK). After the
 * visits of a batch its traces are freed, unless the visitor took one (set files[i].trace to
 * NULL; it then frees it). A named file that cannot be loaded stops the walk (its rc, err
 * filled, as ingest_paths), so does a visit that returns nonzero (that value). *out is always
 * set, also on failure (the files listed so far: paths, statuses, ranks; no traces): free it
 * with ingest_set_free(). */
typedef int (*ingest_visit_fn)(void *ctx, struct lat_ingest_set *set, size_t i);
int ingest_paths_each(const char *const *paths, size_t n, const struct lat_ingest_opts *opts,
                      size_t batch, ingest_visit_fn visit, void *ctx, struct lat_ingest_set **out,
                      char *err, size_t errsz);
/* Number of files of s with a trace (status OK or NO_RANK). */
size_t ingest_set_loaded(const struct lat_ingest_set *s);
/* True for the statuses a caller reports as "skipped" (ERROR, DUP_RANK, NOT_FILE, SAME_FILE). */
bool ingest_status_skipped(enum lat_ingest_status st);
/* f->err without its leading "PATH: " (the reason alone, for JSON lists); "" for OK. */
const char *ingest_file_reason(const struct lat_ingest_file *f);

/* TensorRT engines (ingest/trt.c): whether PREFIX.profile.json, .graph.json, .timing.json,
 * .profile.metadata.json, ... exists for prefix (a trailing '.' is allowed), and the one trace
 * of all of them (format "tensorrt"). ingest_paths() takes such a prefix as an input (the
 * engine file of that name may exist: TREx keeps it next to its JSON files), and joins the
 * TREx files of one engine in a directory the same way. */
bool ingest_trt_engine_prefix(const char *prefix);
int ingest_trt_engine_open(const char *prefix, const struct lat_ingest_opts *opts,
                           struct lat_trace **out, char *err, size_t errsz);

/* The name of the format the first bytes (decompressed) and path look like: "kineto" (any
 * JSON: the Kineto/Chrome reader decides), "ort" (an ONNX Runtime profile, read by the same
 * reader), "sqlite" (an SQLite file: the nsys reader loads nsys exports and names other
 * SQLite files), "perf-script", "speedscope", "collapsed-stacks" (CPU stack files), or the
 * name of a format latscope recognises but cannot read ("nsys-rep", "protobuf", "csv",
 * "trtexec-profile", "onnx-model", "text"). path may be NULL. */
const char *ingest_sniff(const void *head, size_t n, const char *path);
/* True when head/path match a format row with its own reader (not the catch-all JSON row, not
 * a format recognised but unreadable): what a caller that also takes other inputs (diff: bench
 * results, HDR logs) asks before deciding the input is a trace. */
bool ingest_sniff_reads(const void *head, size_t n, const char *path);

/* A TensorFlow/TensorBoard profile directory is read as TF lays it out
 * (LOGDIR/plugins/profile/RUN/HOST.xplane.pb, older TF also HOST.trace.json.gz): DIR may be
 * LOGDIR, LOGDIR/plugins/profile or one RUN. Of several runs the latest is read (by name: TF
 * names a run by the time the profile started; by modification time when some name is not such
 * a time), newer runs without a profile file are skipped; every host of the run is one trace
 * (one process: no rank rules), a HOST.trace.json.gz next to its HOST.xplane.pb is not read
 * twice. set->note says which run and why. A run without a profile file, or runs of which none
 * holds one, fail with LAT_E_NOT_FOUND and a message saying what TF writes when.
 *
 * Loads every *.json and *.json.gz file of dir, several at once (one thread per online CPU, at
 * most 8; LAT_INGEST_NO_THREAD: one at a time; only the calling thread calls opts->progress).
 * Per-file problems are reported in the set,
 * not as a failure; the call fails (-errno, LAT_E_NOT_FOUND when no trace file) only when the
 * directory cannot be listed or holds no candidate file. Free with ingest_set_free(). */
int ingest_dir(const char *dir, const struct lat_ingest_opts *opts, struct lat_ingest_set **out,
               char *err, size_t errsz);
void ingest_set_free(struct lat_ingest_set *s);
/* "ok", "no-rank", "duplicate-rank", "error", "not-a-file", "same-file". */
const char *ingest_status_name(enum lat_ingest_status st);

/* ---- helpers for consumers ---- */

/* Raw JSON value of top-level metadata key `key`, or NULL. Secret values are already
 * "REDACTED" (see above), so the result is safe to print. */
const char *ingest_meta_get(const struct lat_trace *t, const char *key);
/* Value of a metadata entry for display: its raw JSON, or "\"REDACTED\"" when the key itself
 * looks secret (defence in depth for models filled by other readers). */
const char *ingest_meta_display(const struct lat_trace *t, size_t i);
/* The double a JSON parser (Python's json, pandas) makes of the µs text of ns, i.e. the double
 * nearest to ns / 1000 (correctly rounded, as strtod of "%lld.%03lld"). HTA computes on these
 * doubles (its ns rounding is ceil/floor on them). Exact for every int64: one IEEE division
 * when |ns| <= 2^53, else whole µs plus the fraction (no tie can be crossed there). */
double ingest_ns_to_us_double(lat_ns ns);
/* The step number of "ProfilerStep#N" names; -1 when name is not one. */
int32_t ingest_step_number(const char *name, size_t len);

#endif
