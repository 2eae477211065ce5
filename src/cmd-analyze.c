/*
 * cmd-analyze.c - `latscope analyze`: where the time goes in a PyTorch/Kineto or Chrome trace.
 *
 * Not built yet: tracked in issue #3. Until then the command says so and fails (exit 1), so
 * no script mistakes it for a result.
 */
#define PR_FMT "analyze"
#include "core/log.h"
#include "latscope.h"

#include <stdio.h>

int cmd_analyze(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope analyze [OPTIONS]\n\nwhere the time goes in a PyTorch/Kineto or "
               "Chrome trace.\n(not available yet: issue #3)\n");
        return LAT_EXIT_OK;
    }
    pr_err("'latscope analyze' is not available in this build yet (issue #3)\n");
    return LAT_EXIT_FAILURE;
}
