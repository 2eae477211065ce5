/* mock-nvml.c - a stand-in libnvidia-ml.so.1 for t263: the NVML calls latscope's GPU telemetry
 * makes (bench/telemetry.c), two devices, values a test can recompute: the k-th utilization
 * read of device i (0-based) reports gpu = (7 k + 3 i) mod 100, memory = 5 + i; memory used
 * (1000 + i) MiB of 81559 MiB; power (250000 + 1000 i) mW; SM clock 1980 - 10 i MHz; memory
 * clock 2619 MHz; temperature 50 + i C. MOCK_NVML_FAIL_INIT=1: nvmlInit_v2 fails with
 * NVML_ERROR_DRIVER_NOT_LOADED (9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dev_st *dev_t_;
struct util {
    unsigned int gpu, memory;
};
struct mem {
    unsigned long long total, free, used;
};
static unsigned reads[2];

static int idx(dev_t_ d)
{
    long v = (long)(size_t)d - 1;
    return v == 0 || v == 1 ? (int)v : -1;
}
int nvmlInit_v2(void)
{
    const char *f = getenv("MOCK_NVML_FAIL_INIT");
    return f && *f == '1' ? 9 : 0;
}
int nvmlShutdown(void)
{
    return 0;
}
const char *nvmlErrorString(int r)
{
    return r == 9 ? "Driver Not Loaded" : "Unknown Error";
}
int nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = 2;
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, dev_t_ *d)
{
    if (i > 1) return 2;
    *d = (dev_t_)(size_t)(i + 1);
    return 0;
}
int nvmlDeviceGetName(dev_t_ d, char *s, unsigned int n)
{
    snprintf(s, n, "Mock H200");
    return idx(d) < 0 ? 2 : 0;
}
int nvmlDeviceGetUUID(dev_t_ d, char *s, unsigned int n)
{
    snprintf(s, n, "GPU-mock-%d", idx(d));
    return idx(d) < 0 ? 2 : 0;
}
int nvmlDeviceGetUtilizationRates(dev_t_ d, struct util *u)
{
    int i = idx(d);
    if (i < 0) return 2;
    u->gpu = (7 * reads[i] + 3 * (unsigned)i) % 100;
    u->memory = 5 + (unsigned)i;
    reads[i]++;
    return 0;
}
int nvmlDeviceGetMemoryInfo(dev_t_ d, struct mem *m)
{
    int i = idx(d);
    m->total = 81559ULL << 20;
    m->used = (1000ULL + (unsigned)i) << 20;
    m->free = m->total - m->used;
    return i < 0 ? 2 : 0;
}
int nvmlDeviceGetPowerUsage(dev_t_ d, unsigned int *mw)
{
    *mw = 250000 + 1000 * (unsigned)idx(d);
    return 0;
}
int nvmlDeviceGetClockInfo(dev_t_ d, int type, unsigned int *mhz)
{
    *mhz = type == 1 ? 1980 - 10 * (unsigned)idx(d) : type == 2 ? 2619 : 0;
    return type == 1 || type == 2 ? 0 : 3;
}
int nvmlDeviceGetTemperature(dev_t_ d, int sensor, unsigned int *c)
{
    *c = 50 + (unsigned)idx(d);
    return sensor == 0 ? 0 : 3;
}
