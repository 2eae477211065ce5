/*
 * cmd-bench-merge.c - `latscope bench merge RESULT.json...`: the JSON results of the shards of
 * one load (bench --shard K/N on any launcher) merged into one result of the same form as a
 * single-process run (src/bench/merge.h), printed as text, JSON or CSV like `bench` prints.
 * Exit status: 0 every merged point valid, 1 a point INVALID, 2 usage or a bad input file.
 */
#define PR_FMT "bench merge"
#include "bench/merge.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/esc.h"
#include "core/log.h"
#include "latscope.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char merge_usage[] =
    "usage: latscope bench merge [--format text|json|csv] RESULT.json...\n"
    "\n"
    "Merges the JSON results (bench --format json) of the N shards of one load (bench\n"
    "--shard K/N) into one result of the same form as a single-process run: histograms added\n"
    "bucket by bucket (exact), counters summed, the achieved rate over the union of the\n"
    "shards' windows, a point INVALID when any shard's is, and one line per shard (achieved\n"
    "rate, send lag, errors, validity, start offset). Every shard must be given once.\n"
    "\n";

static const char merge_footer[] =
    "Exit status: 0 every merged point valid, 1 a point INVALID, 2 usage or a bad input file.\n"
    "See docs/latscope-bench-distributed.md.\n";

enum { OPT_FORMAT };

static const struct cli_opt merge_options[] = {
    {"format", 0, "text|json|csv", OPT_FORMAT, 0, "output format (default text)"},
    {0},
};

static int on_opt(void *ctx, int id, const char *val)
{
    if (id != OPT_FORMAT) return -1;
    return cli_format(PR_FMT, val, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON | 1u << LAT_FMT_CSV,
                      ctx);
}

#define MERGE_MAX_FILE (1ULL << 30)

int cmd_bench_merge(int argc, char **argv, const struct lat_opts *opts)
{
    (void)opts;
    enum lat_format fmt = LAT_FMT_TEXT;
    struct cli_spec spec = {"bench merge", merge_usage, merge_footer, merge_options,
                            on_opt,        &fmt,        false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) return status;
    size_t n = cr.npos;
    if (n == 0) {
        pr_err("no RESULT.json given (see 'latscope bench merge --help')\n");
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    struct lat_buf *bufs = xcalloc(n, sizeof(*bufs));
    const char **docs = xcalloc(n, sizeof(*docs));
    size_t *lens = xcalloc(n, sizeof(*lens));
    const char **names = xcalloc(n, sizeof(*names));
    int exit_code = LAT_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        names[i] = cr.pos[i];
        int rc = buf_read_file(&bufs[i], names[i], MERGE_MAX_FILE);
        if (rc < 0) {
            pr_err("%s: %s\n", names[i],
                   rc == LAT_E_OVERFLOW ? "larger than 1 GiB: not a bench result"
                                        : lat_strerror(rc));
            exit_code = LAT_EXIT_USAGE;
            goto out;
        }
        docs[i] = bufs[i].data ? bufs[i].data : "";
        lens[i] = bufs[i].len;
    }
    struct bench_merged m;
    char err[1024] = "";
    int rc = bench_merge_docs(&m, docs, lens, names, n, err, sizeof(err));
    if (rc) {
        {
            char e_[2048]; /* it may quote an input's names: escaped (core/esc.h) */
            pr_err("%s\n", lat_esc_cell(e_, sizeof(e_), err[0] ? err : lat_strerror(rc)));
        }
        bench_merged_fini(&m);
        exit_code = rc == -ENOMEM ? LAT_EXIT_FAILURE : LAT_EXIT_USAGE;
        goto out;
    }
    if (fmt == LAT_FMT_JSON)
        rc = bench_report_json(stdout, &m.run);
    else if (fmt == LAT_FMT_CSV)
        rc = bench_report_csv(stdout, &m.run);
    else
        rc = bench_report_text(stdout, &m.run);
    if (rc < 0) exit_code = LAT_EXIT_FAILURE;
    for (size_t i = 0; i < m.run.npoints && exit_code == LAT_EXIT_OK; i++)
        if (!m.run.points[i].res.valid) exit_code = LAT_EXIT_FAILURE;
    if (m.run.interrupted && exit_code == LAT_EXIT_OK) exit_code = LAT_EXIT_FAILURE;
    bench_merged_fini(&m);
out:
    for (size_t i = 0; i < n; i++)
        buf_fini(&bufs[i]);
    free(bufs);
    free(docs);
    free(lens);
    free(names);
    cli_result_fini(&cr);
    return exit_code;
}
