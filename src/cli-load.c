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

struct lat_ingest_set *lat_load_traces(const char *mod, const char *const *paths, size_t n,
                                       const struct lat_ingest_opts *io)
{
    struct lat_ingest_set *set = NULL;
    char err[LAT_INGEST_ERRLEN] = "";
    int rc = ingest_paths(paths, n, io, &set, err, sizeof(err));
    if (rc) {
        lat_log_printf(LAT_LOG_ERR, mod, "%s\n", err[0] ? err : lat_strerror(rc));
        return NULL;
    }
    print_notes(mod, set);
    size_t skipped = 0;
    for (size_t i = 0; i < set->n; i++) {
        const struct lat_ingest_file *f = &set->files[i];
        if (ingest_status_skipped(f->status)) {
            skipped++;
            if (lat_log_level >= LAT_LOG_WARN)
                lat_log_printf(LAT_LOG_WARN, mod, "%s: %s; skipped\n", f->path,
                               ingest_file_reason(f));
        } else if (f->status == LAT_INGEST_NO_RANK && lat_log_level >= LAT_LOG_WARN) {
            lat_log_printf(LAT_LOG_WARN, mod, "%s\n", f->err);
        }
    }
    if (!ingest_set_loaded(set)) {
        lat_log_printf(LAT_LOG_ERR, mod, "no trace could be loaded (%zu file%s skipped)\n", skipped,
                       skipped == 1 ? "" : "s");
        ingest_set_free(set);
        return NULL;
    }
    return set;
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
