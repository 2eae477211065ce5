/*
 * cmd-analyze.c - `latscope analyze`: where the time goes in a PyTorch/Kineto or Chrome trace.
 *
 * Loads every TRACE (a file, or a directory of per-rank files) with the ingest readers, treats
 * them together as the ranks of one job (HTA's rank alignment and last-step filtering apply
 * across them), runs analysis_run() and prints a compact text report or one JSON document
 * (docs/analyze-json.md). Metadata values are never printed. Progress goes to stderr only
 * when it is a TTY and the load has taken more than a second.
 */
#define PR_FMT "analyze"
#include "analyze/analysis.h"
#include "analyze/memtl.h"
#include "analyze/render.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "core/par.h"
#include "core/sort.h"
#include "core/units.h"
#include "export/kineto_write.h"
#include "ingest/ingest.h"
#include "latscope.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static const char usage_text[] =
    "usage: latscope analyze [OPTIONS] TRACE|DIR...\n"
    "\n"
    "Where the time goes in PyTorch profiler (Kineto) and Chrome traces: temporal and idle\n"
    "breakdowns, kernel types, comm/compute overlap, launch statistics, steps, top operators,\n"
    "memory copies, synchronisations and queue length. Several TRACEs (or a DIR of per-rank\n"
    "files) are analysed as the ranks of one job. GPU analyses follow Holistic Trace Analysis;\n"
    "operator tables equal torch's prof.key_averages(). Times are the trace's exact ns.\n"
    "Directories of many rank files are read a batch at a time (--stream); under\n"
    "`mpirun -n N latscope analyze DIR` the processes split the rank files and rank 0\n"
    "prints the same report as one process.\n"
    "\n";

static const char footer_text[] =
    "exit status: 0 ok, 1 analysis failed or no trace has --rank N, 2 usage error or an input\n"
    "that cannot be loaded (a bad file inside a DIR is skipped with a warning)\n";

enum {
    OPT_FORMAT,
    OPT_HTA,
    OPT_RANK,
    OPT_TOP,
    OPT_BY_SHAPE,
    OPT_LAST_STEP,
    OPT_NO_NS_ROUNDING,
    OPT_THREADS,
    OPT_PRETTY,
    OPT_WRITE_TRACE,
    OPT_CRITICAL_PATH,
    OPT_NO_CRITICAL_PATH,
    OPT_STREAM,
    OPT_NO_STREAM,
    OPT_KSEQ,
    OPT_KSEQ_MIN,
    OPT_MEMRAW,
};

static const struct cli_opt options[] = {
    {"format", 0, "text|json", OPT_FORMAT, 0, "output format (default text)"},
    {"hta-compat", 0, NULL, OPT_HTA, 0,
     "HTA's own numbers: its ns rounding of timestamps (ceil start,\n"
     "floor end, in us), its rule that always drops the last step,\n"
     "launch stats of CUDA/MTIA launches only, Triton cpu_ops with\n"
     "args.stream as GPU rows (operator tables stay exact)"},
    {"rank", 0, "N", OPT_RANK, 0, "analyse only rank N"},
    {"top", 0, "N", OPT_TOP, 0, "rows in the top-N tables (default 10)"},
    {"group-by-input-shape", 0, NULL, OPT_BY_SHAPE, 0,
     "text: the op table per (op, input shape), as\n"
     "key_averages(group_by_input_shape=True) (always in the JSON)"},
    {"include-last-step", 0, NULL, OPT_LAST_STEP, 0,
     "keep the last ProfilerStep even when it is dropped (by default\n"
     "only when the trace shows it incomplete; always with --hta-compat)"},
    {"no-ns-rounding", 0, NULL, OPT_NO_NS_ROUNDING, 0,
     "with --hta-compat: keep ns timestamps exact\n"
     "(HTA_DISABLE_NS_ROUNDING=1); without it times are never rounded"},
    {"threads", 0, "N", OPT_THREADS, 0,
     "threads for loading rank files and for the analyses, 1..8\n"
     "(default: one per CPU; 1: all on one thread, gzip too); the\n"
     "numbers do not depend on it"},
    {"critical-path", 0, "NAME[:INSTANCE]", OPT_CRITICAL_PATH, CLI_OPTVAL,
     "HTA's critical path (graph of CPU ops, launches, kernels, syncs;\n"
     "its longest path by bound type and op) of each ProfilerStep, or\n"
     "of the INSTANCE-th (default 0) row whose name contains NAME\n"
     "(HTA's annotation/instance_id; '' = the whole trace). A next\n"
     "argument starting with '-' or naming an existing file is not NAME"},
    {"no-critical-path", 0, NULL, OPT_NO_CRITICAL_PATH, 0, "cancel an earlier --critical-path"},
    {"stream", 0, NULL, OPT_STREAM, 0,
     "read the ranks one batch at a time (memory of a few traces, not\n"
     "of all; each file is read twice); the default for directories\n"
     "of more than 16 trace files. Output identical to --no-stream"},
    {"no-stream", 0, NULL, OPT_NO_STREAM, 0, "hold every trace in memory at once"},
    {"kernel-sequences", 0, "OP", OPT_KSEQ, 0,
     "frequent kernel sequences of the ops whose name contains OP\n"
     "(HTA's operator_name: those at the smallest call depth; default:\n"
     "the outermost aten:: ops)"},
    {"min-pattern-len", 0, "N", OPT_KSEQ_MIN, 0,
     "kernels an op must launch to count (HTA's min_pattern_len, default 3)"},
    {"memory-timeline", 0, "RAW", OPT_MEMRAW, 0,
     "instead of traces: summarise torch's export_memory_timeline raw\n"
     "file ([time, action, bytes, category] rows, .gz or not) as HTA's\n"
     "memory timeline: points, peak per category and in total"},
    {"pretty", 0, NULL, OPT_PRETTY, 0, "indent the JSON"},
    {"write-trace", 0, "FILE", OPT_WRITE_TRACE, 0,
     "also write the trace with HTA's counter tracks added (Queue\n"
     "Length per stream, Memcpy BW per copy group; Perfetto shows\n"
     "them) as Kineto JSON (.gz by suffix); one trace only"},
    {0},
};

struct analyze_args {
    enum lat_format fmt;
    struct analysis_opts ao;
    bool pretty, by_shape;
    const char *write_trace;
    char *cp_name;      /* --critical-path NAME (owned) */
    int stream;         /* 1 --stream, 0 --no-stream, -1 by the input size */
    const char *memraw; /* --memory-timeline RAW */
};

/* NAME[:INSTANCE]: the instance is the digits after the last ':' when that ':' is not part of
 * a '::' (aten::mm stays a name). *name is allocated. -1 on a bad instance. */
static int parse_cp_spec(const char *spec, char **name, int64_t *instance)
{
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    *instance = 0;
    if (colon && colon[1] && (colon == spec || colon[-1] != ':')) {
        const char *d = colon + 1;
        bool digits = true;
        for (const char *q = d; *q; q++)
            if (*q < '0' || *q > '9') digits = false;
        if (digits) {
            errno = 0;
            char *end;
            long long v = strtoll(d, &end, 10);
            if (errno || *end || v < 0 || v > INT32_MAX) return -1;
            *instance = v;
            len = (size_t)(colon - spec);
        }
    }
    free(*name);
    *name = xcalloc(len + 1, 1);
    memcpy(*name, spec, len);
    return 0;
}

/* ---- main ---------------------------------------------------------------------------------- */

static int on_opt(void *ctx, int id, const char *val)
{
    struct analyze_args *a = ctx;
    long long v;
    switch (id) {
    case OPT_FORMAT:
        return cli_format(PR_FMT, val, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON, &a->fmt);
    case OPT_HTA:
        a->ao.hta_compat = true;
        return 0;
    case OPT_LAST_STEP:
        a->ao.include_last_step = true;
        return 0;
    case OPT_NO_NS_ROUNDING:
        a->ao.ns_rounding = false;
        return 0;
    case OPT_BY_SHAPE:
        a->by_shape = true;
        return 0;
    case OPT_PRETTY:
        a->pretty = true;
        return 0;
    case OPT_CRITICAL_PATH:
        /* alone: each ProfilerStep; with a value: NAME[:INSTANCE] */
        if (val && parse_cp_spec(val, &a->cp_name, &a->ao.cp_instance) < 0) {
            pr_err("--critical-path '%s': INSTANCE must be a number 0..%d\n", val, INT32_MAX);
            return -1;
        }
        a->ao.cp_annotation = val ? a->cp_name : NULL;
        a->ao.critical_path = true;
        return 0;
    case OPT_NO_CRITICAL_PATH:
        a->ao.critical_path = false;
        a->ao.cp_annotation = NULL;
        return 0;
    case OPT_STREAM:
        a->stream = 1;
        return 0;
    case OPT_NO_STREAM:
        a->stream = 0;
        return 0;
    case OPT_KSEQ:
        if (!*val) {
            pr_err("--kernel-sequences needs an operator name (e.g. aten::linear)\n");
            return -1;
        }
        a->ao.kseq_operator = val;
        return 0;
    case OPT_MEMRAW:
        if (!*val) {
            pr_err("--memory-timeline needs a file name\n");
            return -1;
        }
        a->memraw = val;
        return 0;
    case OPT_KSEQ_MIN:
        if (cli_int("analyze", "min-pattern-len", val, 1, 1000000, &v)) return -1;
        a->ao.kseq_min_len = (size_t)v;
        return 0;
    case OPT_WRITE_TRACE:
        if (!*val) {
            pr_err("--write-trace needs a file name\n");
            return -1;
        }
        a->write_trace = val;
        a->ao.counters = true;
        return 0;
    case OPT_RANK:
        if (cli_int("analyze", "rank", val, 0, INT32_MAX, &v)) return -1;
        a->ao.only_rank = (int32_t)v;
        return 0;
    case OPT_TOP:
        if (cli_int("analyze", "top", val, 1, 100000, &v)) return -1;
        a->ao.top_n = (size_t)v;
        return 0;
    case OPT_THREADS:
        if (cli_int("analyze", "threads", val, 1, 8, &v)) return -1;
        a->ao.threads = (unsigned)v;
        return 0;
    }
    pr_err("internal error: option %d is not handled\n", id);
    return -1;
}

struct progress {
    bool enabled, shown;
    lat_ns start;
    const char *what;
};

static void progress_line(struct progress *p, const char *msg)
{
    if (!p->enabled) return;
    if (!p->shown && clock_now_ns() - p->start < LAT_NS_PER_S) return;
    p->shown = true;
    fprintf(stderr, "\r\033[Kanalyze: %s", msg);
    fflush(stderr);
}

static void on_read(void *ctx, uint64_t done, uint64_t total)
{
    char msg[64];
    if (total)
        snprintf(msg, sizeof(msg), "reading %.0f/%.0f MB", (double)done / 1e6, (double)total / 1e6);
    else
        snprintf(msg, sizeof(msg), "reading %.0f MB", (double)done / 1e6);
    progress_line(ctx, msg);
}

static void on_analyze(void *ctx, double f)
{
    char msg[64];
    snprintf(msg, sizeof(msg), "analysing %.0f%%", 100.0 * f);
    progress_line(ctx, msg);
}

static void progress_done(struct progress *p)
{
    if (p->shown) fprintf(stderr, "\r\033[K");
    p->shown = false;
}

/* ---- output (src/analyze/render.c) -------------------------------------------------------- */

static void on_render_warn(void *ctx, const char *msg)
{
    (void)ctx;
    pr_warn("%s\n", msg);
}

static int print_json(const struct lat_analysis *a, bool pretty,
                      const struct analyze_render_opts *ro)
{
    struct jsonw w;
    jsonw_init(&w, stdout, pretty);
    analyze_write_json(&w, a, ro);
    if (!pretty) jsonw_raw(&w, "\n", 1);
    int rc = jsonw_finish(&w);
    jsonw_fini(&w);
    if (pretty) putchar('\n');
    return rc;
}

/* --write-trace: the one rank's trace with HTA's counter tracks added. */
static int write_trace(const struct lat_analysis *an, struct lat_trace *const *traces, size_t n,
                       const char *path)
{
    if (an->nranks != 1) {
        pr_err("--write-trace writes one trace: give one trace file (or --rank N), not %zu ranks\n",
               an->nranks);
        return LAT_E_USAGE;
    }
    const struct lat_an_rank *r = &an->ranks[0];
    struct lat_trace *t = NULL;
    for (size_t i = 0; i < n; i++)
        if (traces[i] == r->trace) t = traces[i]; /* the same trace, writable */
    size_t added = 0, cp_spans = 0, cp_flows = 0, cp_events = 0;
    int rc = t ? 0 : LAT_E_USAGE;
    if (!rc && r->ncritpath) rc = analysis_add_critpath(t, r, &cp_spans, &cp_flows, &cp_events);
    if (!rc) rc = analysis_add_counters(t, r, &added);
    struct kineto_write_opts wo = {.gzip = -1};
    if (!rc) rc = kineto_write_file(t, path, &wo);
    if (rc) {
        pr_err("--write-trace %s: %s\n", path, lat_strerror(rc));
        return rc;
    }
    pr_info("wrote %s: %zu counter events (%zu queue length, %zu memory bandwidth, %zu memory "
            "allocated)\n",
            path, added, r->nqueue_pts, r->nmembw_pts, r->nmem_pts);
    if (r->ncritpath)
        pr_info("wrote %s: critical path of %zu window(s): %zu critical events, %zu spans on its "
                "track, %zu flows\n",
                path, r->ncritpath, cp_events, cp_spans, cp_flows);
    return 0;
}

/* ---- many ranks, streamed (--stream) ----------------------------------------------------- */

#define STREAM_MIN_FILES 16

/* Directories only, holding more than STREAM_MIN_FILES trace files together. */
static int auto_stream(const char *const *inputs, size_t n)
{
    size_t files = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (!strcmp(inputs[i], "-") || stat(inputs[i], &st) || !S_ISDIR(st.st_mode)) return 0;
        DIR *d = opendir(inputs[i]);
        if (!d) return 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            size_t l = strlen(de->d_name);
            if (de->d_name[0] != '.' && ((l > 5 && !strcmp(de->d_name + l - 5, ".json")) ||
                                         (l > 8 && !strcmp(de->d_name + l - 8, ".json.gz"))))
                files++;
        }
        closedir(d);
    }
    return files > STREAM_MIN_FILES;
}

struct srank {
    char *path;
    size_t index; /* in the set */
    int32_t rank;
    bool timeline;
    bool rules; /* ingest's one-trace-per-rank rule applies (a directory's timeline) */
};

struct sfrag {
    int32_t rank;
    long off;
    size_t len;
};

struct stream_job {
    const struct analyze_args *args;
    struct analysis_opts ao;
    struct analysis_scan scan;
    struct srank *r; /* pass 1: the loaded traces, in input order */
    size_t nr, cap;
    size_t next; /* pass 2: index into r */
    struct analysis_job *job;
    FILE *tmp; /* the rendered ranks */
    struct sfrag *frags;
    size_t nfrags, frags_cap;
    bool cp_found;
    uint64_t cp_most;
    size_t ntimeline;
    struct analyze_render_opts ro;
    struct lat_buf out; /* records not yet consumed (all of this process's under MPI) */
    bool deferred;      /* MPI: records go to the printing process at the end */
    int mrank, msize;
    /* MPI: the skipped files of every process (file order) */
    struct mskip {
        size_t index;
        uint8_t status;
        char *reason;
    } * skips;
    size_t nskips, skips_cap;
};

static int consume_record(struct stream_job *sj, const unsigned char *p, size_t n, size_t *used);

#define STREAM_FALLBACK 100 /* MPI: duplicate ranks in a directory; rank 0 alone runs the job */

static void pk_bytes(struct lat_buf *b, const void *p, size_t n)
{
    if (buf_append(b, p, n)) {
        pr_err("out of memory\n");
        exit(LAT_EXIT_FAILURE);
    }
}

struct rd {
    const unsigned char *p;
    size_t n, at;
    bool bad;
};

static void rd_bytes(struct rd *r, void *dst, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        r->bad = true;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, r->p + r->at, n);
    r->at += n;
}

static int srank_cmp(const void *x, const void *y)
{
    const struct srank *a = x, *b = y;
    return a->index < b->index ? -1 : a->index > b->index;
}

static int mskip_cmp(const void *x, const void *y)
{
    const struct mskip *a = x, *b = y;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* MPI, after pass 1: every process's files (loaded or skipped) and scan to every process, so
 * that all number the ranks, drop the same last steps and align by the same offset. 0,
 * STREAM_FALLBACK (a directory with two traces of one rank: which one is kept depends on the
 * file order over all processes), -1 (error, said). */
static int exchange_pass1(struct stream_job *sj, const struct lat_ingest_set *set, int mrank,
                          int msize)
{
    struct lat_buf b = LAT_BUF_INIT;
    uint8_t have = sj->scan.have_ts;
    uint32_t ns = (uint32_t)sj->scan.nsteps, nf = 0;
    pk_bytes(&b, &have, 1);
    pk_bytes(&b, &sj->scan.min_ts, sizeof(sj->scan.min_ts));
    pk_bytes(&b, &ns, sizeof(ns));
    if (ns) pk_bytes(&b, sj->scan.steps, ns * sizeof(*sj->scan.steps));
    for (size_t i = 0; i < set->n; i++)
        nf += i % (size_t)msize == (size_t)mrank;
    pk_bytes(&b, &nf, sizeof(nf));
    size_t k = 0;
    for (size_t i = (size_t)mrank; i < set->n; i += (size_t)msize) {
        const struct lat_ingest_file *f = &set->files[i];
        uint32_t idx = (uint32_t)i;
        uint8_t st = (uint8_t)f->status, flags = 0;
        int32_t rank = -1;
        while (k < sj->nr && sj->r[k].index < i)
            k++;
        bool loaded = k < sj->nr && sj->r[k].index == i;
        if (loaded) {
            rank = sj->r[k].rank;
            flags = (uint8_t)(1 | sj->r[k].timeline << 1 | sj->r[k].rules << 2);
        }
        const char *why = ingest_status_skipped(f->status) ? ingest_file_reason(f) : "";
        uint32_t wl = (uint32_t)strlen(why);
        pk_bytes(&b, &idx, sizeof(idx));
        pk_bytes(&b, &st, 1);
        pk_bytes(&b, &flags, 1);
        pk_bytes(&b, &rank, sizeof(rank));
        pk_bytes(&b, &wl, sizeof(wl));
        pk_bytes(&b, why, wl);
    }
    char *all = NULL;
    size_t *offs = NULL;
    int rc = lat_mpi_allgather(b.data ? b.data : "", b.len, &all, &offs);
    buf_fini(&b);
    if (rc) {
        pr_err("MPI: exchanging the ranks failed\n");
        free(all);
        free(offs);
        return -1;
    }
    for (size_t i = 0; i < sj->nr; i++)
        free(sj->r[i].path);
    sj->nr = 0;
    analysis_scan_fini(&sj->scan);
    int64_t *steps = NULL;
    size_t nsteps = 0, scap = 0;
    bool dup = false, bad = false;
    for (int p = 0; p < msize && !bad; p++) {
        struct rd r = {(const unsigned char *)all + offs[p], offs[p + 1] - offs[p], 0, false};
        int64_t mn;
        rd_bytes(&r, &have, 1);
        rd_bytes(&r, &mn, sizeof(mn));
        rd_bytes(&r, &ns, sizeof(ns));
        if (have && (!sj->scan.have_ts || mn < sj->scan.min_ts)) sj->scan.min_ts = mn;
        sj->scan.have_ts |= have;
        if (!r.bad && ns > (r.n - r.at) / sizeof(int64_t)) r.bad = true;
        if (!r.bad && ns) {
            XGROW(steps, scap, nsteps, ns, 64);
            rd_bytes(&r, steps + nsteps, ns * sizeof(*steps));
            nsteps += ns;
        }
        rd_bytes(&r, &nf, sizeof(nf));
        for (uint32_t q = 0; q < nf && !r.bad; q++) {
            uint32_t idx, wl;
            uint8_t st, flags;
            int32_t rank;
            rd_bytes(&r, &idx, sizeof(idx));
            rd_bytes(&r, &st, 1);
            rd_bytes(&r, &flags, 1);
            rd_bytes(&r, &rank, sizeof(rank));
            rd_bytes(&r, &wl, sizeof(wl));
            if (r.bad || wl > r.n - r.at || idx >= set->n) {
                r.bad = true;
                break;
            }
            if (st == LAT_INGEST_DUP_RANK) dup = true;
            if (flags & 1) {
                XGROW(sj->r, sj->cap, sj->nr, 1, 64);
                sj->r[sj->nr++] = (struct srank){xstrdup(set->files[idx].path), idx, rank,
                                                 (flags >> 1) & 1, (flags >> 2) & 1};
            } else if (ingest_status_skipped((enum lat_ingest_status)st)) {
                XGROW(sj->skips, sj->skips_cap, sj->nskips, 1, 16);
                char *w = xcalloc(wl + 1, 1);
                memcpy(w, r.p + r.at, wl);
                sj->skips[sj->nskips++] = (struct mskip){idx, st, w};
            }
            r.at += wl;
        }
        bad |= r.bad;
    }
    free(all);
    free(offs);
    if (bad) {
        free(steps);
        pr_err("MPI: a process sent bad bytes\n");
        return -1;
    }
    if (sj->nr) qsort(sj->r, sj->nr, sizeof(*sj->r), srank_cmp);
    if (sj->nskips) qsort(sj->skips, sj->nskips, sizeof(*sj->skips), mskip_cmp);
    if (nsteps) qsort(steps, nsteps, sizeof(*steps), lat_cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nsteps; i++)
        if (!u || steps[i] != steps[u - 1]) steps[u++] = steps[i];
    sj->scan.steps = steps;
    sj->scan.nsteps = sj->scan.cap = u;
    /* one trace per rank in a directory (ingest's rule): two with one rank make the file order
     * over all processes matter; rare, so rank 0 does that job alone */
    for (size_t i = 0; i < sj->nr && !dup; i++) {
        if (!sj->r[i].rules) continue;
        const char *pi = sj->r[i].path, *si = strrchr(pi, '/');
        for (size_t j = 0; j < i && !dup; j++) {
            const char *pj = sj->r[j].path, *sjj = strrchr(pj, '/');
            if (!sj->r[j].rules || sj->r[j].rank != sj->r[i].rank || !si || !sjj) continue;
            if (si - pi == sjj - pj && !strncmp(pi, pj, (size_t)(si - pi))) dup = true;
        }
    }
    return dup ? STREAM_FALLBACK : 0;
}

/* MPI, after pass 2: every process's records to rank 0, consumed there in file order. */
static int collect_records(struct stream_job *sj)
{
    char *all = NULL;
    size_t *offs = NULL;
    int rc = lat_mpi_gather0(sj->out.data ? sj->out.data : "", sj->out.len, &all, &offs);
    buf_reset(&sj->out);
    if (rc) {
        pr_err("MPI: collecting the ranks failed\n");
        free(all);
        free(offs);
        return -1;
    }
    if (!all) return 0; /* not rank 0 */
    struct rec {
        uint32_t idx;
        size_t at, len;
    } *recs = NULL;
    size_t n = 0, rcap = 0, total = offs ? offs[sj->msize] : 0;
    for (size_t at = 0; at + sizeof(uint64_t) + sizeof(uint32_t) <= total;) {
        uint64_t len;
        uint32_t idx;
        memcpy(&len, all + at, sizeof(len));
        if (len > total - at - sizeof(len)) break;
        memcpy(&idx, all + at + sizeof(len), sizeof(idx));
        XGROW(recs, rcap, n, 1, 64);
        recs[n++] = (struct rec){idx, at + sizeof(len), (size_t)len};
        at += sizeof(len) + (size_t)len;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort by file index (nearly sorted per process) */
        for (size_t j = i; j > 0 && recs[j - 1].idx > recs[j].idx; j--) {
            struct rec t = recs[j];
            recs[j] = recs[j - 1];
            recs[j - 1] = t;
        }
    rc = n == sj->nr ? 0 : LAT_E_TRUNCATED;
    for (size_t i = 0; !rc && i < n; i++) {
        size_t used = 0;
        rc = consume_record(sj, (const unsigned char *)all + recs[i].at, recs[i].len, &used);
    }
    free(recs);
    free(all);
    free(offs);
    if (rc) pr_err("MPI: the ranks' results: %s\n", lat_strerror(rc));
    return rc ? -1 : 0;
}

static int scan_visit(void *ctx, struct lat_ingest_set *set, size_t i)
{
    struct stream_job *sj = ctx;
    struct lat_ingest_file *f = &set->files[i];
    struct lat_trace *t = f->trace;
    t->rank = f->rank;
    char why[640];
    if (lat_trace_drop_summary(t, why, sizeof(why)))
        pr_warn("%s: %s\n", t->path ? t->path : "-", why);
    XGROW(sj->r, sj->cap, sj->nr, 1, 64);
    bool rules = f->in_dir && t->role == LAT_TRACE_TIMELINE && !lat_trace_has(t, LAT_FCAP_RUNS);
    sj->r[sj->nr++] =
        (struct srank){xstrdup(f->path), i, t->rank, t->role == LAT_TRACE_TIMELINE, rules};
    int rc = analysis_scan_add(&sj->scan, t, &sj->ao);
    if (rc) pr_err("%s: %s\n", f->path, lat_strerror(rc));
    return rc;
}

/* One rank's record: [u32 file index][i32 rank][u64 fragment bytes][fragment][analysis_rank_pack
 * bytes]. Made by the process that analysed the rank, consumed in file order by the one that
 * prints (the same process without MPI). */
static int consume_record(struct stream_job *sj, const unsigned char *p, size_t n, size_t *used)
{
    uint32_t idx;
    int32_t rank;
    uint64_t flen;
    const size_t hdr = sizeof(idx) + sizeof(rank) + sizeof(flen);
    if (n < hdr) return LAT_E_TRUNCATED;
    memcpy(&idx, p, sizeof(idx));
    memcpy(&rank, p + sizeof(idx), sizeof(rank));
    memcpy(&flen, p + sizeof(idx) + sizeof(rank), sizeof(flen));
    if (flen > n - hdr) return LAT_E_TRUNCATED;
    long off = ftell(sj->tmp);
    if (off < 0 || (flen && fwrite(p + hdr, 1, (size_t)flen, sj->tmp) != flen)) return -EIO;
    struct lat_analysis *one = NULL;
    size_t bl = 0;
    int rc = analysis_rank_unpack(p + hdr + flen, n - hdr - (size_t)flen, &bl, &one);
    if (rc) return rc;
    const struct lat_an_rank *r = &one->ranks[0];
    sj->cp_found |= r->cp_found;
    if (r->cp_instances > sj->cp_most) sj->cp_most = r->cp_instances;
    sj->ntimeline += r->trace->role == LAT_TRACE_TIMELINE;
    rc = analysis_job_add(sj->job, one);
    analysis_free(one);
    if (rc) return rc;
    XGROW(sj->frags, sj->frags_cap, sj->nfrags, 1, 64);
    sj->frags[sj->nfrags++] = (struct sfrag){rank, off, (size_t)flen};
    *used = hdr + (size_t)flen + bl;
    return 0;
}

static int rank_visit(void *ctx, struct lat_ingest_set *set, size_t i)
{
    struct stream_job *sj = ctx;
    struct lat_ingest_file *f = &set->files[i];
    struct lat_trace *t = f->trace;
    size_t lo = 0, hi = sj->nr; /* sj->r is in set order */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (sj->r[mid].index < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= sj->nr || sj->r[lo].index != i || strcmp(sj->r[lo].path, f->path)) {
        pr_err("%s: the inputs changed between the two reads (a file appeared, went or now "
               "loads differently); run again on a directory nobody writes to\n",
               f->path);
        return LAT_E_USAGE;
    }
    sj->next++;
    t->rank = sj->r[lo].rank;
    struct lat_analysis *an = NULL;
    int rc = analysis_run(&t, 1, &sj->ao, &an);
    if (rc < 0) {
        pr_err("%s: analysis failed: %s\n", f->path, lat_strerror(rc));
        return rc;
    }
    /* the rank's part of the report, rendered while its trace is here */
    struct lat_buf frag = LAT_BUF_INIT;
    if (sj->args->fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init_at(&w, NULL, sj->args->pretty, 2);
        analyze_write_rank_json(&w, an, 0, &sj->ro);
        rc = jsonw_finish(&w);
        frag = w.buf; /* the writer's buffer (no FILE): taken over */
    } else {
        char *data = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&data, &len);
        if (!m) {
            rc = -ENOMEM;
        } else {
            analyze_format_rank_text(m, an, 0, &sj->ro);
            rc = ferror(m) ? -EIO : 0;
            if (fclose(m) && !rc) rc = -ENOMEM;
        }
        if (!rc && buf_append(&frag, data ? data : "", len)) rc = -ENOMEM;
        free(data);
    }
    uint32_t idx = (uint32_t)i;
    uint64_t flen = frag.len, reclen = 0;
    size_t at = sj->out.len, start = at + sizeof(reclen);
    if (!rc &&
        (buf_append(&sj->out, &reclen, sizeof(reclen)) || buf_append(&sj->out, &idx, sizeof(idx)) ||
         buf_append(&sj->out, &t->rank, sizeof(t->rank)) ||
         buf_append(&sj->out, &flen, sizeof(flen)) ||
         buf_append(&sj->out, frag.data ? frag.data : "", frag.len)))
        rc = -ENOMEM;
    if (!rc) rc = analysis_rank_pack(an, &sj->out);
    if (!rc) { /* the record's length before it: the printing process splits a buffer */
        reclen = sj->out.len - start;
        memcpy(sj->out.data + at, &reclen, sizeof(reclen));
    }
    buf_fini(&frag);
    analysis_free(an);
    if (!rc && !sj->deferred) { /* one process: consumed now, the buffer stays small */
        size_t used = 0;
        rc = consume_record(sj, (const unsigned char *)sj->out.data + start, sj->out.len - start,
                            &used);
        buf_reset(&sj->out);
    }
    if (rc) pr_err("%s: %s\n", f->path, lat_strerror(rc));
    return rc;
}

static int frag_cmp(const void *x, const void *y)
{
    const struct sfrag *a = x, *b = y;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* Reads fragment k back from the temporary file into a buffer (one at a time). */
static char *frag_read(struct stream_job *sj, size_t k)
{
    char *b = xcalloc(sj->frags[k].len + 1, 1);
    if (fseek(sj->tmp, sj->frags[k].off, SEEK_SET) ||
        fread(b, 1, sj->frags[k].len, sj->tmp) != sj->frags[k].len) {
        free(b);
        return NULL;
    }
    return b;
}

static int ranks_json(void *ctx, struct jsonw *w)
{
    struct stream_job *sj = ctx;
    for (size_t k = 0; k < sj->nfrags; k++) {
        char *b = frag_read(sj, k);
        if (!b) return -EIO;
        jsonw_raw(w, b, sj->frags[k].len);
        free(b);
    }
    return 0;
}

static int ranks_text(void *ctx, FILE *f)
{
    struct stream_job *sj = ctx;
    for (size_t k = 0; k < sj->nfrags; k++) {
        char *b = frag_read(sj, k);
        if (!b) return -EIO;
        fwrite(b, 1, sj->frags[k].len, f);
        free(b);
    }
    return 0;
}

static int analyze_streamed(const struct analyze_args *args, const char **inputs, size_t ninputs,
                            int mrank, int msize)
{
    struct stream_job sj = {.args = args, .ao = args->ao, .mrank = mrank, .msize = msize};
    int ret = LAT_EXIT_USAGE, rc;
    bool mpi = msize > 1, root = mrank == 0;
    struct lat_ingest_opts io = {0};
    if (sj.ao.threads == 1) io.flags |= LAT_INGEST_NO_THREAD;
    if (mpi) { /* this process's share of the files: i % size == rank */
        io.share_count = (size_t)msize;
        io.share_index = (size_t)mrank;
    }
    size_t batch = par_threads(sj.ao.threads, 64); /* traces in memory at once */
    struct lat_ingest_set *set = NULL, *set2 = NULL;
    struct lat_analysis *an = NULL;
    lat_ns w0 = clock_now_ns(), c0 = clock_cpu_ns();

    /* pass 1: ranks, and what the preprocessing computes across them */
    set = lat_walk_traces("analyze", inputs, ninputs, &io, batch, scan_visit, &sj, false, &rc);
    if (mpi) {
        if (lat_mpi_max(set == NULL)) goto out; /* that process said why; all stop */
        int x = exchange_pass1(&sj, set, mrank, msize);
        if (lat_mpi_max(x < 0)) goto out;
        if (lat_mpi_max(x == STREAM_FALLBACK)) {
            ret = STREAM_FALLBACK;
            goto out;
        }
        if (!sj.nr) {
            if (root)
                pr_err("no trace could be loaded (%zu file%s skipped)\n", sj.nskips,
                       sj.nskips == 1 ? "" : "s");
            goto out;
        }
    } else if (!set) {
        goto out;
    }
    /* the ranks, as the in-memory path numbers them */
    int32_t pos = 0, top = -1;
    for (size_t i = 0; i < sj.nr; i++) {
        if (!sj.r[i].timeline) continue;
        if (sj.r[i].rank < 0) sj.r[i].rank = pos;
        pos++;
        if (sj.r[i].rank > top) top = sj.r[i].rank;
    }
    for (size_t i = 0; i < sj.nr; i++)
        if (!sj.r[i].timeline && top < INT32_MAX) sj.r[i].rank = ++top;
    {
        struct sfrag *byrank = xcalloc(sj.nr ? sj.nr : 1, sizeof(*byrank));
        for (size_t i = 0; i < sj.nr; i++)
            byrank[i] = (struct sfrag){sj.r[i].timeline ? sj.r[i].rank : INT32_MIN, (long)i, 0};
        qsort(byrank, sj.nr, sizeof(*byrank), frag_cmp);
        for (size_t i = 1; i < sj.nr; i++)
            if (byrank[i].rank != INT32_MIN && byrank[i].rank == byrank[i - 1].rank) {
                size_t a = (size_t)byrank[i - 1].off, b = (size_t)byrank[i].off;
                if (a > b) {
                    size_t t = a;
                    a = b;
                    b = t;
                }
                if (root)
                    pr_err("%s and %s both have rank %d: give the ranks of one job\n", sj.r[a].path,
                           sj.r[b].path, sj.r[b].rank);
                free(byrank);
                goto out;
            }
        free(byrank);
    }
    analysis_scan_opts(&sj.scan, &sj.ao);

    /* pass 2: one rank at a time, rendered to a temporary file */
    ret = LAT_EXIT_FAILURE;
    int bad = analysis_job_new(&sj.ao, &sj.job) || !(sj.tmp = tmpfile());
    if (bad) pr_err("cannot start: %s\n", sj.job ? strerror(errno) : "out of memory");
    if (mpi ? lat_mpi_max(bad) : bad) goto out;
    sj.ro = (struct analyze_render_opts){.warn = on_render_warn,
                                         .group_by_input_shape = args->by_shape};
    sj.deferred = mpi;
    set2 = lat_walk_traces("analyze", inputs, ninputs, &io, batch, rank_visit, &sj, true, &rc);
    size_t mine = 0;
    for (size_t i = 0; i < sj.nr; i++)
        mine += !mpi || sj.r[i].index % (size_t)msize == (size_t)mrank;
    bad = !set2;
    if (set2 && sj.next != mine) {
        pr_err("the inputs changed between the two reads (%zu trace(s), then %zu); run again on "
               "a directory nobody writes to\n",
               mine, sj.next);
        bad = 1;
    }
    if (mpi ? lat_mpi_max(bad) : bad) goto out;
    if (mpi && (lat_mpi_max(collect_records(&sj) < 0) || !root)) {
        ret = root ? LAT_EXIT_FAILURE : LAT_EXIT_OK; /* rank 0 prints */
        goto out;
    }
    rc = analysis_job_finish(sj.job, &an);
    sj.job = NULL;
    if (rc) {
        pr_err("analysis failed: %s\n", lat_strerror(rc));
        goto out;
    }
    pr_info("streamed %zu trace(s) (%zu at a time, each read twice%s%.0d%s) in %.3f s wall, "
            "%.3f s cpu\n",
            sj.nr, batch, mpi ? ", over " : "", mpi ? msize : 0, mpi ? " MPI processes" : "",
            (double)(clock_now_ns() - w0) / 1e9, (double)(clock_cpu_ns() - c0) / 1e9);
    const struct analysis_opts *ao = &args->ao;
    if (ao->critical_path && ao->cp_annotation && *ao->cp_annotation) {
        if (!sj.cp_found) {
            pr_err("--critical-path: no event name contains '%s' (give a user annotation or op "
                   "name from the trace, e.g. ProfilerStep, or '' for the whole trace)\n",
                   ao->cp_annotation);
            ret = LAT_EXIT_USAGE;
            goto out;
        }
        if ((uint64_t)ao->cp_instance >= sj.cp_most) {
            pr_err("--critical-path: '%s' has %llu instance(s) (0..%llu), not %lld\n",
                   ao->cp_annotation, (unsigned long long)sj.cp_most,
                   (unsigned long long)(sj.cp_most ? sj.cp_most - 1 : 0),
                   (long long)ao->cp_instance);
            ret = LAT_EXIT_USAGE;
            goto out;
        }
    }
    if (sj.nfrags) qsort(sj.frags, sj.nfrags, sizeof(*sj.frags), frag_cmp);
    struct analyze_skipped *skipped = xcalloc(set2->n ? set2->n : 1, sizeof(*skipped));
    size_t nskipped = 0;
    for (size_t i = 0; mpi && i < sj.nskips; i++)
        skipped[nskipped++] = (struct analyze_skipped){
            .path = set2->files[sj.skips[i].index].path,
            .status = ingest_status_name((enum lat_ingest_status)sj.skips[i].status),
            .reason = sj.skips[i].reason,
        };
    for (size_t i = 0; !mpi && i < set2->n; i++)
        if (ingest_status_skipped(set2->files[i].status))
            skipped[nskipped++] = (struct analyze_skipped){
                .path = set2->files[i].path,
                .status = ingest_status_name(set2->files[i].status),
                .reason = ingest_file_reason(&set2->files[i]),
            };
    sj.ro.skipped = skipped;
    sj.ro.nskipped = nskipped;
    sj.ro.ranks_json = ranks_json;
    sj.ro.ranks_text = ranks_text;
    sj.ro.ranks_ctx = &sj;
    sj.ro.ranks_timeline = sj.ntimeline;
    if (args->fmt == LAT_FMT_JSON)
        rc = print_json(an, args->pretty, &sj.ro);
    else
        rc = analyze_format_text(stdout, an, &sj.ro);
    free(skipped);
    ret = rc < 0 ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
out:
    analysis_free(an);
    analysis_job_free(sj.job);
    analysis_scan_fini(&sj.scan);
    if (sj.tmp) fclose(sj.tmp);
    for (size_t i = 0; i < sj.nr; i++)
        free(sj.r[i].path);
    free(sj.r);
    free(sj.frags);
    buf_fini(&sj.out);
    for (size_t i = 0; i < sj.nskips; i++)
        free(sj.skips[i].reason);
    free(sj.skips);
    ingest_set_free(set);
    ingest_set_free(set2);
    return ret;
}

/* --memory-timeline RAW: HTA's MemoryAnalysis of an export_memory_timeline raw file. */
static int memory_timeline(const char *path, enum lat_format fmt, bool pretty)
{
    struct lat_memraw m;
    lat_memraw_init(&m);
    gzFile gz = gzopen(path, "rb"); /* plain files too */
    if (!gz) {
        pr_err("--memory-timeline %s: %s\n", path, strerror(errno ? errno : ENOMEM));
        return LAT_EXIT_FAILURE;
    }
    static char buf[1 << 16];
    int rc = 0, n;
    while ((n = gzread(gz, buf, sizeof(buf))) > 0)
        if ((rc = lat_memraw_feed(&m, buf, (size_t)n))) break;
    int zerr = 0;
    const char *zmsg = n < 0 ? gzerror(gz, &zerr) : NULL;
    gzclose(gz);
    if (!rc && zmsg) {
        pr_err("--memory-timeline %s: cannot read it (%s)\n", path, zmsg);
        lat_memraw_fini(&m);
        return LAT_EXIT_FAILURE;
    }
    if (!rc) rc = lat_memraw_finish(&m);
    if (rc) {
        pr_err("--memory-timeline %s: %s; give the file torch.profiler's "
               "export_memory_timeline(PATH.raw.json.gz) writes\n",
               path, rc == LAT_E_NOT_TRACE ? m.err : lat_strerror(rc));
        lat_memraw_fini(&m);
        return LAT_EXIT_FAILURE;
    }
    int64_t t0 = m.n ? m.times[0] : 0, tpeak = m.n ? m.times[m.peak_index] : 0;
    for (size_t i = 0; i < m.n; i++)
        if (m.times[i] < t0) t0 = m.times[i];
    if (fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init(&w, stdout, pretty);
        jsonw_obj_begin(&w);
        lat_build_json(&w);
        jsonw_key(&w, "memory_timeline_raw");
        jsonw_obj_begin(&w);
        jsonw_key(&w, "path");
        jsonw_str(&w, path);
        jsonw_key(&w, "rows");
        jsonw_u64(&w, m.rows);
        jsonw_key(&w, "points");
        jsonw_u64(&w, m.n);
        jsonw_key(&w, "start_time");
        jsonw_i64(&w, t0);
        jsonw_key(&w, "peak_total_bytes");
        jsonw_i64(&w, m.peak_total);
        jsonw_key(&w, "peak_index");
        jsonw_u64(&w, m.peak_index);
        jsonw_key(&w, "peak_time");
        jsonw_i64(&w, tpeak);
        jsonw_key(&w, "peak_after_start");
        jsonw_i64(&w, tpeak - t0);
        jsonw_key(&w, "categories");
        jsonw_arr_begin(&w);
        for (int c = 0; c < LAT_MEMRAW_CATS; c++) {
            jsonw_obj_begin(&w);
            jsonw_key(&w, "name");
            jsonw_str(&w, lat_memraw_category(c));
            jsonw_key(&w, "peak_bytes");
            jsonw_i64(&w, m.peak[c]);
            jsonw_key(&w, "at_peak_bytes");
            jsonw_i64(&w, m.n ? m.sizes[m.peak_index][c] : 0);
            jsonw_key(&w, "final_bytes");
            jsonw_i64(&w, m.n ? m.sizes[m.n - 1][c] : 0);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
        jsonw_obj_end(&w);
        int jrc = jsonw_finish(&w);
        jsonw_fini(&w);
        putchar('\n');
        if (jrc) {
            pr_err("--memory-timeline: writing the JSON: %s\n", lat_strerror(jrc));
            lat_memraw_fini(&m);
            return LAT_EXIT_FAILURE;
        }
    } else {
        char b1[32], b2[32], b3[32];
        printf("memory timeline %s: %llu rows, %zu points over %.3f ms\n", path,
               (unsigned long long)m.rows, m.n, m.n ? (double)(m.times[m.n - 1] - t0) / 1e6 : 0.0);
        printf("peak %s at %.3f ms (point %zu)\n",
               units_format_bytes(m.peak_total > 0 ? (uint64_t)m.peak_total : 0, b1, 32),
               (double)(tpeak - t0) / 1e6, m.peak_index);
        printf("  category                 at peak         peak        final\n");
        for (int c = 0; c < LAT_MEMRAW_CATS; c++) {
            int64_t at = m.n ? m.sizes[m.peak_index][c] : 0, fin = m.n ? m.sizes[m.n - 1][c] : 0;
            printf("  %-18s %12s %12s %12s\n", lat_memraw_category(c),
                   units_format_bytes(at > 0 ? (uint64_t)at : 0, b1, 32),
                   units_format_bytes(m.peak[c] > 0 ? (uint64_t)m.peak[c] : 0, b2, 32),
                   units_format_bytes(fin > 0 ? (uint64_t)fin : 0, b3, 32));
        }
    }
    lat_memraw_fini(&m);
    return LAT_EXIT_OK;
}

int cmd_analyze(int argc, char **argv, const struct lat_opts *opts)
{
    struct analyze_args args = {.fmt = LAT_FMT_TEXT, .stream = -1};
    int ret = LAT_EXIT_FAILURE;
    analysis_opts_default(&args.ao);
    struct cli_spec spec = {"analyze", usage_text, footer_text, options, on_opt, &args, false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) {
        free(args.cp_name);
        return status;
    }
    if (getenv("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE") &&
        !strcmp(getenv("CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"), "1"))
        args.ao.cp_zero_weight_launch = true; /* HTA's own switch, for comparing graph sizes */
    if (args.memraw) {
        free(args.cp_name);
        if (cr.npos) {
            pr_err("--memory-timeline reads the raw file alone: no trace argument with it\n");
            cli_result_fini(&cr);
            return LAT_EXIT_USAGE;
        }
        cli_result_fini(&cr);
        return memory_timeline(args.memraw, args.fmt, args.pretty);
    }
    if (!cr.npos) {
        free(args.cp_name);
        pr_err("no trace given: latscope analyze TRACE.json[.gz]|DIR...\n");
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    const char **inputs = cr.pos;
    size_t ninputs = cr.npos;
    enum lat_format fmt = args.fmt;
    struct analysis_opts ao = args.ao;
    bool pretty = args.pretty, by_shape = args.by_shape;
    char *cp_name = args.cp_name;

    if (lat_check_output("analyze", "--write-trace", args.write_trace, "nothing was read")) {
        free(inputs);
        free(cp_name);
        return LAT_EXIT_USAGE;
    }
    /* mpirun -n N latscope analyze: the processes split the rank files (streamed), rank 0
     * prints; one rank or --write-trace: rank 0 alone */
    int erank = 0, esize = lat_mpi_env_size(&erank), mrank = 0, msize = 1;
    if (esize > 1) {
        if (lat_mpi_start(&mrank, &msize)) {
            if (erank != 0) {
                free(inputs);
                free(cp_name);
                return LAT_EXIT_OK;
            }
            pr_warn("started by mpirun with %d processes, but this latscope was built without "
                    "MPI (libopenmpi-dev): this process analyses every file, the others "
                    "nothing\n",
                    esize);
        } else if (args.write_trace || ao.only_rank >= 0 || args.stream == 0) {
            lat_mpi_stop(); /* rank 0 alone, without MPI from here */
            if (mrank != 0) {
                free(inputs);
                free(cp_name);
                return LAT_EXIT_OK;
            }
            msize = 1;
        } else {
            args.stream = 1;
        }
    }
    if (msize > 1) {
        ret = analyze_streamed(&args, inputs, ninputs, mrank, msize);
        lat_mpi_stop();
        if (ret == STREAM_FALLBACK) {
            if (mrank == 0) {
                pr_info("a directory holds two traces of one rank: rank 0 analyses the job "
                        "alone\n");
                ret = analyze_streamed(&args, inputs, ninputs, 0, 1);
            } else {
                ret = LAT_EXIT_OK;
            }
        }
        free(inputs);
        free(cp_name);
        return ret;
    }
    bool forced = args.stream == 1;
    if (args.stream < 0) args.stream = auto_stream(inputs, ninputs);
    if (args.stream && (args.write_trace || ao.only_rank >= 0)) {
        if (forced) {
            pr_err("--stream analyses every rank: not with --rank or --write-trace\n");
            free(inputs);
            free(cp_name);
            return LAT_EXIT_USAGE;
        }
        args.stream = 0; /* one rank: it fits */
    }
    for (size_t i = 0; args.stream && i < ninputs; i++)
        if (!strcmp(inputs[i], "-")) {
            if (forced) {
                pr_err("--stream reads every input twice: not '-' (stdin); give a file\n");
                free(inputs);
                free(cp_name);
                return LAT_EXIT_USAGE;
            }
            args.stream = 0;
        }
    if (args.stream) {
        ret = analyze_streamed(&args, inputs, ninputs, 0, 1);
        free(inputs);
        free(cp_name);
        return ret;
    }
    struct progress prog = {.enabled = opts->progress, .start = clock_now_ns()};
    struct lat_ingest_opts io = {.progress = on_read, .progress_ctx = &prog};
    if (ao.threads == 1) io.flags |= LAT_INGEST_NO_THREAD; /* everything on this thread */
    struct lat_ingest_set *set = lat_load_traces("analyze", inputs, ninputs, &io);
    progress_done(&prog);
    if (!set) {
        free(inputs);
        free(cp_name);
        return LAT_EXIT_USAGE;
    }
    struct lat_trace **traces = xcalloc(set->n, sizeof(*traces));
    struct analyze_skipped *skipped = xcalloc(set->n, sizeof(*skipped));
    size_t ntraces = 0, nskipped = 0;
    for (size_t i = 0; i < set->n; i++) {
        struct lat_ingest_file *f = &set->files[i];
        if (f->trace) {
            f->trace->rank = f->rank;
            traces[ntraces++] = f->trace;
        } else if (ingest_status_skipped(f->status)) {
            skipped[nskipped++] = (struct analyze_skipped){
                .path = f->path,
                .status = ingest_status_name(f->status),
                .reason = ingest_file_reason(f),
            };
        }
    }
    /* events the readers left out: one warning per trace (the JSON has them by reason) */
    for (size_t i = 0; i < ntraces; i++) {
        char why[640];
        if (lat_trace_drop_summary(traces[i], why, sizeof(why)))
            pr_warn("%s: %s\n", traces[i]->path ? traces[i]->path : "-", why);
    }
    /* files given one by one: a missing rank is its position among the timeline inputs; kernel
     * profiles (ncu) are no rank of the job: numbered after the ranks, never a duplicate */
    int32_t pos = 0, top = -1;
    for (size_t i = 0; i < ntraces; i++) {
        if (traces[i]->role != LAT_TRACE_TIMELINE) continue;
        if (traces[i]->rank < 0) traces[i]->rank = pos;
        pos++;
        if (traces[i]->rank > top) top = traces[i]->rank;
    }
    for (size_t i = 0; i < ntraces; i++)
        if (traces[i]->role != LAT_TRACE_TIMELINE && top < INT32_MAX) traces[i]->rank = ++top;
    for (size_t i = 0; i < ntraces; i++)
        for (size_t j = 0; j < i; j++)
            if (traces[i]->role == LAT_TRACE_TIMELINE && traces[j]->role == LAT_TRACE_TIMELINE &&
                traces[i]->rank == traces[j]->rank) {
                pr_err("%s and %s both have rank %d: give the ranks of one job\n",
                       traces[j]->path ? traces[j]->path : "?",
                       traces[i]->path ? traces[i]->path : "?", traces[i]->rank);
                ret = LAT_EXIT_USAGE;
                goto out;
            }

    ao.progress = on_analyze;
    ao.progress_arg = &prog;
    struct lat_analysis *an = NULL;
    lat_ns w0 = clock_now_ns(), c0 = clock_cpu_ns();
    int rc = analysis_run(traces, ntraces, &ao, &an);
    progress_done(&prog);
    pr_info("loaded %zu trace(s) in %.3f s; analyses took %.3f s wall, %.3f s cpu\n", ntraces,
            (double)(w0 - prog.start) / 1e9, (double)(clock_now_ns() - w0) / 1e9,
            (double)(clock_cpu_ns() - c0) / 1e9);
    if (rc == LAT_E_NOT_FOUND) {
        pr_err("no trace has rank %d\n", ao.only_rank);
        goto out;
    }
    if (rc < 0) {
        pr_err("analysis failed: %s\n", lat_strerror(rc));
        goto out;
    }
    if (ao.critical_path && ao.cp_annotation && *ao.cp_annotation) {
        bool found = false;
        uint64_t most = 0;
        for (size_t r = 0; r < an->nranks; r++) {
            found |= an->ranks[r].cp_found;
            if (an->ranks[r].cp_instances > most) most = an->ranks[r].cp_instances;
        }
        if (!found) {
            pr_err("--critical-path: no event name contains '%s' (give a user annotation or op "
                   "name from the trace, e.g. ProfilerStep, or '' for the whole trace)\n",
                   ao.cp_annotation);
            analysis_free(an);
            ret = LAT_EXIT_USAGE;
            goto out;
        }
        if ((uint64_t)ao.cp_instance >= most) {
            pr_err("--critical-path: '%s' has %llu instance(s) (0..%llu), not %lld\n",
                   ao.cp_annotation, (unsigned long long)most,
                   (unsigned long long)(most ? most - 1 : 0), (long long)ao.cp_instance);
            analysis_free(an);
            ret = LAT_EXIT_USAGE;
            goto out;
        }
    }
    if (args.write_trace && (rc = write_trace(an, traces, ntraces, args.write_trace)) < 0) {
        analysis_free(an);
        goto out;
    }
    struct analyze_render_opts ro = {.warn = on_render_warn,
                                     .skipped = skipped,
                                     .nskipped = nskipped,
                                     .input_notes = set->note,
                                     .group_by_input_shape = by_shape};
    if (fmt == LAT_FMT_JSON)
        rc = print_json(an, pretty, &ro);
    else
        analyze_format_text(stdout, an, &ro); /* a write error: main's stdout check */
    analysis_free(an);
    ret = rc < 0 ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
out:
    ingest_set_free(set); /* owns the traces */
    free(traces);
    free(skipped);
    free(inputs);
    free(cp_name);
    return ret;
}
