/*
 * cmd-diff.c - `latscope diff`: compare two runs (before/after).
 *
 * Not built yet: planned, no issue filed yet. Until then the command says so and fails (exit 1), so
 * no script mistakes it for a result.
 */
#define PR_FMT "diff"
#include "core/log.h"
#include "latscope.h"

#include <stdio.h>

int cmd_diff(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope diff [OPTIONS]\n\ncompare two runs (before/after).\n(planned; no "
               "issue filed yet)\n");
        return LAT_EXIT_OK;
    }
    pr_err("'latscope diff' is not available in this build yet (planned; no issue filed yet)\n");
    return LAT_EXIT_FAILURE;
}
