/*
 * cli-load.c - loading the trace inputs of a command: one behaviour for analyze, doctor and
 * every later command that reads traces (docs/trace-input.md, "Several inputs").
 *
 * ingest_paths() does the work; this file only reports, the same way for every command:
 * a named input that cannot be loaded is an error (the command exits LAT_EXIT_USAGE, nothing
 * on stdout); a directory's file that cannot be used is a warning "PATH: why; skipped" and
 * stays listed in the set (commands put it in their JSON "skipped"); nothing loaded at all is
 * an error. One path per message.
 */
#include "core/err.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "latscope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a directory's layout decided (the run of a TensorFlow profile directory), as notes. */
static void print_notes(const char *mod, const struct lat_ingest_set *set)
{
    for (const char *p = set->note; p && *p && lat_log_level >= LAT_LOG_WARN;) {
        size_t l = strcspn(p, "\n");
        fprintf(stderr, "latscope: %s: note: %.*s\n", mod, (int)l, p);
        p += l + (p[l] == '\n');
    }
}

/* lat_load_traces(); with why, quiet: nothing printed, the error in why[0..whysz) (a second
 * load of an input that was loaded and reported once, as lat_walk_traces' quiet). */
static struct lat_ingest_set *load_traces(const char *mod, const char *const *paths, size_t n,
                                          const struct lat_ingest_opts *io, char *why, size_t whysz)
{
    struct lat_ingest_set *set = NULL;
    char err[LAT_INGEST_ERRLEN] = "";
    int rc = ingest_paths(paths, n, io, &set, err, sizeof(err));
    if (rc) {
        if (why)
            snprintf(why, whysz, "%s", err[0] ? err : lat_strerror(rc));
        else
            lat_log_printf(LAT_LOG_ERR, mod, "%s\n", err[0] ? err : lat_strerror(rc));
        return NULL;
    }
    if (!why) print_notes(mod, set);
    size_t skipped = 0;
    for (size_t i = 0; i < set->n; i++) {
        const struct lat_ingest_file *f = &set->files[i];
        if (ingest_status_skipped(f->status)) {
            skipped++;
            if (lat_log_level >= LAT_LOG_WARN && !why)
                lat_log_printf(LAT_LOG_WARN, mod, "%s: %s; skipped\n", f->path,
                               ingest_file_reason(f));
        } else if (f->status == LAT_INGEST_NO_RANK && lat_log_level >= LAT_LOG_WARN && !why) {
            lat_log_printf(LAT_LOG_WARN, mod, "%s\n", f->err);
        }
    }
    if (!ingest_set_loaded(set)) {
        if (why)
            snprintf(why, whysz, "no trace could be loaded (%zu file%s skipped)", skipped,
                     skipped == 1 ? "" : "s");
        else
            lat_log_printf(LAT_LOG_ERR, mod, "no trace could be loaded (%zu file%s skipped)\n",
                           skipped, skipped == 1 ? "" : "s");
        ingest_set_free(set);
        return NULL;
    }
    return set;
}

struct lat_ingest_set *lat_load_traces(const char *mod, const char *const *paths, size_t n,
                                       const struct lat_ingest_opts *io)
{
    return load_traces(mod, paths, n, io, NULL, 0);
}

/* lat_walk_traces(): the reporting of lat_load_traces(), file by file as the walk goes. */
struct walk {
    const char *mod;
    lat_walk_fn fn;
    void *ctx;
    size_t skipped, loaded;
    bool visit_failed, quiet, noted;
};

static int walk_visit(void *ctx, struct lat_ingest_set *set, size_t i)
{
    struct walk *w = ctx;
    struct lat_ingest_file *f = &set->files[i];
    if (!w->noted && !w->quiet) print_notes(w->mod, set); /* before the first file's lines */
    w->noted = true;
    if (ingest_status_skipped(f->status)) {
        w->skipped++;
        if (lat_log_level >= LAT_LOG_WARN && !w->quiet)
            lat_log_printf(LAT_LOG_WARN, w->mod, "%s: %s; skipped\n", f->path,
                           ingest_file_reason(f));
    } else if (f->status == LAT_INGEST_NO_RANK && lat_log_level >= LAT_LOG_WARN && !w->quiet) {
        lat_log_printf(LAT_LOG_WARN, w->mod, "%s\n", f->err);
    }
    if (!f->trace) return 0;
    w->loaded++;
    int rc = w->fn(w->ctx, set, i);
    if (rc) w->visit_failed = true;
    return rc;
}

struct lat_ingest_set *lat_walk_traces(const char *mod, const char *const *paths, size_t n,
                                       const struct lat_ingest_opts *io, size_t batch,
                                       lat_walk_fn fn, void *ctx, bool quiet, int *rc_out)
{
    struct walk w = {mod, fn, ctx, 0, 0, false, quiet, false};
    struct lat_ingest_set *set = NULL;
    char err[LAT_INGEST_ERRLEN] = "";
    int rc = ingest_paths_each(paths, n, io, batch, walk_visit, &w, &set, err, sizeof(err));
    *rc_out = rc;
    if (set && !w.noted && !quiet) print_notes(mod, set);
    if (rc) {
        if (!w.visit_failed) /* a visitor says itself what went wrong */
            lat_log_printf(LAT_LOG_ERR, mod, "%s\n", err[0] ? err : lat_strerror(rc));
        ingest_set_free(set);
        return NULL;
    }
    if (!w.loaded && !(io && io->share_count > 1)) { /* shared: the caller counts over all */
        lat_log_printf(LAT_LOG_ERR, mod, "no trace could be loaded (%zu file%s skipped)\n",
                       w.skipped, w.skipped == 1 ? "" : "s");
        ingest_set_free(set);
        *rc_out = LAT_E_NOT_FOUND;
        return NULL;
    }
    return set;
}

struct lat_trace **lat_set_traces(struct lat_ingest_set *set, size_t *n)
{
    struct lat_trace **t = xcalloc(set->n ? set->n : 1, sizeof(*t));
    *n = 0;
    for (size_t k = 0; k < set->n; k++) {
        struct lat_ingest_file *f = &set->files[k];
        if (!f->trace) continue;
        f->trace->rank = f->rank; /* ingest's rank: the directory's, or the trace's own */
        t[(*n)++] = f->trace;
    }
    return t;
}

int lat_number_ranks(const char *mod, struct lat_trace **traces, size_t ntraces)
{
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
                lat_log_printf(LAT_LOG_ERR, mod,
                               "%s and %s both have rank %d: give the ranks of one job\n",
                               traces[j]->path ? traces[j]->path : "?",
                               traces[i]->path ? traces[i]->path : "?", traces[i]->rank);
                return -1;
            }
    return 0;
}

struct lat_ingest_set *lat_load_ranked(const char *mod, const char *path,
                                       struct lat_trace ***traces, size_t *n, char *why,
                                       size_t whysz)
{
    *traces = NULL;
    *n = 0;
    struct lat_ingest_set *set = load_traces(mod, &path, 1, NULL, why, whysz);
    if (!set) return NULL;
    *traces = lat_set_traces(set, n);
    if (lat_number_ranks(mod, *traces, *n)) {
        if (why) snprintf(why, whysz, "two of its traces have one rank (said above)");
        free(*traces);
        *traces = NULL;
        ingest_set_free(set);
        return NULL;
    }
    return set;
}
