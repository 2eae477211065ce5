/*
 * cmd-serve-test.c - `latscope serve-test`: fixture inference server (HTTP, KServe v2) for tests
 * and the demo.
 *
 * Not built yet: tracked in issue #5. Until then the command says so and fails (exit 1), so
 * no script mistakes it for a result.
 */
#define PR_FMT "serve-test"
#include "core/log.h"
#include "latscope.h"

#include <stdio.h>

int cmd_serve_test(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope serve-test [OPTIONS]\n\nload-test an inference server and measure "
               "latency correctly.\n(not available yet: issue #5)\n");
        return LAT_EXIT_OK;
    }
    pr_err("'latscope serve-test' is not available in this build yet (issue #5)\n");
    return LAT_EXIT_FAILURE;
}
