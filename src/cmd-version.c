/*
 * cmd-version.c - `latscope version`: the version string from `git describe`, compiled into
 * the generated build/version.c, plus the optional features this build has.
 */
#include "latscope.h"

#include <stdio.h>

int cmd_version(int argc, char **argv, const struct lat_opts *opts)
{
    if (argc > 1 && lat_is_help(argv[1])) {
        printf("usage: latscope version\n\nPrint latscope's version.\n");
        return LAT_EXIT_OK;
    }
    printf("latscope %s\n", lat_version);
    return LAT_EXIT_OK;
}
