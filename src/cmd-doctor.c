/*
 * cmd-doctor.c - `latscope doctor`: ranked findings with evidence, savings and the next step.
 *
 * Not built yet: tracked in issue #4. Until then the command says so and fails (exit 1), so
 * no script mistakes it for a result.
 */
#define PR_FMT "doctor"
#include "core/log.h"
#include "latscope.h"

#include <stdio.h>

int cmd_doctor(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope doctor [OPTIONS]\n\nranked findings with evidence, savings and the "
               "next step.\n(not available yet: issue #4)\n");
        return LAT_EXIT_OK;
    }
    pr_err("'latscope doctor' is not available in this build yet (issue #4)\n");
    return LAT_EXIT_FAILURE;
}
