/*
 * target.c - the table of bench targets (target.h). What the targets share (reading -d,
 * describing a fixed request) lives below it, in target-util.c: a registry never holds the
 * helpers its plug-ins call (tests/e2e/t005-link-graph.sh).
 *
 * A new target is one file defining its struct bench_target_ops and one row below.
 */
#include "bench/target.h"

#include <string.h>

/* One line per target, in --help order: X(NAME) for the bench_target_NAME of its file. */
#define BENCH_TARGETS(X)                                                                           \
    X(http)                                                                                        \
    X(kserve)                                                                                      \
    X(openai)

#define DECLARE(n) extern const struct bench_target_ops bench_target_##n;
#define ROW(n)     &bench_target_##n,
BENCH_TARGETS(DECLARE)
const struct bench_target_ops *const bench_targets[] = {BENCH_TARGETS(ROW) NULL};

const struct bench_target_ops *bench_target_find(const char *name)
{
    for (size_t i = 0; bench_targets[i]; i++)
        if (!strcmp(bench_targets[i]->name, name)) return bench_targets[i];
    return NULL;
}

const struct bench_target_ops *bench_target_default(const struct http1_url *url)
{
    for (size_t i = 0; bench_targets[i]; i++)
        if (bench_targets[i]->claims && bench_targets[i]->claims(url)) return bench_targets[i];
    return &bench_target_http;
}

const struct bench_topt *bench_target_row(const struct bench_target_ops *ops, const char *lname)
{
    for (const struct bench_topt *o = ops->opts; o && (o->lname || o->help); o++)
        if (o->lname && !strcmp(o->lname, lname)) return o;
    return NULL;
}
