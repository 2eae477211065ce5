/*
 * cmd-trace.c - `latscope trace`: capture CUDA/NVTX/CPU activity of a program into a Kineto trace.
 *
 * Not built yet: tracked in issue #7. Until then the command says so and fails (exit 1), so
 * no script mistakes it for a result.
 */
#define PR_FMT "trace"
#include "core/log.h"
#include "latscope.h"

#include <stdio.h>

int cmd_trace(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope trace [OPTIONS]\n\ncapture CUDA/NVTX/CPU activity of a program "
               "into a Kineto trace.\n(not available yet: issue #7)\n");
        return LAT_EXIT_OK;
    }
    pr_err("'latscope trace' is not available in this build yet (issue #7)\n");
    return LAT_EXIT_FAILURE;
}
