/*
 * ingest.c - the front of the trace readers: the table of input formats, ingest_open/mem
 * (sniff, then the matching reader), and loading files and directories into one set.
 *
 * formats[] is tried in order on the first (decompressed) bytes and the file name; the first
 * row whose sniff() matches decides. A row with a reader loads the input; a row without one is
 * a format latscope recognises but cannot read yet: the error names it and says what to do.
 * The last row (Kineto/Chrome JSON) matches anything, so the JSON reader reports what is
 * wrong with a file nothing else recognised. Adding a format: one reader file and one row
 * (docs/architecture.md).
 */
#include "ingest/ingest.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/par.h"
#include "ingest/formats.h"
#include "ingest/source.h"
#include "ingest/trt.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- sniffing ------------------------------------------------------------------------------ */

static bool has_suffix(const char *path, const char *suf)
{
    if (!path) return false;
    size_t l = strlen(path), k = strlen(suf);
    return l >= k && strcasecmp(path + l - k, suf) == 0;
}

/* First byte after whitespace (and a UTF-8 BOM), or -1. */
static int first_char(const unsigned char *h, size_t n, size_t *at)
{
    size_t i = 0;
    if (n >= 3 && h[0] == 0xef && h[1] == 0xbb && h[2] == 0xbf) i = 3;
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
        i++;
    if (at) *at = i;
    return i < n ? h[i] : -1;
}

static bool looks_json(const unsigned char *h, size_t n)
{
    int c = first_char(h, n, NULL);
    return c == '{' || c == '[';
}

/* Printable text (ASCII or UTF-8 bytes, tabs and newlines) in the first n bytes. */
static bool looks_text(const unsigned char *h, size_t n)
{
    if (!n) return false;
    for (size_t i = 0; i < n; i++)
        if (h[i] < 0x20 && h[i] != '\t' && h[i] != '\n' && h[i] != '\r') return false;
    return true;
}

static bool sniff_sqlite(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    return n >= 16 && memcmp(h, "SQLite format 3", 16) == 0; /* 15 chars and the NUL */
}

static bool sniff_nsys_rep(const unsigned char *h, size_t n, const char *path)
{
    return !looks_json(h, n) && (has_suffix(path, ".nsys-rep") || has_suffix(path, ".qdrep") ||
                                 has_suffix(path, ".nsys-rep.gz"));
}

static bool sniff_onnx_model(const unsigned char *h, size_t n, const char *path)
{
    return !looks_json(h, n) && (has_suffix(path, ".onnx") || has_suffix(path, ".onnx.gz"));
}

static bool sniff_protobuf(const unsigned char *h, size_t n, const char *path)
{
    if (looks_json(h, n)) return false;
    return has_suffix(path, ".pb") || has_suffix(path, ".pb.gz") || has_suffix(path, ".xplane") ||
           has_suffix(path, ".xspace");
}

/* One `perf script` sample header in h[i..end): a "digits.digits:" token (the time) and, after
 * it and an optional period, an event token ending in ':'. */
static bool perf_header(const unsigned char *h, size_t i, size_t end)
{
    for (size_t j = i; j + 2 < end; j++) {
        if (!isdigit(h[j]) || (j > i && h[j - 1] != ' ' && h[j - 1] != '\t')) continue;
        size_t k = j;
        while (k < end && isdigit(h[k]))
            k++;
        if (k >= end || h[k] != '.') continue;
        size_t d = ++k;
        while (k < end && isdigit(h[k]))
            k++;
        if (k == d || k >= end || h[k] != ':') continue;
        k++;
        for (int tok = 0; tok < 2; tok++) { /* [PERIOD] EVENT: */
            while (k < end && (h[k] == ' ' || h[k] == '\t'))
                k++;
            size_t a = k;
            while (k < end && h[k] != ' ' && h[k] != '\t')
                k++;
            if (k > a + 1 && h[k - 1] == ':') return true;
            bool num = k > a;
            for (size_t q = a; q < k; q++)
                num = num && isdigit(h[q]);
            if (!num) return false;
        }
        return false;
    }
    return false;
}

/* `perf script`: "comm  pid[/tid] [cpu] secs.usecs: [period] event:" then indented frames (or,
 * without callchains, the next sample's header); or a name perf-script files get, when the
 * content cannot say (an empty file). */
static bool sniff_perf_script(const unsigned char *h, size_t n, const char *path)
{
    bool named = has_suffix(path, ".perf-script") || has_suffix(path, ".perf-script.txt") ||
                 has_suffix(path, ".perf-script.gz") || has_suffix(path, ".perf-script.txt.gz");
    if (n == 0 || (named && !looks_json(h, n))) return named; /* its reader says what is wrong */
    if (!looks_text(h, n > 4096 ? 4096 : n) || looks_json(h, n)) return false;
    size_t i = 0;
    while (i < n && h[i] == '#') /* perf script --header lines */
        while (i < n && h[i++] != '\n') {
        }
    size_t end = i;
    while (end < n && h[end] != '\n')
        end++;
    if (end >= n || !perf_header(h, i, end)) return false;
    /* the next line: a frame ("\t  addr sym (dso)"), or another header */
    size_t j = end + 1;
    if (j >= n) return false;
    size_t e2 = j;
    while (e2 < n && h[e2] != '\n')
        e2++;
    /* without -g the next header, its COMM right-aligned: maybe indented */
    if (perf_header(h, j, e2)) return true;
    if (h[j] != '\t' && h[j] != ' ') return false;
    while (j < n && (h[j] == '\t' || h[j] == ' '))
        j++;
    return j < n && isxdigit(h[j]);
}

static bool sniff_speedscope(const unsigned char *h, size_t n, const char *path)
{
    if ((n == 0 || looks_json(h, n)) &&
        (has_suffix(path, ".speedscope.json") || has_suffix(path, ".speedscope.json.gz")))
        return true;
    return looks_json(h, n) && memmem(h, n, "speedscope.app/file-format-schema", 33) != NULL;
}

/* ONNX Runtime profile: a JSON array whose first event has "cat" "Session" or "Node"; or a
 * 0-byte file with the name ORT writes (its reader explains the empty profile). */
static bool sniff_ort(const unsigned char *h, size_t n, const char *path)
{
    size_t i;
    if (n == 0) return ingest_ort_name(path);
    if (first_char(h, n, &i) != '[') return false;
    size_t j = i + 1;
    if (first_char(h + j, n - j, &i) != '{') return false;
    j += i;
    size_t lim = n - j < 512 ? n - j : 512; /* within the first object's first members */
    const unsigned char *c = memmem(h + j, lim, "\"cat\"", 5);
    if (!c) return false;
    size_t k = (size_t)(c - h) + 5;
    while (k < n && (h[k] == ' ' || h[k] == '\t' || h[k] == ':'))
        k++;
    return (n - k >= 9 && !memcmp(h + k, "\"Session\"", 9)) ||
           (n - k >= 6 && !memcmp(h + k, "\"Node\"", 6));
}

/* trtexec --exportProfile: [ { "count" : N }, { "name" : ..., "timeMs" : ... } ...] */
static bool sniff_trtexec(const unsigned char *h, size_t n, const char *path)
{
    size_t i;
    if (n == 0) return has_suffix(path, ".profile.json");
    if (first_char(h, n, &i) != '[') return false;
    size_t j = i + 1;
    if (first_char(h + j, n - j, &i) != '{') return false;
    j += i + 1;
    if (first_char(h + j, n - j, &i) != '"') return false;
    j += i;
    return n - j >= 7 && memcmp(h + j, "\"count\"", 7) == 0;
}

/* The first member name of a JSON object/array-of-objects document, in key[0..ksz). */
static bool first_key(const unsigned char *h, size_t n, bool in_array, char *key, size_t ksz)
{
    size_t i, j = 0;
    int c = first_char(h, n, &i);
    if (in_array) {
        if (c != '[') return false;
        j = i + 1;
        c = first_char(h + j, n - j, &i);
    }
    if (c != '{') return false;
    j += i + 1;
    if (first_char(h + j, n - j, &i) != '"') return false;
    j += i + 1;
    size_t k = 0;
    while (j < n && h[j] != '"' && k + 1 < ksz)
        key[k++] = (char)h[j++];
    key[k] = 0;
    return j < n && h[j] == '"';
}

/* trtexec --exportTimes: [ { "startEnqMs" : ...} ...] (TensorRT 7: startInMs ...) */
static bool sniff_trtexec_times(const unsigned char *h, size_t n, const char *path)
{
    char k[32];
    if (n == 0) return has_suffix(path, ".timing.json") || has_suffix(path, ".times.json");
    return first_key(h, n, true, k, sizeof(k)) &&
           (!strcmp(k, "startEnqMs") || !strcmp(k, "startInMs") || !strcmp(k, "startH2dMs") ||
            !strcmp(k, "startComputeMs"));
}

/* trtexec --exportLayerInfo: {"Layers": [...], "Bindings": [...]} */
static bool sniff_trtexec_layers(const unsigned char *h, size_t n, const char *path)
{
    char k[32];
    if (n == 0) return has_suffix(path, ".graph.json") || has_suffix(path, ".layers.json");
    return first_key(h, n, false, k, sizeof(k)) && (!strcmp(k, "Layers") || !strcmp(k, "Bindings"));
}

/* TREx metadata: {"performance_summary"...}, {"model_options"...}, [{"Name", ..,
 * "ComputeCapability"...}]; and any TREx/trtexec export name whose content is not JSON at all
 * (its reader says what is wrong with it instead of the Chrome reader) */
static bool sniff_trex_meta(const unsigned char *h, size_t n, const char *path)
{
    char k[32];
    if (first_key(h, n, false, k, sizeof(k)))
        return !strcmp(k, "performance_summary") || !strcmp(k, "model_options") ||
               !strcmp(k, "build_options") || !strcmp(k, "inference_options");
    if (first_key(h, n, true, k, sizeof(k)))
        return !strcmp(k, "Name") && has_suffix(path, ".metadata.json") &&
               memmem(h, n, "\"ComputeCapability\"", 19) != NULL;
    return (n == 0 || !looks_json(h, n)) && ingest_trt_prefix_len(path ? path : "") > 0;
}

/* trtexec's text log ("&&&& RUNNING TensorRT.trtexec", "[I] === Model Options ===", ...) */
static bool sniff_trtexec_log(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    return looks_text(h, n > 4096 ? 4096 : n) && trt_log_sniff(h, n);
}

/* `nsys stats` CSV: its header line (after a preamble), named by ingest_nsys_csv_kind(). */
static bool sniff_nsys_csv(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    if (looks_json(h, n) || !looks_text(h, n > 4096 ? 4096 : n)) return false;
    return ingest_nsys_csv_kind(h, n > 4096 ? 4096 : n) != NULL;
}

/* `ncu --csv`: a header line ("ID","Process ID",...,"Kernel Name",...) at the start of a line
 * within the first chunk (after ncu's ==PROF== lines and the program's own output). */
static bool sniff_ncu(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    if (looks_json(h, n)) return false;
    for (size_t i = 0; i < n;) {
        const unsigned char *nl = memchr(h + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - h) : n;
        if (e - i >= 4 && ingest_ncu_header((const char *)h + i, e - i)) return true;
        i = e + 1;
    }
    return false;
}

/* CSV: text whose first line has at least two commas and does not start like JSON. */
static bool sniff_collapsed(const unsigned char *h, size_t n, const char *path);

static bool sniff_csv(const unsigned char *h, size_t n, const char *path)
{
    if (sniff_collapsed(h, n, path)) return false; /* C++ frames hold commas */
    if (looks_json(h, n) || !looks_text(h, n > 4096 ? 4096 : n)) return false;
    if (has_suffix(path, ".csv") || has_suffix(path, ".csv.gz")) return true;
    size_t commas = 0;
    for (size_t i = 0; i < n && h[i] != '\n'; i++)
        commas += h[i] == ',';
    return commas >= 2 && memchr(h, '\n', n) != NULL;
}

/* Collapsed stacks (py-spy --format raw, stackcollapse-*.pl): "a;b;c COUNT" lines: the first
 * complete lines (up to 8) all end in " COUNT" and one has a ';' (or the name says .folded /
 * .collapsed: then also an empty file, for its reader to explain). */
static bool sniff_collapsed(const unsigned char *h, size_t n, const char *path)
{
    bool named = has_suffix(path, ".folded") || has_suffix(path, ".collapsed") ||
                 has_suffix(path, ".folded.gz") || has_suffix(path, ".collapsed.gz");
    if (n == 0 || named) return named; /* its reader says what is wrong */
    /* "[unknown];main 3" starts like a JSON array, but no JSON value starts with a letter
     * other than t/f/n */
    size_t j;
    int c = first_char(h, n, &j);
    if (c == '{') return false;
    if (c == '[') {
        int d = j + 1 < n ? first_char(h + j + 1, n - j - 1, NULL) : -1;
        if (d < 0 || strchr("{[\"]-0123456789tfn", d)) return false;
    }
    if (!looks_text(h, n > 4096 ? 4096 : n)) return false;
    size_t i = 0, lines = 0;
    bool semi = false;
    while (i < n && lines < 8) {
        const unsigned char *nl = memchr(h + i, '\n', n - i);
        if (!nl) break;
        size_t e = (size_t)(nl - h);
        if (e > i && h[e - 1] == '\r') e--;
        if (e > i) {
            size_t d = e;
            while (d > i && isdigit(h[d - 1]))
                d--;
            if (d == e || d == i || h[d - 1] != ' ') return false;
            semi = semi || memchr(h + i, ';', d - i) != NULL;
            lines++;
        }
        i = (size_t)(nl - h) + 1;
    }
    return lines && semi;
}

/* Text that cannot start a JSON document (a log, a report): named instead of a JSON error. */
static bool sniff_text(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    size_t i;
    int c = first_char(h, n, &i);
    if (c < 0 || !looks_text(h, n > 4096 ? 4096 : n)) return false;
    return !strchr("{[\"-0123456789tfn", c);
}

static bool sniff_any(const unsigned char *h, size_t n, const char *path)
{
    (void)h;
    (void)n;
    (void)path;
    return true;
}

/* The catch-all JSON row: the Kineto/Chrome reader, and the ORT mapping when what it read is
 * an ONNX Runtime profile the sniff could not see (a first chunk shorter than its "cat"). */
static int load_json(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                     struct lat_trace **out, char *err, size_t errsz)
{
    int rc = ingest_kineto_load(src, name, opts, out, err, errsz);
    if (!rc && *out && ingest_tf_chrome_like(*out)) { /* TensorFlow's trace_viewer JSON */
        rc = lat_trace_sort(*out);
        if (!rc) rc = ingest_tf_finish(*out);
        if (rc) {
            lat_trace_free(*out);
            *out = NULL;
            if (err && errsz)
                snprintf(err, errsz, "%s: %s", name ? name : "(input)", lat_strerror(rc));
            return rc;
        }
        (*out)->format = "tf-trace-viewer";
        return 0;
    }
    if (rc || !*out || !(*out)->format || strcmp((*out)->format, "ort") != 0) return rc;
    rc = ingest_ort_finish(*out, name ? name : "(input)", err, errsz);
    if (rc) *out = NULL;
    return rc;
}

struct ingest_format {
    const char *name; /* ingest_sniff()'s answer */
    const char *what; /* for messages: "an SQLite database" */
    bool (*sniff)(const unsigned char *head, size_t n, const char *path);
    ingest_load_fn load; /* NULL: recognised, not readable yet */
    const char *todo;    /* rows without a reader: what to do instead */
};

static const struct ingest_format formats[] = {
    {"ort", "an ONNX Runtime profile", sniff_ort, ingest_ort_load, NULL},
    /* Nsight Systems SQLite exports (nsys.c; another SQLite file gets its own message there) */
    {"sqlite", "an SQLite database (an `nsys export --type sqlite` file?)", sniff_sqlite,
     ingest_nsys_load, NULL},
    {"nsys-rep", "an Nsight Systems report", sniff_nsys_rep, NULL,
     "run `nsys export --type sqlite FILE` and pass the .sqlite file it writes"},
    {"onnx-model", "an ONNX model, not a profile", sniff_onnx_model, NULL,
     "run it in ONNX Runtime with SessionOptions.enable_profiling and pass the "
     "onnxruntime_profile_*.json"},
    {"protobuf", "a protobuf file (a TensorFlow/JAX .xplane.pb?)", sniff_protobuf,
     ingest_xplane_load, NULL},
    {"perf-script", "`perf script` text", sniff_perf_script, ingest_perf_script_load, NULL},
    {"speedscope", "a speedscope profile", sniff_speedscope, ingest_speedscope_load, NULL},
    {"trtexec-profile", "a trtexec --exportProfile file (layer averages, no timeline)",
     sniff_trtexec, ingest_trt_load, NULL},
    /* TensorRT (trt.c, trt-log.c): the other trtexec exports, TREx metadata, trtexec's log */
    {"trtexec-times", "a trtexec --exportTimes file", sniff_trtexec_times, ingest_trt_load, NULL},
    {"trtexec-layers", "a trtexec --exportLayerInfo file", sniff_trtexec_layers, ingest_trt_load,
     NULL},
    {"trex-metadata", "TREx metadata of a TensorRT engine", sniff_trex_meta, ingest_trt_load, NULL},
    {"trtexec-log", "a trtexec log", sniff_trtexec_log, ingest_trt_log_load, NULL},
    /* `nsys stats` CSV: timeline reports as events, summaries as summary rows (nsys-csv.c) */
    {"nsys-stats-csv", "an `nsys stats` CSV report", sniff_nsys_csv, ingest_nsys_csv_load, NULL},
    /* Nsight Compute `ncu --csv` (details or raw page; ncu.c) */
    {"ncu", "an `ncu --csv` report", sniff_ncu, ingest_ncu_load, NULL},
    {"csv", "CSV text (an nsys/ncu report?)", sniff_csv, NULL, "pass the trace file itself"},
    {"collapsed-stacks", "collapsed stack samples (py-spy raw, stackcollapse)", sniff_collapsed,
     ingest_folded_load, NULL},
    {"text", "a text file, not JSON (a log?)", sniff_text, NULL, "pass the trace file itself"},
    /* last: any JSON (and anything not recognised above: the JSON reader says what is wrong) */
    {"kineto", "Kineto/Chrome trace JSON", sniff_any, load_json, NULL},
};

static const struct ingest_format *format_of(const void *head, size_t n, const char *path)
{
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (formats[i].sniff(head, n, path)) return &formats[i];
    return &formats[sizeof(formats) / sizeof(formats[0]) - 1];
}

const char *ingest_sniff(const void *head, size_t n, const char *path)
{
    return format_of(head, n, path)->name;
}

bool ingest_sniff_reads(const void *head, size_t n, const char *path)
{
    const struct ingest_format *f = format_of(head, n, path);
    return f->load && f != &formats[sizeof(formats) / sizeof(formats[0]) - 1];
}

/* Sniffs src and hands it to the format's reader (which owns it), or fails naming the format. */
static int load_src(struct ingest_src *src, const char *name, const char *path,
                    const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                    size_t errsz)
{
    const char *head = NULL;
    size_t n = 0;
    char ebuf[200] = "";
    /* An error here (corrupt gzip) is reported again by the reader's first src_next(). */
    (void)src_peek(src, &head, &n, ebuf, sizeof(ebuf));
    const struct ingest_format *f = format_of(head, head ? n : 0, path);
    if (f->load) return f->load(src, name, opts, out, err, errsz);
    bool gz = src_is_gzip(src);
    src_close(src);
    if (err && errsz)
        snprintf(err, errsz, "%s: %s%s; latscope reads Kineto/Chrome trace JSON: %s", name,
                 gz ? "gzip of " : "", f->what, f->todo);
    return LAT_E_NOT_TRACE;
}

int ingest_open(const char *path, const struct lat_ingest_opts *opts, struct lat_trace **out,
                char *err, size_t errsz)
{
    struct ingest_src *src;
    char ebuf[200] = "";
    *out = NULL;
    /* A second thread only pays when there is a second CPU to run it. */
    bool thread =
        !(opts && (opts->flags & LAT_INGEST_NO_THREAD)) && sysconf(_SC_NPROCESSORS_ONLN) > 1;
    int rc = src_open_path(path, opts ? opts->chunk_bytes : 0, thread, &src, ebuf, sizeof(ebuf));
    if (rc) {
        if (err && errsz) snprintf(err, errsz, "%s: %s", path, ebuf[0] ? ebuf : lat_strerror(rc));
        return rc;
    }
    return load_src(src, path, strcmp(path, "-") ? path : NULL, opts, out, err, errsz);
}

int ingest_mem(const void *data, size_t n, const char *name, const struct lat_ingest_opts *opts,
               struct lat_trace **out, char *err, size_t errsz)
{
    struct ingest_src *src;
    char ebuf[200] = "";
    *out = NULL;
    int rc = src_open_mem(data, n, opts ? opts->chunk_bytes : 0, &src, ebuf, sizeof(ebuf));
    if (rc) {
        if (err && errsz) snprintf(err, errsz, "%s: %s", name, ebuf[0] ? ebuf : lat_strerror(rc));
        return rc;
    }
    return load_src(src, name ? name : "(memory)", name, opts, out, err, errsz);
}

/* ---- sets of files ------------------------------------------------------------------------- */

static bool trace_name(const char *n)
{
    size_t l = strlen(n);
    return (l > 5 && !strcmp(n + l - 5, ".json")) || (l > 8 && !strcmp(n + l - 8, ".json.gz"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A set under construction: the files plus what the rules need (not in the public struct). */
struct entry {
    dev_t dev;
    ino_t ino;
    bool have_id;
    size_t dir;  /* index of the directory among the inputs + 1; 0 for a named file */
    bool loaded; /* settled with a trace (the rank rules compare with it; streaming frees it) */
};

struct builder {
    struct lat_ingest_set *s;
    struct entry *e;
    size_t cap, ecap;                /* of s->files, of e */
    size_t share_count, share_index; /* ingest_paths_each: this process's files */
};

static bool not_mine(size_t count, size_t index, size_t i)
{
    return count > 1 && i % count != index;
}

static int add_file(struct builder *b, const char *dir, const char *name, size_t dir_no)
{
    int rc = LAT_GROW(b->s->files, b->cap, b->s->n, 1, 16);
    if (rc || (rc = LAT_GROW(b->e, b->ecap, b->s->n, 1, 16))) return rc;
    struct lat_ingest_file *f = &b->s->files[b->s->n];
    struct entry *e = &b->e[b->s->n];
    memset(f, 0, sizeof(*f));
    memset(e, 0, sizeof(*e));
    if (dir) {
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/') /* "rk/" + "a.json": "rk/a.json", not "rk//a.json" */
            dl--;
        size_t pl = dl + strlen(name) + 2;
        f->path = malloc(pl);
        if (f->path)
            snprintf(f->path, pl, "%.*s%s%s", (int)dl, dir, dir[dl - 1] == '/' ? "" : "/", name);
    } else {
        f->path = strdup(name);
    }
    if (!f->path) return -ENOMEM;
    f->in_dir = dir != NULL;
    f->rank = -1;
    e->dir = dir_no;
    b->s->n++;
    struct stat st;
    if (strcmp(f->path, "-") != 0 && stat(f->path, &st) == 0) {
        e->dev = st.st_dev;
        e->ino = st.st_ino;
        e->have_id = true;
        if (dir && !S_ISREG(st.st_mode)) {
            f->status = LAT_INGEST_NOT_FILE;
            snprintf(f->err, sizeof(f->err), "%s: not a regular file (%s), not opened", f->path,
                     S_ISFIFO(st.st_mode)   ? "a FIFO"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISDIR(st.st_mode)  ? "a directory"
                                            : "a device");
        }
    }
    return 0;
}

/* ---- TensorFlow profile directories (LOGDIR/plugins/profile/RUN/HOST.xplane.pb) ---------- */

static bool tf_xplane_name(const char *n)
{
    return has_suffix(n, ".xplane.pb");
}

/* HOST.trace.json.gz of older TF (not a PyTorch NAME.pt.trace.json.gz) */
static bool tf_trace_name(const char *n)
{
    return (has_suffix(n, ".trace.json.gz") || has_suffix(n, ".trace.json")) &&
           !has_suffix(n, ".pt.trace.json.gz") && !has_suffix(n, ".pt.trace.json");
}

static bool tf_profile_name(const char *n)
{
    return n[0] != '.' && (tf_xplane_name(n) || tf_trace_name(n));
}

static bool is_dir_path(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dir without trailing '/' (at least one char) */
static size_t dir_len(const char *dir)
{
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
        l--;
    return l;
}

/* The TF profile files of dir (name order; *n = 0 when none or dir cannot be listed). */
static int tf_list(const char *dir, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!tf_profile_name(de->d_name)) continue;
        if ((rc = LAT_GROW(*out, cap, *n, 1, 8))) break;
        if (!((*out)[*n] = strdup(de->d_name))) {
            rc = -ENOMEM;
            break;
        }
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(*out, *n, sizeof(**out), cmp_str);
    return rc;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* "YYYY_MM_DD_HH_MM_SS": the run name TF gives (the time the profile started) */
static bool tf_run_time_name(const char *s)
{
    static const char pat[] = "dddd_dd_dd_dd_dd_dd";
    for (size_t i = 0; i < sizeof(pat) - 1; i++)
        if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != '_') return false;
    return s[sizeof(pat) - 1] == 0 || s[sizeof(pat) - 1] == '.'; /* TF may append ".N" */
}

static int note_add(struct lat_ingest_set *s, const char *line)
{
    size_t ol = s->note ? strlen(s->note) : 0, ll = strlen(line);
    char *p = realloc(s->note, ol + ll + 2);
    if (!p) return -ENOMEM;
    if (ol) p[ol++] = '\n';
    memcpy(p + ol, line, ll + 1);
    s->note = p;
    return 0;
}

/* Adds the hosts of one run (its TF profile files; a HOST.trace.json[.gz] whose HOST.xplane.pb
 * is there too is the same data: not added). note: what to say about the run so far. */
static int tf_add_run(struct builder *b, const char *run, size_t dir_no, char *note, size_t notesz,
                      char *err, size_t errsz)
{
    char **names;
    size_t n;
    int rc = tf_list(run, &names, &n);
    if (!rc && !n) {
        rc = LAT_E_NOT_FOUND;
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: a TensorFlow profile run without a *.xplane.pb: tf.profiler writes "
                     "HOST.xplane.pb there at tf.profiler.experimental.stop(); a process that "
                     "exited or crashed before stop() leaves the run empty: profile again, or "
                     "pass another run",
                     run);
    }
    size_t hosts = 0, twins = 0, nl = strlen(note);
    char hostlist[256] = "";
    for (size_t i = 0; !rc && i < n; i++) {
        size_t hl = strlen(names[i]) - (tf_xplane_name(names[i])      ? 10
                                        : has_suffix(names[i], ".gz") ? 14
                                                                      : 11);
        if (!tf_xplane_name(names[i])) {
            bool twin = false;
            for (size_t j = 0; j < n && !twin; j++)
                twin = j != i && tf_xplane_name(names[j]) && strlen(names[j]) == hl + 10 &&
                       !strncmp(names[j], names[i], hl);
            if (twin) {
                twins++;
                continue;
            }
        }
        size_t k = strlen(hostlist);
        if (k + hl + 8 < sizeof(hostlist))
            snprintf(hostlist + k, sizeof(hostlist) - k, "%s%.*s", hosts ? ", " : "", (int)hl,
                     names[i]);
        hosts++;
        rc = add_file(b, run, names[i], dir_no);
    }
    if (!rc)
        nl += (size_t)snprintf(note + nl, notesz > nl ? notesz - nl : 0, "; %zu host%s (%s): %s",
                               hosts, hosts == 1 ? "" : "s", hostlist,
                               hosts == 1 ? "one process" : "one process each, not ranks");
    if (!rc && twins && nl < notesz)
        snprintf(note + nl, notesz - nl,
                 "; %zu HOST.trace.json.gz not read: the same profile as its HOST.xplane.pb",
                 twins);
    free_names(names, n);
    return rc;
}

/* A TensorFlow profile directory: adds the chosen run's hosts and returns 1; 0 when dir is not
 * one (a plain directory of trace files); < 0 on error (err filled). */
static int tf_dir(struct builder *b, const char *dir, size_t dir_no, char *err, size_t errsz)
{
    char runs[4096], run[4096], note[1024];
    size_t dl = dir_len(dir);
    bool logdir = false;
    if ((size_t)snprintf(runs, sizeof(runs), "%.*s/plugins/profile", (int)dl, dir) < sizeof(runs) &&
        is_dir_path(runs)) {
        logdir = true;
    } else if (dl >= 15 && !strncmp(dir + dl - 15, "plugins/profile", 15) &&
               (dl == 15 || dir[dl - 16] == '/')) {
        snprintf(runs, sizeof(runs), "%.*s", (int)dl, dir);
    } else {
        /* one run: holds *.xplane.pb, or lies in a plugins/profile directory */
        char **names;
        size_t n;
        int rc = tf_list(dir, &names, &n);
        if (rc) return rc;
        bool xp = false;
        for (size_t i = 0; i < n; i++)
            xp |= tf_xplane_name(names[i]);
        free_names(names, n);
        char parent[4096];
        snprintf(parent, sizeof(parent), "%.*s", (int)dl, dir);
        char *sl = strrchr(parent, '/');
        if (sl) *sl = 0;
        size_t pl = sl ? strlen(parent) : 0;
        bool in_profile = sl && pl >= 15 && !strcmp(parent + pl - 15, "plugins/profile");
        if (!xp && !in_profile) return 0;
        snprintf(run, sizeof(run), "%.*s", (int)dl, dir);
        int k = snprintf(note, sizeof(note), "%s: TensorFlow profile run", run);
        rc = tf_add_run(b, run, dir_no, note, sizeof(note), err, errsz);
        if (!rc && k > 0) rc = note_add(b->s, note);
        return rc < 0 ? rc : 1;
    }
    /* the runs: subdirectories; the latest one holding a profile file */
    DIR *d = opendir(runs);
    if (!d) {
        int rc = -errno;
        if (err && errsz)
            snprintf(err, errsz, "%s: cannot open directory: %s", runs, strerror(-rc));
        return rc;
    }
    struct run {
        char *name;
        bool files;
        int64_t mtime;
    } *rv = NULL;
    size_t nr = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char p[4096];
        struct stat st;
        if ((size_t)snprintf(p, sizeof(p), "%s/%s", runs, de->d_name) >= sizeof(p) ||
            stat(p, &st) || !S_ISDIR(st.st_mode))
            continue;
        if ((rc = LAT_GROW(rv, cap, nr, 1, 8))) break;
        char **names;
        size_t n;
        if ((rc = tf_list(p, &names, &n))) break;
        free_names(names, n);
        rv[nr].name = strdup(de->d_name);
        if (!rv[nr].name) {
            rc = -ENOMEM;
            break;
        }
        rv[nr].files = n > 0;
        rv[nr].mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        nr++;
    }
    closedir(d);
    bool by_name = true;
    for (size_t i = 0; i < nr; i++)
        by_name = by_name && tf_run_time_name(rv[i].name);
    /* newest first: by name, or by modification time (then name) */
    for (size_t i = 1; !rc && i < nr; i++)
        for (size_t j = i; j > 0; j--) {
            struct run *x = &rv[j - 1], *y = &rv[j];
            int c = strcmp(x->name, y->name);
            bool after = by_name ? c > 0 : (x->mtime != y->mtime ? x->mtime > y->mtime : c > 0);
            if (after) break;
            struct run tmp = *x;
            *x = *y;
            *y = tmp;
        }
    size_t pick = nr, empty_newer = 0, with_files = 0;
    for (size_t i = 0; i < nr; i++) {
        with_files += rv[i].files;
        if (pick == nr && rv[i].files) pick = i;
        if (pick == nr && !rv[i].files) empty_newer++;
    }
    if (!rc && pick == nr) {
        rc = LAT_E_NOT_FOUND;
        if (err && errsz) {
            if (!nr)
                snprintf(err, errsz,
                         "%s: a TensorFlow profile directory without a run: TensorFlow writes "
                         "LOGDIR/plugins/profile/RUN/HOST.xplane.pb at "
                         "tf.profiler.experimental.stop()",
                         runs);
            else
                snprintf(err, errsz,
                         "%s: %zu TensorFlow profile run%s, none with a *.xplane.pb: "
                         "tf.profiler writes it at tf.profiler.experimental.stop(); a process "
                         "that exited or crashed before stop() leaves the run empty",
                         runs, nr, nr == 1 ? "" : "s");
        }
    }
    if (!rc) {
        if ((size_t)snprintf(run, sizeof(run), "%s/%s", runs, rv[pick].name) >= sizeof(run))
            rc = -ENAMETOOLONG;
    }
    if (!rc) {
        int k;
        if (nr == 1)
            k = snprintf(note, sizeof(note), "%.*s: TensorFlow profile, its one run %s", (int)dl,
                         dir, rv[pick].name);
        else
            k = snprintf(note, sizeof(note),
                         "%.*s: TensorFlow profile run %s, the latest of %zu (%zu with a profile; "
                         "latest by %s; pass %s/OTHER_RUN for another)",
                         (int)dl, dir, rv[pick].name, nr, with_files,
                         by_name ? "name, the time TF started the profile"
                                 : "modification time: not every run name is a TF time",
                         runs);
        if (k > 0 && empty_newer && (size_t)k < sizeof(note))
            k += snprintf(note + k, sizeof(note) - (size_t)k,
                          "; %zu newer run%s without a *.xplane.pb skipped (a profile not "
                          "stopped, or still being written)",
                          empty_newer, empty_newer == 1 ? "" : "s");
        (void)logdir;
        rc = tf_add_run(b, run, dir_no, note, sizeof(note), err, errsz);
        if (!rc) rc = note_add(b->s, note);
    }
    for (size_t i = 0; i < nr; i++)
        free(rv[i].name);
    free(rv);
    return rc < 0 ? rc : 1;
}

/* Lists dir's trace files into b (name order). */
static int add_dir(struct builder *b, const char *dir, size_t dir_no, char *err, size_t errsz)
{
    int tf = tf_dir(b, dir, dir_no, err, errsz);
    if (tf) return tf < 0 ? tf : 0;
    DIR *d = opendir(dir);
    if (!d) {
        int rc = -errno;
        if (err && errsz) snprintf(err, errsz, "%s: cannot open directory: %s", dir, strerror(-rc));
        return rc;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || !trace_name(de->d_name)) continue;
        if ((rc = LAT_GROW(names, cap, n, 1, 16))) break;
        names[n] = strdup(de->d_name);
        if (!names[n]) {
            rc = -ENOMEM;
            break;
        }
        n++;
    }
    closedir(d);
    if (!rc && n == 0) {
        rc = LAT_E_NOT_FOUND;
        if (err && errsz) snprintf(err, errsz, "%s: no *.json or *.json.gz trace file", dir);
    }
    if (!rc) qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; !rc && i < n; i++) {
        /* TREx files of one engine (PREFIX.profile.json, PREFIX.graph.json, ...): two or more
         * with the same prefix are one entry, the engine (name order keeps them together
         * unless another name sorts between them: compare with every other name) */
        size_t pl = ingest_trt_prefix_len(names[i]), same = 0;
        bool first = true;
        for (size_t j = 0; pl && j < n; j++)
            if (j != i && ingest_trt_prefix_len(names[j]) == pl &&
                !strncmp(names[i], names[j], pl)) {
                same++;
                if (j < i) first = false;
            }
        if (!same) {
            rc = add_file(b, dir, names[i], dir_no);
            continue;
        }
        if (!first) continue;
        char *pre = strndup(names[i], pl);
        if (!pre) {
            rc = -ENOMEM;
            break;
        }
        rc = add_file(b, dir, pre, dir_no);
        free(pre);
        if (!rc) {
            b->s->files[b->s->n - 1].trt_engine = true;
            b->e[b->s->n - 1].have_id = false;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Loading the files of a set: independent loads on a few threads (core/par.h), files taken in
 * order from an atomic counter. Only the calling thread reports progress (the callback need
 * not be thread-safe); stats, when asked for, are summed under a lock. */
struct set_load {
    struct lat_ingest_set *s;
    const struct lat_ingest_opts *opts;
    atomic_size_t next;
    size_t end; /* files [next, end) */
    pthread_mutex_t mu;
};

static void set_load_work(void *arg, bool caller)
{
    struct set_load *d = arg;
    struct lat_ingest_opts o = {0};
    struct lat_ingest_stats st;
    if (d->opts) o = *d->opts;
    if (!caller) o.progress = NULL;
    if (d->opts && d->opts->stats) o.stats = &st;
    for (;;) {
        size_t i = atomic_fetch_add(&d->next, 1);
        if (i >= d->end) return;
        struct lat_ingest_file *f = &d->s->files[i];
        if (f->status != LAT_INGEST_OK) continue; /* skipped before loading */
        if (not_mine(o.share_count, o.share_index, i)) continue;
        memset(&st, 0, sizeof(st));
        f->rc = f->trt_engine
                    ? ingest_trt_engine_open(f->path, &o, &f->trace, f->err, sizeof(f->err))
                    : ingest_open(f->path, &o, &f->trace, f->err, sizeof(f->err));
        if (o.stats) {
            pthread_mutex_lock(&d->mu);
            struct lat_ingest_stats *sum = d->opts->stats;
            sum->input_events += st.input_events;
            sum->meta_events += st.meta_events;
            sum->json_bytes += st.json_bytes;
            sum->raw_bytes += st.raw_bytes;
            sum->gzip |= st.gzip;
            pthread_mutex_unlock(&d->mu);
        }
    }
}

static void set_load_range(struct lat_ingest_set *s, size_t lo, size_t hi,
                           const struct lat_ingest_opts *opts)
{
    struct set_load d = {.s = s, .opts = opts, .end = hi};
    atomic_init(&d.next, lo);
    pthread_mutex_init(&d.mu, NULL);
    bool one = opts && (opts->flags & LAT_INGEST_NO_THREAD);
    par_run(par_threads(one ? 1 : 0, hi - lo), set_load_work, &d);
    pthread_mutex_destroy(&d.mu);
}

static void set_load_all(struct lat_ingest_set *s, const struct lat_ingest_opts *opts)
{
    set_load_range(s, 0, s->n, opts);
}

static void drop_trace(struct lat_ingest_file *f)
{
    lat_trace_free(f->trace);
    f->trace = NULL;
}

/* After the loads: errors, ranks (per directory, as HTA), NO_RANK / DUP_RANK. Returns the rc
 * of the first named file that failed (err filled), else 0. */
static int settle_range(struct builder *b, size_t lo, size_t hi, char *err, size_t errsz)
{
    struct lat_ingest_set *s = b->s;
    int fail = 0;
    for (size_t i = lo; i < hi; i++) {
        struct lat_ingest_file *f = &s->files[i];
        if (f->status != LAT_INGEST_OK || not_mine(b->share_count, b->share_index, i)) continue;
        if (f->rc) {
            f->status = LAT_INGEST_ERROR;
            if (!f->in_dir && !fail) {
                fail = f->rc;
                if (err && errsz) snprintf(err, errsz, "%s", f->err);
            }
            continue;
        }
        f->rank = f->trace->rank;
        b->e[i].loaded = true;
        /* ORT profiles are one process's session each: in a directory they are separate
         * runs (compared or listed), never ranks of one job, so no rank rules apply */
        if (!f->in_dir || (f->trace->format && (!strcmp(f->trace->format, "ort") ||
                                                !strcmp(f->trace->format, "tensorrt"))))
            continue;
        /* TensorFlow: a profile run's hosts are processes, not ranks */
        if (f->trace->format &&
            (!strcmp(f->trace->format, "xplane") || !strcmp(f->trace->format, "tf-trace-viewer")))
            continue;
        if (f->trace->role != LAT_TRACE_TIMELINE) continue; /* a kernel profile: no rank */
        if (f->rank < 0) {
            f->status = LAT_INGEST_NO_RANK;
            f->rank = 0;
            snprintf(f->err, sizeof(f->err),
                     "%s: the trace has no distributedInfo.rank; using rank 0", f->path);
        }
        for (size_t j = 0; j < i; j++) {
            struct lat_ingest_file *g = &s->files[j];
            if (b->e[j].dir != b->e[i].dir || !b->e[j].loaded) continue;
            if (g->rank == f->rank) {
                snprintf(f->err, sizeof(f->err),
                         "%s: has the same rank (%d) as %s (one trace per rank)", f->path,
                         (int)f->rank, g->path);
                f->status = LAT_INGEST_DUP_RANK;
                b->e[i].loaded = false;
                drop_trace(f);
                break;
            }
        }
    }
    return fail;
}

static int settle(struct builder *b, char *err, size_t errsz)
{
    return settle_range(b, 0, b->s->n, err, errsz);
}

/* The same file (device, inode) as an earlier entry: loaded once. */
static void mark_same_files(struct builder *b)
{
    struct lat_ingest_set *s = b->s;
    for (size_t i = 0; i < s->n; i++) {
        if (!b->e[i].have_id || s->files[i].status != LAT_INGEST_OK) continue;
        for (size_t j = 0; j < i; j++) {
            if (!b->e[j].have_id || s->files[j].status != LAT_INGEST_OK) continue;
            if (b->e[j].dev == b->e[i].dev && b->e[j].ino == b->e[i].ino) {
                s->files[i].status = LAT_INGEST_SAME_FILE;
                snprintf(s->files[i].err, sizeof(s->files[i].err),
                         "%s: the same file as %s (loaded once)", s->files[i].path,
                         s->files[j].path);
                break;
            }
        }
    }
}

/* Lists the inputs into b (nothing loaded yet). */
static int list_inputs(struct builder *b, const char *const *paths, size_t n, bool dirs_only,
                       char *err, size_t errsz)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        struct stat st;
        bool exists = strcmp(paths[i], "-") == 0 || stat(paths[i], &st) == 0;
        bool is_dir = dirs_only || (strcmp(paths[i], "-") != 0 && exists && S_ISDIR(st.st_mode));
        rc = is_dir ? add_dir(b, paths[i], i + 1, err, errsz) : add_file(b, NULL, paths[i], 0);
        /* the prefix of a TensorRT engine's TREx files (PREFIX.profile.json, ...): the
         * engine file itself, as TREx lays them out side by side, or no file at all */
        if (!rc && !is_dir && strcmp(paths[i], "-") != 0 && ingest_trt_engine_prefix(paths[i]))
            b->s->files[b->s->n - 1].trt_engine = true;
    }
    return rc;
}

static int build(const char *const *paths, size_t n, bool dirs_only,
                 const struct lat_ingest_opts *opts, struct lat_ingest_set **out, char *err,
                 size_t errsz)
{
    struct builder b = {0};
    *out = NULL;
    if (err && errsz) err[0] = 0;
    b.s = calloc(1, sizeof(*b.s));
    if (!b.s) return -ENOMEM;
    int rc = list_inputs(&b, paths, n, dirs_only, err, errsz);
    struct lat_ingest_opts all;
    if (opts) { /* every file: sharing is ingest_paths_each's */
        all = *opts;
        all.share_count = 0;
        opts = &all;
    }
    if (!rc) {
        mark_same_files(&b);
        set_load_all(b.s, opts);
        rc = settle(&b, err, errsz);
    }
    free(b.e);
    if (rc) {
        if (err && errsz && rc == -ENOMEM && !err[0]) snprintf(err, errsz, "out of memory");
        ingest_set_free(b.s);
        return rc;
    }
    *out = b.s;
    return 0;
}

int ingest_paths(const char *const *paths, size_t n, const struct lat_ingest_opts *opts,
                 struct lat_ingest_set **out, char *err, size_t errsz)
{
    return build(paths, n, false, opts, out, err, errsz);
}

int ingest_dir(const char *dir, const struct lat_ingest_opts *opts, struct lat_ingest_set **out,
               char *err, size_t errsz)
{
    return build(&dir, 1, true, opts, out, err, errsz);
}

int ingest_paths_each(const char *const *paths, size_t n, const struct lat_ingest_opts *opts,
                      size_t batch, ingest_visit_fn visit, void *ctx, struct lat_ingest_set **out,
                      char *err, size_t errsz)
{
    struct builder b = {0};
    *out = NULL;
    if (err && errsz) err[0] = 0;
    b.s = calloc(1, sizeof(*b.s));
    if (!b.s) return -ENOMEM;
    int rc = list_inputs(&b, paths, n, false, err, errsz);
    if (!rc) mark_same_files(&b);
    if (opts && opts->share_count > 1) {
        b.share_count = opts->share_count;
        b.share_index = opts->share_index;
    }
    if (!batch) batch = 1;
    for (size_t lo = 0; !rc && lo < b.s->n; lo += batch) {
        size_t hi = lo + batch < b.s->n ? lo + batch : b.s->n;
        set_load_range(b.s, lo, hi, opts);
        rc = settle_range(&b, lo, hi, err, errsz);
        for (size_t i = lo; !rc && i < hi; i++)
            if (!not_mine(b.share_count, b.share_index, i)) rc = visit(ctx, b.s, i);
        for (size_t i = lo; i < hi; i++) /* what the visitor did not take */
            if (b.s->files[i].trace) drop_trace(&b.s->files[i]);
    }
    free(b.e);
    if (rc) {
        if (err && errsz && rc == -ENOMEM && !err[0]) snprintf(err, errsz, "out of memory");
        for (size_t i = 0; i < b.s->n; i++)
            if (b.s->files[i].trace) drop_trace(&b.s->files[i]);
        *out = b.s; /* the caller reports and frees it */
        return rc;
    }
    *out = b.s;
    return 0;
}

size_t ingest_set_loaded(const struct lat_ingest_set *s)
{
    size_t k = 0;
    for (size_t i = 0; s && i < s->n; i++)
        k += s->files[i].trace != NULL;
    return k;
}

bool ingest_status_skipped(enum lat_ingest_status st)
{
    return st == LAT_INGEST_ERROR || st == LAT_INGEST_DUP_RANK || st == LAT_INGEST_NOT_FILE ||
           st == LAT_INGEST_SAME_FILE;
}

const char *ingest_file_reason(const struct lat_ingest_file *f)
{
    size_t l = strlen(f->path);
    if (f->status == LAT_INGEST_OK) return "";
    if (strncmp(f->err, f->path, l) == 0 && f->err[l] == ':' && f->err[l + 1] == ' ')
        return f->err + l + 2;
    if (strncmp(f->err, f->path, l) == 0 && f->err[l] == ' ') return f->err + l + 1;
    return f->err;
}

void ingest_set_free(struct lat_ingest_set *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->files[i].path);
        lat_trace_free(s->files[i].trace);
    }
    free(s->files);
    free(s->note);
    free(s);
}

const char *ingest_status_name(enum lat_ingest_status st)
{
    switch (st) {
    case LAT_INGEST_OK:
        return "ok";
    case LAT_INGEST_NO_RANK:
        return "no-rank";
    case LAT_INGEST_DUP_RANK:
        return "duplicate-rank";
    case LAT_INGEST_ERROR:
        return "error";
    case LAT_INGEST_NOT_FILE:
        return "not-a-file";
    case LAT_INGEST_SAME_FILE:
        return "same-file";
    }
    return "?";
}

/* ---- metadata helpers ---------------------------------------------------------------------- */

const char *ingest_meta_get(const struct lat_trace *t, const char *key)
{
    uint32_t id = strtab_find(&t->strs, key, strlen(key));
    if (id == UINT32_MAX) return NULL;
    for (size_t i = 0; i < t->nmeta; i++)
        if (t->meta[i].key == id) return ingest_meta_display(t, i);
    return NULL;
}

const char *ingest_meta_display(const struct lat_trace *t, size_t i)
{
    if (lat_meta_is_secret(lat_trace_str(t, t->meta[i].key))) return "\"REDACTED\"";
    return lat_trace_str(t, t->meta[i].value);
}
