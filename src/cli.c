/*
 * cli.c - helpers shared by the command files: --help detection, --format parsing and the
 * dying allocators (the CLI may die on out-of-memory; library modules return -ENOMEM).
 */
#include "latscope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lat_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int lat_parse_format(const char *s, unsigned allowed, enum lat_format *out)
{
    static const char *const names[] = {"text", "json", "csv", "md"};
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (s && strcmp(s, names[i]) == 0 && (allowed & (1u << i))) {
            *out = (enum lat_format)i;
            return 0;
        }
    return -1;
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("latscope: out of memory\n", stderr);
        exit(LAT_EXIT_FAILURE);
    }
    return p;
}

void *xcalloc(size_t n, size_t m)
{
    void *p = calloc(n ? n : 1, m ? m : 1);
    if (!p) {
        fputs("latscope: out of memory\n", stderr);
        exit(LAT_EXIT_FAILURE);
    }
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fputs("latscope: out of memory\n", stderr);
        exit(LAT_EXIT_FAILURE);
    }
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}
