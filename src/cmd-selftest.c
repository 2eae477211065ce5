/*
 * cmd-selftest.c - `latscope selftest`: internal helpers for the test suite.
 *
 *   latscope selftest lint-json [--lenient] [--multi] FILE|-
 *       validates JSON (strict by default: UTF-8 and control characters are checked); prints
 *       "ok" or the error with its byte offset; exit 0 valid, 1 invalid.
 *   latscope selftest load [--args-all] [--no-args] [--no-thread] [--chunk N] TRACE|DIR
 *       loads a trace (or a directory of per-rank traces) and prints model statistics as
 *       "key: value" lines: format, events per kind, tracks, steps, rank, dropped, ...
 *
 * Other helpers (e.g. `selftest serve`) may be added by their owners in their own files.
 */
#define PR_FMT "selftest"
#include "core/err.h"
#include "core/log.h"
#include "ingest/ingest.h"
#include "latscope.h"
#include "json/tok.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void selftest_usage(FILE *f)
{
    fprintf(f, "usage: latscope selftest lint-json [--lenient] [--multi] FILE|-\n"
               "       latscope selftest load [--args-all] [--no-args] [--no-thread] "
               "[--chunk BYTES] TRACE|DIR\n\n"
               "internal helpers for the test suite:\n"
               "  lint-json   validate JSON (strict UTF-8 unless --lenient; --multi: JSONL)\n"
               "  load        load a trace (Kineto/Chrome JSON, .gz) and print model statistics\n");
}

static int lint_json(int argc, char **argv)
{
    unsigned flags = JSON_TOK_STRICT;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lenient"))
            flags &= ~(unsigned)JSON_TOK_STRICT;
        else if (!strcmp(argv[i], "--multi"))
            flags |= JSON_TOK_MULTI;
        else if (argv[i][0] == '-' && argv[i][1]) {
            pr_err("lint-json: unknown option '%s'\n", argv[i]);
            return LAT_EXIT_USAGE;
        } else
            path = argv[i];
    }
    if (!path) {
        selftest_usage(stderr);
        return LAT_EXIT_USAGE;
    }
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        pr_err("%s: %s\n", path, strerror(errno));
        return LAT_EXIT_FAILURE;
    }
    struct json_tok t;
    struct json_token tk;
    static char buf[1 << 16];
    int rc = 0;
    bool eof = false;
    json_tok_init(&t, flags);
    for (;;) {
        while ((rc = json_tok_next(&t, &tk)) == 1)
            if (tk.type == JSON_END) break;
        if (rc != 0 || eof) break;
        size_t n = fread(buf, 1, sizeof(buf), f);
        if (n == 0) {
            if (ferror(f)) {
                pr_err("%s: read error\n", path);
                rc = -EIO;
                break;
            }
            json_tok_finish(&t);
            eof = true;
            continue;
        }
        json_tok_feed(&t, buf, n);
    }
    if (f != stdin) fclose(f);
    if (rc < 0) {
        if (rc != -EIO)
            pr_err("%s: invalid JSON at byte %" PRIu64 ": %s\n", path, json_tok_erroff(&t),
                   json_tok_errmsg(&t));
        json_tok_fini(&t);
        return LAT_EXIT_FAILURE;
    }
    json_tok_fini(&t);
    printf("ok\n");
    return LAT_EXIT_OK;
}

static void print_trace_stats(const struct lat_trace *t, const struct lat_ingest_stats *st)
{
    size_t kinds[LAT_EV_KIND_COUNT] = {0};
    size_t gpu_tracks = 0, nsteps = 0;
    int32_t *steps = xcalloc(t->ev.n ? t->ev.n : 1, sizeof(*steps));
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] < LAT_EV_KIND_COUNT) kinds[t->ev.kind[i]]++;
        if (t->ev.flags[i] & LAT_EVF_STEP) {
            bool seen = false;
            for (size_t j = 0; j < nsteps && !seen; j++)
                seen = steps[j] == t->ev.step[i];
            if (!seen) steps[nsteps++] = t->ev.step[i];
        }
    }
    for (size_t i = 0; i < t->ntracks; i++)
        gpu_tracks += t->tracks[i].gpu;
    printf("path: %s\n", t->path ? t->path : "-");
    printf("format: %s\n", t->format);
    if (st) {
        printf("gzip: %s\n", st->gzip ? "yes" : "no");
        printf("json_bytes: %" PRIu64 "\n", st->json_bytes);
        printf("input_events: %" PRIu64 "\n", st->input_events);
        printf("meta_events: %" PRIu64 "\n", st->meta_events);
    }
    printf("events: %zu\n", t->ev.n);
    printf("dropped: %" PRIu64 "\n", t->dropped);
    for (int r = 0; r < LAT_DROP_REASON_COUNT; r++)
        if (t->drops[r])
            printf("dropped.%s: %" PRIu64 "\n", lat_drop_reason_name((enum lat_drop_reason)r),
                   t->drops[r]);
    if (t->drops_gpu) printf("dropped_gpu: %" PRIu64 "\n", t->drops_gpu);
    if (t->drops_step) printf("dropped_step: %" PRIu64 "\n", t->drops_step);
    if (t->bad_fields) printf("bad_fields: %" PRIu64 "\n", t->bad_fields);
    for (int k = 0; k < LAT_EV_KIND_COUNT; k++)
        if (kinds[k]) printf("kind.%s: %zu\n", lat_ev_kind_name((enum lat_ev_kind)k), kinds[k]);
    printf("steps: %zu\n", nsteps);
    if (nsteps) {
        int32_t lo = steps[0], hi = steps[0];
        for (size_t j = 1; j < nsteps; j++) {
            if (steps[j] < lo) lo = steps[j];
            if (steps[j] > hi) hi = steps[j];
        }
        printf("step_range: %d-%d\n", (int)lo, (int)hi);
    }
    free(steps);
    printf("tracks: %zu\n", t->ntracks);
    printf("gpu_tracks: %zu\n", gpu_tracks);
    printf("flows: %zu\n", t->nflows);
    printf("args: %zu\n", t->nargs);
    printf("strings: %u\n", t->strs.count);
    printf("devices: %zu\n", t->ndevices);
    for (size_t i = 0; i < t->ndevices; i++)
        printf("device.%d: %s sms=%d cc=%d.%d\n", (int)t->devices[i].id,
               lat_trace_str(t, t->devices[i].name), (int)t->devices[i].num_sms,
               (int)t->devices[i].compute_major, (int)t->devices[i].compute_minor);
    printf("metadata: %zu\n", t->nmeta);
    for (size_t i = 0; i < t->nmeta; i++) {
        const char *v = ingest_meta_display(t, i);
        size_t n = strlen(v);
        printf("meta.%s: %.*s%s\n", lat_trace_str(t, t->meta[i].key), n > 60 ? 60 : (int)n, v,
               n > 60 ? "..." : "");
    }
    printf("rank: %d\n", (int)t->rank);
    printf("world_size: %d\n", (int)t->world_size);
    printf("base_time_ns: %" PRId64 "\n", t->base_time_ns);
    printf("frac_ts: %s\n", t->frac_ts ? "yes" : "no");
}

static int load(int argc, char **argv)
{
    struct lat_ingest_opts o;
    struct lat_ingest_stats st;
    const char *path = NULL;
    memset(&o, 0, sizeof(o));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--args-all"))
            o.flags |= LAT_INGEST_ARGS_ALL;
        else if (!strcmp(argv[i], "--no-args"))
            o.flags |= LAT_INGEST_NO_ARGS;
        else if (!strcmp(argv[i], "--no-thread"))
            o.flags |= LAT_INGEST_NO_THREAD;
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
            o.chunk_bytes = strtoul(argv[++i], NULL, 0);
        else if (argv[i][0] == '-' && argv[i][1]) {
            pr_err("load: unknown option '%s'\n", argv[i]);
            return LAT_EXIT_USAGE;
        } else
            path = argv[i];
    }
    if (!path) {
        selftest_usage(stderr);
        return LAT_EXIT_USAGE;
    }
    char err[LAT_INGEST_ERRLEN];
    struct stat sb;
    if (strcmp(path, "-") && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        struct lat_ingest_set *set;
        int rc = ingest_dir(path, &o, &set, err, sizeof(err));
        if (rc) {
            pr_err("%s\n", err);
            return LAT_EXIT_FAILURE;
        }
        int ret = LAT_EXIT_OK;
        for (size_t i = 0; i < set->n; i++) {
            struct lat_ingest_file *f = &set->files[i];
            printf("file: %s\nstatus: %s\nrank_used: %d\n", f->path, ingest_status_name(f->status),
                   (int)f->rank);
            if (f->status != LAT_INGEST_OK) pr_warn("%s\n", f->err);
            if (f->status == LAT_INGEST_ERROR) ret = LAT_EXIT_FAILURE;
            if (f->trace) print_trace_stats(f->trace, NULL);
            printf("\n");
        }
        ingest_set_free(set);
        return ret;
    }
    o.stats = &st;
    struct lat_trace *t;
    int rc = ingest_open(path, &o, &t, err, sizeof(err));
    if (rc) {
        pr_err("%s\n", err);
        return LAT_EXIT_FAILURE;
    }
    print_trace_stats(t, &st);
    lat_trace_free(t);
    return LAT_EXIT_OK;
}

int cmd_selftest(int argc, char **argv, const struct lat_opts *opts)
{
    (void)opts;
    if (argc < 2 || lat_is_help(argv[1])) {
        selftest_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? LAT_EXIT_USAGE : LAT_EXIT_OK;
    }
    if (!strcmp(argv[1], "lint-json")) return lint_json(argc - 1, argv + 1);
    if (!strcmp(argv[1], "load")) return load(argc - 1, argv + 1);
    pr_err("selftest: unknown helper '%s' (try: lint-json, load)\n", argv[1]);
    return LAT_EXIT_USAGE;
}
