/*
 * cmd-report.c - `latscope report`: render a shareable report from traces and bench results.
 *
 * Not built yet: planned, no issue filed yet. Until then the command says so and fails (exit 1), so
 * no script mistakes it for a result.
 */
#define PR_FMT "report"
#include "core/log.h"
#include "latscope.h"

#include <stdio.h>

int cmd_report(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope report [OPTIONS]\n\nrender a shareable report from traces and "
               "bench results.\n(planned; no issue filed yet)\n");
        return LAT_EXIT_OK;
    }
    pr_err("'latscope report' is not available in this build yet (planned; no issue filed yet)\n");
    return LAT_EXIT_FAILURE;
}
