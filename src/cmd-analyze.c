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
#include "analyze/stream.h"
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

static int consume_record(struct stream_job *sj, const unsigned char *p, size_t n);

#define STREAM_FALLBACK 100 /* MPI: duplicate ranks in a directory; rank 0 alone runs the job */

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

/* This process's share of the set (i % msize == mrank) as pass 1 left it. *n: how many. */
static struct an_stream_file *my_files(const struct stream_job *sj,
                                       const struct lat_ingest_set *set, int mrank, int msize,
                                       size_t *n)
{
    struct an_stream_file *files = xcalloc(set->n / (size_t)msize + 1, sizeof(*files));
    size_t k = 0, m = 0;
    for (size_t i = (size_t)mrank; i < set->n; i += (size_t)msize) {
        const struct lat_ingest_file *f = &set->files[i];
        while (k < sj->nr && sj->r[k].index < i)
            k++;
        bool loaded = k < sj->nr && sj->r[k].index == i;
        const char *why = ingest_status_skipped(f->status) ? ingest_file_reason(f) : "";
        files[m++] = (struct an_stream_file){.index = (uint32_t)i,
                                             .status = (uint8_t)f->status,
                                             .loaded = loaded,
                                             .timeline = loaded && sj->r[k].timeline,
                                             .rules = loaded && sj->r[k].rules,
                                             .rank = loaded ? sj->r[k].rank : -1,
                                             .reason = why,
                                             .reason_len = strlen(why)};
    }
    *n = m;
    return files;
}

struct pass1_in {
    struct stream_job *sj;
    const struct lat_ingest_set *set;
    bool dup; /* a process found two traces of one rank in a directory */
};

/* A file another process (or this one) sent: a loaded rank, or a skipped file to name. */
static int on_pass1_file(void *ctx, const struct an_stream_file *f)
{
    struct pass1_in *in = ctx;
    struct stream_job *sj = in->sj;
    if (f->status == LAT_INGEST_DUP_RANK) in->dup = true;
    if (f->loaded) {
        XGROW(sj->r, sj->cap, sj->nr, 1, 64);
        sj->r[sj->nr++] = (struct srank){xstrdup(in->set->files[f->index].path), f->index, f->rank,
                                         f->timeline, f->rules};
    } else if (ingest_status_skipped((enum lat_ingest_status)f->status)) {
        XGROW(sj->skips, sj->skips_cap, sj->nskips, 1, 16);
        char *w = xcalloc(f->reason_len + 1, 1);
        memcpy(w, f->reason, f->reason_len);
        sj->skips[sj->nskips++] = (struct mskip){f->index, f->status, w};
    }
    return 0;
}

/* Two loaded traces of one rank in one directory (ingest's one-trace-per-rank rule)? */
static bool dup_dir_rank(const struct stream_job *sj)
{
    for (size_t i = 0; i < sj->nr; i++) {
        if (!sj->r[i].rules) continue;
        const char *pi = sj->r[i].path, *si = strrchr(pi, '/');
        for (size_t j = 0; j < i; j++) {
            const char *pj = sj->r[j].path, *sjj = strrchr(pj, '/');
            if (!sj->r[j].rules || sj->r[j].rank != sj->r[i].rank || !si || !sjj) continue;
            if (si - pi == sjj - pj && !strncmp(pi, pj, (size_t)(si - pi))) return true;
        }
    }
    return false;
}

/* MPI, after pass 1: every process's files (loaded or skipped) and scan to every process, so
 * that all number the ranks, drop the same last steps and align by the same offset
 * (analyze/stream.c's bytes). 0, STREAM_FALLBACK (a directory with two traces of one rank:
 * which one is kept depends on the file order over all processes; rare, so rank 0 does that job
 * alone), -1 (error, said). */
static int exchange_pass1(struct stream_job *sj, const struct lat_ingest_set *set, int mrank,
                          int msize)
{
    size_t nf = 0;
    struct an_stream_file *files = my_files(sj, set, mrank, msize, &nf);
    struct lat_buf b = LAT_BUF_INIT;
    int rc = an_stream_pass1_pack(&b, &sj->scan, files, nf);
    free(files);
    if (rc) {
        buf_fini(&b);
        pr_err("out of memory\n");
        return -1;
    }
    char *all = NULL;
    size_t *offs = NULL;
    rc = lat_mpi_allgather(b.data ? b.data : "", b.len, &all, &offs);
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
    struct pass1_in in = {sj, set, false};
    rc = an_stream_pass1_unpack(all, offs, msize, set->n, &sj->scan, on_pass1_file, &in);
    free(all);
    free(offs);
    if (rc) {
        if (rc == LAT_E_TRUNCATED)
            pr_err("MPI: a process sent bad bytes\n");
        else
            pr_err("MPI: the ranks: %s\n", lat_strerror(rc));
        return -1;
    }
    if (sj->nr) qsort(sj->r, sj->nr, sizeof(*sj->r), srank_cmp);
    if (sj->nskips) qsort(sj->skips, sj->nskips, sizeof(*sj->skips), mskip_cmp);
    return in.dup || dup_dir_rank(sj) ? STREAM_FALLBACK : 0;
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
    struct an_stream_span *recs = NULL;
    size_t n = 0;
    rc = an_stream_split(all, offs ? offs[sj->msize] : 0, &recs, &n);
    if (!rc) rc = n == sj->nr ? 0 : LAT_E_TRUNCATED;
    for (size_t i = 0; !rc && i < n; i++)
        rc = consume_record(sj, (const unsigned char *)all + recs[i].at, recs[i].len);
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

/* One rank's record (analyze/stream.h), made by the process that analysed the rank, consumed in
 * file order by the one that prints (the same process without MPI): its part of the report to
 * the temporary file, its analysis into the job. */
static int consume_record(struct stream_job *sj, const unsigned char *p, size_t n)
{
    struct an_stream_record rec;
    int rc = an_stream_record_read(p, n, &rec);
    if (rc) return rc;
    long off = ftell(sj->tmp);
    if (off < 0 || (rec.flen && fwrite(rec.frag, 1, rec.flen, sj->tmp) != rec.flen)) {
        analysis_free(rec.one);
        return -EIO;
    }
    const struct lat_an_rank *r = &rec.one->ranks[0];
    sj->cp_found |= r->cp_found;
    if (r->cp_instances > sj->cp_most) sj->cp_most = r->cp_instances;
    sj->ntimeline += r->trace->role == LAT_TRACE_TIMELINE;
    rc = analysis_job_add(sj->job, rec.one);
    analysis_free(rec.one);
    if (rc) return rc;
    XGROW(sj->frags, sj->frags_cap, sj->nfrags, 1, 64);
    sj->frags[sj->nfrags++] = (struct sfrag){rec.rank, off, rec.flen};
    return 0;
}

/* The rank's part of the report, rendered while its trace is here. 0 or -errno. */
static int render_rank(const struct stream_job *sj, const struct lat_analysis *an,
                       struct lat_buf *frag)
{
    int rc;
    if (sj->args->fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init_at(&w, NULL, sj->args->pretty, 2);
        analyze_write_rank_json(&w, an, 0, &sj->ro);
        rc = jsonw_finish(&w);
        *frag = w.buf; /* the writer's buffer (no FILE): taken over */
        return rc;
    }
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
    if (!rc && buf_append(frag, data ? data : "", len)) rc = -ENOMEM;
    free(data);
    return rc;
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
    struct lat_buf frag = LAT_BUF_INIT;
    rc = render_rank(sj, an, &frag);
    size_t start = 0;
    if (!rc)
        rc = an_stream_record_put(&sj->out, (uint32_t)i, t->rank, frag.data, frag.len, an, &start);
    buf_fini(&frag);
    analysis_free(an);
    if (!rc && !sj->deferred) { /* one process: consumed now, the buffer stays small */
        rc = consume_record(sj, (const unsigned char *)sj->out.data + start, sj->out.len - start);
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

/* --critical-path NAME[:N]: the annotation was found and has instance N. 0, or LAT_EXIT_USAGE
 * (said). */
static int check_cp(const struct analysis_opts *ao, bool found, uint64_t most)
{
    if (!ao->critical_path || !ao->cp_annotation || !*ao->cp_annotation) return 0;
    if (!found) {
        pr_err("--critical-path: no event name contains '%s' (give a user annotation or op "
               "name from the trace, e.g. ProfilerStep, or '' for the whole trace)\n",
               ao->cp_annotation);
        return LAT_EXIT_USAGE;
    }
    if ((uint64_t)ao->cp_instance >= most) {
        pr_err("--critical-path: '%s' has %llu instance(s) (0..%llu), not %lld\n",
               ao->cp_annotation, (unsigned long long)most,
               (unsigned long long)(most ? most - 1 : 0), (long long)ao->cp_instance);
        return LAT_EXIT_USAGE;
    }
    return 0;
}

/* Two timelines with one rank: -1 (said by the printing process), else 0. */
static int stream_dup_rank(const struct stream_job *sj, bool root)
{
    struct sfrag *byrank = xcalloc(sj->nr ? sj->nr : 1, sizeof(*byrank));
    for (size_t i = 0; i < sj->nr; i++)
        byrank[i] = (struct sfrag){sj->r[i].timeline ? sj->r[i].rank : INT32_MIN, (long)i, 0};
    qsort(byrank, sj->nr, sizeof(*byrank), frag_cmp);
    for (size_t i = 1; i < sj->nr; i++)
        if (byrank[i].rank != INT32_MIN && byrank[i].rank == byrank[i - 1].rank) {
            size_t a = (size_t)byrank[i - 1].off, b = (size_t)byrank[i].off;
            if (a > b) {
                size_t t = a;
                a = b;
                b = t;
            }
            if (root)
                pr_err("%s and %s both have rank %d: give the ranks of one job\n", sj->r[a].path,
                       sj->r[b].path, sj->r[b].rank);
            free(byrank);
            return -1;
        }
    free(byrank);
    return 0;
}

/* Pass 1: the ranks, and what the preprocessing computes across them (every process the same
 * under MPI). 0, STREAM_FALLBACK, or -1 (said). */
static int stream_pass1(struct stream_job *sj, const char **inputs, size_t ninputs,
                        const struct lat_ingest_opts *io, size_t batch, struct lat_ingest_set **set)
{
    bool mpi = sj->msize > 1, root = sj->mrank == 0;
    int rc;
    *set = lat_walk_traces("analyze", inputs, ninputs, io, batch, scan_visit, sj, false, &rc);
    if (mpi) {
        if (lat_mpi_max(*set == NULL)) return -1; /* that process said why; all stop */
        int x = exchange_pass1(sj, *set, sj->mrank, sj->msize);
        if (lat_mpi_max(x < 0)) return -1;
        if (lat_mpi_max(x == STREAM_FALLBACK)) return STREAM_FALLBACK;
        if (!sj->nr) {
            if (root)
                pr_err("no trace could be loaded (%zu file%s skipped)\n", sj->nskips,
                       sj->nskips == 1 ? "" : "s");
            return -1;
        }
    } else if (!*set) {
        return -1;
    }
    /* the ranks, as the in-memory path numbers them */
    int32_t pos = 0, top = -1;
    for (size_t i = 0; i < sj->nr; i++) {
        if (!sj->r[i].timeline) continue;
        if (sj->r[i].rank < 0) sj->r[i].rank = pos;
        pos++;
        if (sj->r[i].rank > top) top = sj->r[i].rank;
    }
    for (size_t i = 0; i < sj->nr; i++)
        if (!sj->r[i].timeline && top < INT32_MAX) sj->r[i].rank = ++top;
    if (stream_dup_rank(sj, root)) return -1;
    analysis_scan_opts(&sj->scan, &sj->ao);
    return 0;
}

/* The job's report from the ranks' fragments; the exit code. */
static int stream_print(struct stream_job *sj, const struct lat_analysis *an,
                        const struct lat_ingest_set *set2)
{
    bool mpi = sj->msize > 1;
    int rc = check_cp(&sj->args->ao, sj->cp_found, sj->cp_most);
    if (rc) return rc;
    if (sj->nfrags) qsort(sj->frags, sj->nfrags, sizeof(*sj->frags), frag_cmp);
    struct analyze_skipped *skipped = xcalloc(set2->n ? set2->n : 1, sizeof(*skipped));
    size_t nskipped = 0;
    for (size_t i = 0; mpi && i < sj->nskips; i++)
        skipped[nskipped++] = (struct analyze_skipped){
            .path = set2->files[sj->skips[i].index].path,
            .status = ingest_status_name((enum lat_ingest_status)sj->skips[i].status),
            .reason = sj->skips[i].reason,
        };
    for (size_t i = 0; !mpi && i < set2->n; i++)
        if (ingest_status_skipped(set2->files[i].status))
            skipped[nskipped++] = (struct analyze_skipped){
                .path = set2->files[i].path,
                .status = ingest_status_name(set2->files[i].status),
                .reason = ingest_file_reason(&set2->files[i]),
            };
    sj->ro.skipped = skipped;
    sj->ro.nskipped = nskipped;
    sj->ro.ranks_json = ranks_json;
    sj->ro.ranks_text = ranks_text;
    sj->ro.ranks_ctx = sj;
    sj->ro.ranks_timeline = sj->ntimeline;
    if (sj->args->fmt == LAT_FMT_JSON)
        rc = print_json(an, sj->args->pretty, &sj->ro);
    else
        rc = analyze_format_text(stdout, an, &sj->ro);
    free(skipped);
    return rc < 0 ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
}

static void stream_job_fini(struct stream_job *sj)
{
    analysis_job_free(sj->job);
    analysis_scan_fini(&sj->scan);
    if (sj->tmp) fclose(sj->tmp);
    for (size_t i = 0; i < sj->nr; i++)
        free(sj->r[i].path);
    free(sj->r);
    free(sj->frags);
    buf_fini(&sj->out);
    for (size_t i = 0; i < sj->nskips; i++)
        free(sj->skips[i].reason);
    free(sj->skips);
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

    int p1 = stream_pass1(&sj, inputs, ninputs, &io, batch, &set);
    if (p1) {
        if (p1 == STREAM_FALLBACK) ret = STREAM_FALLBACK;
        goto out;
    }
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
    ret = stream_print(&sj, an, set2);
out:
    analysis_free(an);
    stream_job_fini(&sj);
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
    if (fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init(&w, stdout, pretty);
        int jrc = lat_memraw_json(&w, &m, path);
        jsonw_fini(&w);
        putchar('\n');
        if (jrc) {
            pr_err("--memory-timeline: writing the JSON: %s\n", lat_strerror(jrc));
            lat_memraw_fini(&m);
            return LAT_EXIT_FAILURE;
        }
    } else {
        lat_memraw_format_text(stdout, &m, path);
    }
    lat_memraw_fini(&m);
    return LAT_EXIT_OK;
}

/* The analysis of the loaded traces, checked and printed; the exit code. */
static int analyze_run_print(const struct analyze_args *args, struct lat_trace **traces,
                             size_t ntraces, struct analyze_render_opts *ro, struct progress *prog)
{
    struct analysis_opts ao = args->ao;
    ao.progress = on_analyze;
    ao.progress_arg = prog;
    struct lat_analysis *an = NULL;
    lat_ns w0 = clock_now_ns(), c0 = clock_cpu_ns();
    int rc = analysis_run(traces, ntraces, &ao, &an);
    progress_done(prog);
    pr_info("loaded %zu trace(s) in %.3f s; analyses took %.3f s wall, %.3f s cpu\n", ntraces,
            (double)(w0 - prog->start) / 1e9, (double)(clock_now_ns() - w0) / 1e9,
            (double)(clock_cpu_ns() - c0) / 1e9);
    if (rc == LAT_E_NOT_FOUND) {
        pr_err("no trace has rank %d\n", ao.only_rank);
        return LAT_EXIT_FAILURE;
    }
    if (rc < 0) {
        pr_err("analysis failed: %s\n", lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    bool found = false;
    uint64_t most = 0;
    for (size_t r = 0; r < an->nranks; r++) {
        found |= an->ranks[r].cp_found;
        if (an->ranks[r].cp_instances > most) most = an->ranks[r].cp_instances;
    }
    int ret = check_cp(&ao, found, most);
    if (!ret && args->write_trace && write_trace(an, traces, ntraces, args->write_trace) < 0)
        ret = LAT_EXIT_FAILURE;
    if (!ret) {
        if (args->fmt == LAT_FMT_JSON)
            rc = print_json(an, args->pretty, ro);
        else
            analyze_format_text(stdout, an, ro); /* a write error: main's stdout check */
        ret = rc < 0 ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
    }
    analysis_free(an);
    return ret;
}

/* The in-memory path: every trace loaded (lat_load_traces), then analysed together. */
static int analyze_loaded(const struct analyze_args *args, const char **inputs, size_t ninputs,
                          const struct lat_opts *opts)
{
    struct progress prog = {.enabled = opts->progress, .start = clock_now_ns()};
    struct lat_ingest_opts io = {.progress = on_read, .progress_ctx = &prog};
    if (args->ao.threads == 1) io.flags |= LAT_INGEST_NO_THREAD; /* everything on this thread */
    struct lat_ingest_set *set = lat_load_traces("analyze", inputs, ninputs, &io);
    progress_done(&prog);
    if (!set) return LAT_EXIT_USAGE;
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
    int ret = LAT_EXIT_USAGE;
    if (!lat_number_ranks("analyze", traces, ntraces)) {
        struct analyze_render_opts ro = {.warn = on_render_warn,
                                         .skipped = skipped,
                                         .nskipped = nskipped,
                                         .input_notes = set->note,
                                         .group_by_input_shape = args->by_shape};
        ret = analyze_run_print(args, traces, ntraces, &ro, &prog);
    }
    ingest_set_free(set); /* owns the traces */
    free(traces);
    free(skipped);
    return ret;
}

/* mpirun -n N latscope analyze: the processes split the rank files (streamed), rank 0 prints;
 * one rank or --write-trace: rank 0 alone. -1 to go on (*msize 1: this process alone, or the
 * job is shared), else the exit code of this process. */
static int mpi_setup(struct analyze_args *args, int *mrank, int *msize)
{
    int erank = 0, esize = lat_mpi_env_size(&erank);
    *mrank = 0;
    *msize = 1;
    if (esize <= 1) return -1;
    if (lat_mpi_start(mrank, msize)) {
        if (erank != 0) return LAT_EXIT_OK;
        pr_warn("started by mpirun with %d processes, but this latscope was built without "
                "MPI (libopenmpi-dev): this process analyses every file, the others "
                "nothing\n",
                esize);
    } else if (args->write_trace || args->ao.only_rank >= 0 || args->stream == 0) {
        lat_mpi_stop(); /* rank 0 alone, without MPI from here */
        if (*mrank != 0) return LAT_EXIT_OK;
        *msize = 1;
    } else {
        args->stream = 1;
    }
    return -1;
}

/* The job shared by msize MPI processes; rank 0 alone when a directory holds two traces of one
 * rank. */
static int analyze_mpi(const struct analyze_args *args, const char **inputs, size_t ninputs,
                       int mrank, int msize)
{
    int ret = analyze_streamed(args, inputs, ninputs, mrank, msize);
    lat_mpi_stop();
    if (ret != STREAM_FALLBACK) return ret;
    if (mrank != 0) return LAT_EXIT_OK;
    pr_info("a directory holds two traces of one rank: rank 0 analyses the job alone\n");
    return analyze_streamed(args, inputs, ninputs, 0, 1);
}

/* --stream / --no-stream / by the input size: args->stream 0 or 1 after. -1 to go on, or
 * LAT_EXIT_USAGE (said). */
static int choose_stream(struct analyze_args *args, const char **inputs, size_t ninputs)
{
    bool forced = args->stream == 1;
    if (args->stream < 0) args->stream = auto_stream(inputs, ninputs);
    if (args->stream && (args->write_trace || args->ao.only_rank >= 0)) {
        if (forced) {
            pr_err("--stream analyses every rank: not with --rank or --write-trace\n");
            return LAT_EXIT_USAGE;
        }
        args->stream = 0; /* one rank: it fits */
    }
    for (size_t i = 0; args->stream && i < ninputs; i++)
        if (!strcmp(inputs[i], "-")) {
            if (forced) {
                pr_err("--stream reads every input twice: not '-' (stdin); give a file\n");
                return LAT_EXIT_USAGE;
            }
            args->stream = 0;
        }
    return -1;
}

static int analyze_inputs(struct analyze_args *args, const char **inputs, size_t ninputs,
                          const struct lat_opts *opts)
{
    if (lat_check_output("analyze", "--write-trace", args->write_trace, "nothing was read"))
        return LAT_EXIT_USAGE;
    int mrank, msize;
    int ret = mpi_setup(args, &mrank, &msize);
    if (ret >= 0) return ret;
    if (msize > 1) return analyze_mpi(args, inputs, ninputs, mrank, msize);
    if ((ret = choose_stream(args, inputs, ninputs)) >= 0) return ret;
    if (args->stream) return analyze_streamed(args, inputs, ninputs, 0, 1);
    return analyze_loaded(args, inputs, ninputs, opts);
}

int cmd_analyze(int argc, char **argv, const struct lat_opts *opts)
{
    struct analyze_args args = {.fmt = LAT_FMT_TEXT, .stream = -1};
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
    int ret;
    if (args.memraw) {
        if (cr.npos) {
            pr_err("--memory-timeline reads the raw file alone: no trace argument with it\n");
            ret = LAT_EXIT_USAGE;
        } else {
            ret = memory_timeline(args.memraw, args.fmt, args.pretty);
        }
    } else if (!cr.npos) {
        pr_err("no trace given: latscope analyze TRACE.json[.gz]|DIR...\n");
        ret = LAT_EXIT_USAGE;
    } else {
        ret = analyze_inputs(&args, cr.pos, cr.npos, opts);
    }
    free(args.cp_name);
    cli_result_fini(&cr);
    return ret;
}
