/*
 * cpuprof_stub.c - placeholder for the CPU sampler until issue #8 lands: every entry point
 * reports LAT_E_UNSUPPORTED so `latscope trace --cpu` fails with a clear message instead of
 * producing an empty profile. The real implementation replaces this file.
 */
#include "capture/cpuprof.h"
#include "core/err.h"

int cpuprof_start(pid_t pid, bool enable_on_exec, const struct cpuprof_opts *opts,
                  struct cpuprof **out)
{
    *out = NULL;
    return LAT_E_UNSUPPORTED;
}

int cpuprof_poll(struct cpuprof *p, int timeout_ms)
{
    return LAT_E_UNSUPPORTED;
}

int cpuprof_stop(struct cpuprof *p)
{
    return LAT_E_UNSUPPORTED;
}

int cpuprof_export(struct cpuprof *p, struct lat_trace *t)
{
    return LAT_E_UNSUPPORTED;
}

int cpuprof_write_folded(struct cpuprof *p, FILE *f)
{
    return LAT_E_UNSUPPORTED;
}

int cpuprof_write_flamegraph(struct cpuprof *p, FILE *f, const char *title)
{
    return LAT_E_UNSUPPORTED;
}

void cpuprof_stats(const struct cpuprof *p, char *buf, size_t len)
{
    if (len) buf[0] = '\0';
}

const char *cpuprof_strerror(int rc)
{
    return "CPU sampling is not built yet (issue #8)";
}

void cpuprof_free(struct cpuprof *p)
{
}
