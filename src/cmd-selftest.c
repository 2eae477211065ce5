/*
 * cmd-selftest.c - `latscope selftest`: internal helpers for the test suite.
 *
 * Not built yet: tracked in issue #3. Until then the command says so and fails (exit 1), so
 * no script mistakes it for a result.
 */
#define PR_FMT "selftest"
#include "core/log.h"
#include "latscope.h"

#include <stdio.h>

int cmd_selftest(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope selftest [OPTIONS]\n\ninternal helpers for the test suite.\n(not "
               "available yet: issue #3)\n");
        return LAT_EXIT_OK;
    }
    pr_err("'latscope selftest' is not available in this build yet (issue #3)\n");
    return LAT_EXIT_FAILURE;
}
