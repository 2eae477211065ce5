/*
 * cmd-version.c - `latscope version`: the version string from `git describe`, compiled into
 * the generated build/version.c, plus the optional features this build has and the versions of
 * their libraries (core/features.h), as text or JSON (the same "latscope" object every JSON
 * output carries).
 */
#define PR_FMT "version"

#include "latscope.h"

#include "core/features.h"
#include "core/jsonw.h"
#include "core/log.h"
#include "core/table.h"

#include <stdio.h>

static const char usage_text[] =
    "usage: latscope version [--format text|json]\n"
    "\n"
    "Print latscope's version and the features this build has: each optional library the build\n"
    "found (MPI, CUDA capture, libdw, ISA-L, SQLite, ...), with its version where the library\n"
    "tells it.\n"
    "\n";

enum { OPT_FORMAT };

static const struct cli_opt options[] = {
    {"format", 0, "FMT", OPT_FORMAT, 0, "text (default) or json"},
    {0},
};

static int on_opt(void *ctx, int id, const char *v)
{
    enum lat_format *fmt = ctx;
    if (id == OPT_FORMAT)
        return cli_format(PR_FMT, v, 1u << LAT_FMT_TEXT | 1u << LAT_FMT_JSON, fmt);
    return 0;
}

int cmd_version(int argc, char **argv, const struct lat_opts *opts)
{
    (void)opts;
    enum lat_format fmt = LAT_FMT_TEXT;
    struct cli_spec spec = {"version", usage_text, NULL, options, on_opt, &fmt, false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) return status;
    if (cr.npos) {
        pr_err("no arguments expected (got '%s'); see latscope version --help\n", cr.pos[0]);
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    cli_result_fini(&cr);
    if (fmt == LAT_FMT_JSON) {
        struct jsonw w;
        jsonw_init(&w, stdout, false);
        jsonw_obj_begin(&w);
        lat_build_json(&w);
        jsonw_obj_end(&w);
        jsonw_raw(&w, "\n", 1);
        int rc = jsonw_finish(&w);
        jsonw_fini(&w);
        return rc ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
    }
    printf("latscope %s\n", lat_version);
    size_t n;
    const struct lat_feature *f = lat_features(&n);
    static const struct lat_tcol cols[] = {{14, LAT_TCOL_LEFT, NULL},
                                           {3, LAT_TCOL_LEFT, NULL},
                                           {28, LAT_TCOL_LEFT, "  "},
                                           {0, LAT_TCOL_LEFT, "  "}};
    const struct lat_table t = {"  ", cols, sizeof(cols) / sizeof(cols[0])};
    struct lat_tout o = LAT_TOUT_FILE(stdout);
    printf("features:\n");
    for (size_t i = 0; i < n; i++) {
        char lib[96];
        snprintf(lib, sizeof(lib), "%s%s%s", f[i].library, f[i].version[0] ? " " : "",
                 f[i].version);
        const char *cells[] = {f[i].name, f[i].compiled ? "yes" : "no", lib, f[i].what};
        lat_table_row(&o, &t, cells, 4);
    }
    return LAT_EXIT_OK;
}
