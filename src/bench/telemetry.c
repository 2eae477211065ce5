/*
 * telemetry.c - GPU telemetry during bench points: DCGM exporter scrapes or NVML samples on a
 * sampler thread that runs only while a point runs (bench/telemetry.h).
 */
#include "bench/telemetry.h"

#include "bench/scrape.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "core/units.h"
#include "llm/prom.h"
#include "net/http1.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const gpu_field_keys[GPU_F__N] = {
    "gpu_util_pct", "mem_copy_util_pct", "fb_used_mib", "fb_free_mib",     "power_w",
    "sm_clock_mhz", "mem_clock_mhz",     "gpu_temp_c",  "gr_engine_active"};
const char *const gpu_field_dcgm[GPU_F__N] = {
    "DCGM_FI_DEV_GPU_UTIL",  "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_FB_USED",
    "DCGM_FI_DEV_FB_FREE",   "DCGM_FI_DEV_POWER_USAGE",   "DCGM_FI_DEV_SM_CLOCK",
    "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_GPU_TEMP",      "DCGM_FI_PROF_GR_ENGINE_ACTIVE"};
const char *const gpu_field_label[GPU_F__N] = {"util %",      "mem copy %", "FB used MiB",
                                               "FB free MiB", "power W",    "SM MHz",
                                               "mem MHz",     "temp C",     "gr engine active"};

const char gpu_telem_usage[] =
    "GPU telemetry (per point, over time, next to latency; docs/latscope-bench.md):\n"
    "  --gpu-metrics-url URL    scrape a DCGM exporter (http://HOST:9400/metrics) when each\n"
    "                           point begins, every --gpu-interval, and when it ends\n"
    "  --gpu-telemetry dcgm|nvml  dcgm: --gpu-metrics-url, default\n"
    "                           http://localhost:9400/metrics; nvml: sample NVML instead\n"
    "                           (dlopen libnvidia-ml.so.1; without a driver the run goes on\n"
    "                           without telemetry and says so)\n"
    "  --gpu-interval D         sampling interval (default 500ms)\n";

void gpu_point_free(struct gpu_point *p)
{
    if (!p) return;
    free(p->s);
    free(p);
}

/* ---- statistics ---- */

void gpu_point_stats(const struct gpu_point *p, lat_ns t0, lat_ns t1, struct gpu_dev_stats *out)
{
    memset(out, 0, p->ndev * sizeof(*out));
    for (size_t i = 0; i < p->n; i++) {
        const struct gpu_sample *s = &p->s[i];
        if (t1 > t0 && (s->t < t0 || s->t >= t1)) continue;
        if (s->dev >= p->ndev) continue;
        for (int f = 0; f < GPU_F__N; f++) {
            if (!(s->have & (1u << f))) continue;
            struct gpu_stat *st = &out[s->dev].f[f];
            double v = s->v[f];
            if (!st->n || v < st->min) st->min = v;
            if (!st->n || v > st->max) st->max = v;
            st->mean += v; /* the sum until the end */
            st->n++;
        }
    }
    for (size_t d = 0; d < p->ndev; d++)
        for (int f = 0; f < GPU_F__N; f++)
            if (out[d].f[f].n) out[d].f[f].mean /= (double)out[d].f[f].n;
}

void gpu_stats_write_json(struct jsonw *w, const struct gpu_dev_stats *s)
{
    for (int f = 0; f < GPU_F__N; f++) {
        const struct gpu_stat *st = &s->f[f];
        if (!st->n) continue;
        jsonw_key(w, gpu_field_keys[f]);
        jsonw_obj_begin(w);
        jsonw_key(w, "mean");
        jsonw_double(w, st->mean, 10);
        jsonw_key(w, "min");
        jsonw_double(w, st->min, 10);
        jsonw_key(w, "max");
        jsonw_double(w, st->max, 10);
        jsonw_key(w, "samples");
        jsonw_u64(w, st->n);
        jsonw_obj_end(w);
    }
}

void gpu_point_write_json(struct jsonw *w, const struct gpu_point *p, lat_ns t_base)
{
    jsonw_key(w, "gpu_telemetry");
    if (!p) {
        jsonw_null(w);
        return;
    }
    jsonw_obj_begin(w);
    jsonw_key(w, "source");
    jsonw_str(w, p->source);
    jsonw_key(w, "available");
    jsonw_bool(w, p->available);
    jsonw_key(w, "unavailable_reason");
    if (p->available)
        jsonw_null(w);
    else
        jsonw_str(w, p->why);
    jsonw_key(w, "scrapes");
    jsonw_u64(w, p->scrapes);
    jsonw_key(w, "scrape_errors");
    jsonw_u64(w, p->errors);
    jsonw_key(w, "gpus");
    jsonw_arr_begin(w);
    for (size_t d = 0; d < p->ndev; d++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "gpu");
        jsonw_str(w, p->dev[d].id);
        jsonw_key(w, "uuid");
        jsonw_str(w, p->dev[d].uuid);
        jsonw_key(w, "model");
        jsonw_str(w, p->dev[d].model);
        gpu_stats_write_json(w, &p->st[d]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "series");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < p->n; i++) {
        const struct gpu_sample *s = &p->s[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "t_s");
        jsonw_fixed(w, (double)(s->t - t_base) / 1e9, 6);
        jsonw_key(w, "gpu");
        jsonw_str(w, s->dev < p->ndev ? p->dev[s->dev].id : "?");
        for (int f = 0; f < GPU_F__N; f++) {
            if (!(s->have & (1u << f))) continue;
            jsonw_key(w, gpu_field_keys[f]);
            jsonw_double(w, s->v[f], 10);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

int gpu_point_format_text(struct lat_buf *b, const struct gpu_point *p)
{
    if (!p) return 0;
    if (!p->available)
        return buf_printf(b, "  GPU telemetry (%s): unavailable: %s\n", p->source, p->why);
    int rc = buf_printf(b, "  GPU telemetry (%s, %llu samples, %llu errors)%s\n", p->source,
                        (unsigned long long)p->scrapes, (unsigned long long)p->errors,
                        p->ndev ? ":     mean / max" : ": no GPU seen");
    static const int show[] = {GPU_F_UTIL, GPU_F_MEM_COPY, GPU_F_POWER, GPU_F_FB_USED,
                               GPU_F_SM_CLOCK};
    for (size_t d = 0; d < p->ndev && !rc; d++) {
        rc = buf_printf(b, "    gpu %s%s%s:", p->dev[d].id, p->dev[d].model[0] ? " " : "",
                        p->dev[d].model);
        for (size_t k = 0; k < sizeof(show) / sizeof(show[0]) && !rc; k++) {
            const struct gpu_stat *st = &p->st[d].f[show[k]];
            if (st->n)
                rc = buf_printf(b, "  %s %.1f / %.6g", gpu_field_label[show[k]], st->mean, st->max);
        }
        if (!rc) rc = buf_putc(b, '\n');
    }
    return rc < 0 ? rc : 0;
}

/* ---- DCGM exposition -> samples ---- */

bool prom_key_label(const char *key, const char *label, char *out, size_t cap)
{
    const char *p = strchr(key, '{');
    size_t ll = strlen(label);
    if (!p || cap == 0) return false;
    p++;
    for (;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == '}' || !*p) return false;
        const char *name = p;
        while (*p && *p != '=' && *p != '}' && *p != ',')
            p++;
        size_t nl = (size_t)(p - name);
        while (nl && name[nl - 1] == ' ')
            nl--;
        if (*p != '=') return false;
        p++;
        while (*p == ' ')
            p++;
        if (*p != '"') return false;
        p++;
        bool match = nl == ll && !memcmp(name, label, ll);
        size_t o = 0;
        while (*p && *p != '"') {
            char c = *p++;
            if (c == '\\') {
                if (!*p) return false;
                c = *p++;
                if (c == 'n') c = '\n';
            }
            if (match && o + 1 < cap) out[o++] = c;
        }
        if (*p != '"') return false;
        p++;
        if (match) {
            out[o] = '\0';
            return true;
        }
    }
}

/* The device index of id (added when new; -1 when the table is full). */
static int dev_index(struct gpu_dev *dev, size_t *ndev, const char *id, const char *uuid,
                     const char *model)
{
    for (size_t i = 0; i < *ndev; i++)
        if (!strcmp(dev[i].id, id)) return (int)i;
    if (*ndev == GPU_TELEM_MAX_GPUS) return -1;
    struct gpu_dev *d = &dev[(*ndev)++];
    snprintf(d->id, sizeof(d->id), "%s", id);
    snprintf(d->uuid, sizeof(d->uuid), "%s", uuid);
    snprintf(d->model, sizeof(d->model), "%s", model);
    return (int)(*ndev - 1);
}

int gpu_from_prom(const struct prom_set *set, lat_ns t, struct gpu_dev *dev, size_t *ndev,
                  struct gpu_sample **s, size_t *n, size_t *cap)
{
    int slot[GPU_TELEM_MAX_GPUS]; /* this scrape's sample of each device, -1 none */
    for (int i = 0; i < GPU_TELEM_MAX_GPUS; i++)
        slot[i] = -1;
    int found = 0;
    for (size_t i = 0; i < set->n; i++) {
        const struct prom_sample *ps = &set->s[i];
        int f = -1;
        for (int k = 0; k < GPU_F__N && f < 0; k++)
            if (strlen(gpu_field_dcgm[k]) == ps->name_len &&
                !memcmp(ps->key, gpu_field_dcgm[k], ps->name_len))
                f = k;
        if (f < 0) continue;
        char gpu[GPU_ID_MAX - 8] = "", inst[8] = "", id[GPU_ID_MAX], uuid[GPU_UUID_MAX] = "",
                              model[GPU_MODEL_MAX] = "";
        prom_key_label(ps->key, "UUID", uuid, sizeof(uuid));
        prom_key_label(ps->key, "modelName", model, sizeof(model));
        if (!prom_key_label(ps->key, "gpu", gpu, sizeof(gpu)))
            snprintf(gpu, sizeof(gpu), "%s", uuid[0] ? uuid : "0");
        /* A MIG instance is its own device: gpu/GPU_I_ID. */
        if (prom_key_label(ps->key, "GPU_I_ID", inst, sizeof(inst)) && inst[0])
            snprintf(id, sizeof(id), "%s/%s", gpu, inst);
        else
            snprintf(id, sizeof(id), "%s", gpu);
        int d = dev_index(dev, ndev, id, uuid, model);
        if (d < 0) continue;
        if (slot[d] < 0) {
            if (LAT_GROW(*s, *cap, *n, 1, 64)) return -ENOMEM;
            struct gpu_sample *x = &(*s)[*n];
            memset(x, 0, sizeof(*x));
            x->t = t;
            x->dev = (uint16_t)d;
            slot[d] = (int)(*n)++;
            found++;
        }
        struct gpu_sample *x = &(*s)[slot[d]];
        if (x->have & (1u << f)) continue; /* the first series of a field wins */
        x->have |= (uint16_t)(1u << f);
        x->v[f] = ps->value;
    }
    return found;
}

/* ---- NVML ---- */

typedef struct nvml_dev_st *nvml_dev;
struct nvml_util {
    unsigned int gpu, memory;
};
struct nvml_mem {
    unsigned long long total, free, used;
};

struct gpu_nvml {
    void *h;
    int (*init)(void);
    int (*shutdown)(void);
    int (*count)(unsigned int *);
    int (*handle)(unsigned int, nvml_dev *);
    int (*name)(nvml_dev, char *, unsigned int);
    int (*uuid)(nvml_dev, char *, unsigned int);
    int (*util)(nvml_dev, struct nvml_util *);
    int (*mem)(nvml_dev, struct nvml_mem *);
    int (*power)(nvml_dev, unsigned int *);
    int (*clock)(nvml_dev, int, unsigned int *);
    int (*temp)(nvml_dev, int, unsigned int *);
    const char *(*errstr)(int);
    unsigned ndev;
};

int gpu_nvml_open(const char *lib, struct gpu_nvml **out, char *why, size_t whylen)
{
    *out = NULL;
    if (!lib) lib = getenv("LATSCOPE_NVML_LIB");
    if (!lib || !*lib) lib = "libnvidia-ml.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, whylen,
                 "cannot load %s (%s): no NVIDIA driver on this machine, or its library is "
                 "not on the loader path",
                 lib, e ? e : "not found");
        return LAT_E_NO_DRIVER;
    }
    struct gpu_nvml *g = calloc(1, sizeof(*g));
    if (!g) {
        dlclose(h);
        return -ENOMEM;
    }
    g->h = h;
#define SYM(field, name)                                                                           \
    do {                                                                                           \
        *(void **)&g->field = dlsym(h, name);                                                      \
    } while (0)
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(count, "nvmlDeviceGetCount_v2");
    SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
    SYM(name, "nvmlDeviceGetName");
    SYM(uuid, "nvmlDeviceGetUUID");
    SYM(util, "nvmlDeviceGetUtilizationRates");
    SYM(mem, "nvmlDeviceGetMemoryInfo");
    SYM(power, "nvmlDeviceGetPowerUsage");
    SYM(clock, "nvmlDeviceGetClockInfo");
    SYM(temp, "nvmlDeviceGetTemperature");
    SYM(errstr, "nvmlErrorString");
#undef SYM
    if (!g->init || !g->shutdown || !g->count || !g->handle) {
        snprintf(why, whylen, "%s lacks nvmlInit_v2/nvmlDeviceGetCount_v2 (not NVML, or too old)",
                 lib);
        dlclose(h);
        free(g);
        return LAT_E_UNSUPPORTED;
    }
    int r = g->init();
    if (r != 0) {
        snprintf(why, whylen, "nvmlInit failed: %s (error %d; is the NVIDIA driver loaded?)",
                 g->errstr ? g->errstr(r) : "error", r);
        dlclose(h);
        free(g);
        return LAT_E_NO_DRIVER;
    }
    unsigned int n = 0;
    r = g->count(&n);
    if (r != 0 || n == 0) {
        snprintf(why, whylen, "NVML sees no GPU (%s)",
                 r ? (g->errstr ? g->errstr(r) : "error") : "0 devices");
        g->shutdown();
        dlclose(h);
        free(g);
        return LAT_E_NO_DRIVER;
    }
    g->ndev = n > GPU_TELEM_MAX_GPUS ? GPU_TELEM_MAX_GPUS : n;
    *out = g;
    return 0;
}

int gpu_nvml_sample(struct gpu_nvml *g, lat_ns t, struct gpu_dev *dev, size_t *ndev,
                    struct gpu_sample **s, size_t *n, size_t *cap)
{
    int got = 0;
    for (unsigned i = 0; i < g->ndev; i++) {
        nvml_dev d;
        if (g->handle(i, &d) != 0) continue;
        char id[16], uuid[GPU_UUID_MAX] = "", model[GPU_MODEL_MAX] = "";
        snprintf(id, sizeof(id), "%u", i);
        if (g->uuid) g->uuid(d, uuid, sizeof(uuid));
        if (g->name) g->name(d, model, sizeof(model));
        int k = dev_index(dev, ndev, id, uuid, model);
        if (k < 0) continue;
        if (LAT_GROW(*s, *cap, *n, 1, 64)) return -ENOMEM;
        struct gpu_sample *x = &(*s)[(*n)++];
        memset(x, 0, sizeof(*x));
        x->t = t;
        x->dev = (uint16_t)k;
        struct nvml_util u;
        struct nvml_mem m;
        unsigned int v;
        if (g->util && g->util(d, &u) == 0) {
            x->v[GPU_F_UTIL] = u.gpu;
            x->v[GPU_F_MEM_COPY] = u.memory;
            x->have |= 1u << GPU_F_UTIL | 1u << GPU_F_MEM_COPY;
        }
        if (g->mem && g->mem(d, &m) == 0) {
            x->v[GPU_F_FB_USED] = (double)m.used / (1024.0 * 1024.0);
            x->v[GPU_F_FB_FREE] = (double)m.free / (1024.0 * 1024.0);
            x->have |= 1u << GPU_F_FB_USED | 1u << GPU_F_FB_FREE;
        }
        if (g->power && g->power(d, &v) == 0) {
            x->v[GPU_F_POWER] = v / 1000.0;
            x->have |= 1u << GPU_F_POWER;
        }
        if (g->clock && g->clock(d, 1 /* NVML_CLOCK_SM */, &v) == 0) {
            x->v[GPU_F_SM_CLOCK] = v;
            x->have |= 1u << GPU_F_SM_CLOCK;
        }
        if (g->clock && g->clock(d, 2 /* NVML_CLOCK_MEM */, &v) == 0) {
            x->v[GPU_F_MEM_CLOCK] = v;
            x->have |= 1u << GPU_F_MEM_CLOCK;
        }
        if (g->temp && g->temp(d, 0 /* NVML_TEMPERATURE_GPU */, &v) == 0) {
            x->v[GPU_F_TEMP] = v;
            x->have |= 1u << GPU_F_TEMP;
        }
        got++;
    }
    return got ? 0 : LAT_E_NO_DRIVER;
}

void gpu_nvml_close(struct gpu_nvml *g)
{
    if (!g) return;
    g->shutdown();
    dlclose(g->h);
    free(g);
}

/* ---- options ---- */

int gpu_telem_config(struct gpu_telem *g, const char *url, const char *mode, const char *interval,
                     char *why, size_t whylen)
{
    memset(g, 0, sizeof(*g));
    g->interval_ns = 500 * LAT_NS_PER_MS;
    g->url = url;
    if (mode && strcmp(mode, "dcgm") && strcmp(mode, "nvml")) {
        snprintf(why, whylen, "--gpu-telemetry: expected dcgm or nvml");
        return LAT_E_USAGE;
    }
    if (mode && !strcmp(mode, "dcgm") && !g->url)
        g->url = "http://localhost:9400/metrics"; /* dcgm-exporter's port (AIPerf's default) */
    if (mode && !strcmp(mode, "nvml") && g->url) {
        snprintf(why, whylen, "--gpu-telemetry nvml: drop --gpu-metrics-url (or use dcgm)");
        return LAT_E_USAGE;
    }
    g->mode = g->url ? GPU_TELEM_DCGM : mode ? GPU_TELEM_NVML : GPU_TELEM_OFF;
    if (interval) {
        lat_ns ns;
        if (units_parse_duration(interval, LAT_NS_PER_S, &ns) < 0 || ns < LAT_NS_PER_MS) {
            snprintf(why, whylen, "--gpu-interval: expected a duration >= 1ms such as 500ms");
            return LAT_E_USAGE;
        }
        if (g->mode == GPU_TELEM_OFF) {
            snprintf(why, whylen, "--gpu-interval: needs --gpu-metrics-url or --gpu-telemetry");
            return LAT_E_USAGE;
        }
        g->interval_ns = ns;
    }
    return 0;
}

/* ---- sampling ---- */

/* One sample of every GPU into g->cur (called without the lock: only this thread and the
 * end, after the thread stopped sampling, touch cur->s). */
static void sample_once(struct gpu_telem *g, struct gpu_point *p)
{
    lat_ns t0 = clock_now_ns();
    int rc;
    if (g->mode == GPU_TELEM_DCGM) {
        struct prom_set set = {0};
        rc = llm_bench_scrape(&g->conn, g->req.data, g->req.len, &set);
        lat_ns t = t0 + (clock_now_ns() - t0) / 2;
        if (!rc) {
            rc = gpu_from_prom(&set, t, p->dev, &p->ndev, &p->s, &p->n, &g->cap);
            if (rc == 0) rc = LAT_E_NOT_FOUND; /* no DCGM series in this scrape */
            if (rc > 0) rc = 0;
        }
        prom_set_fini(&set);
    } else {
        rc = gpu_nvml_sample(g->nvml, t0, p->dev, &p->ndev, &p->s, &p->n, &g->cap);
    }
    if (rc)
        p->errors++;
    else
        p->scrapes++;
}

static void *sampler_main(void *arg)
{
    struct gpu_telem *g = arg;
    pthread_mutex_lock(&g->mu);
    lat_ns next = 0;
    while (!g->stop) {
        lat_ns now = clock_now_ns();
        if (g->active && (g->want || now >= next)) {
            struct gpu_point *p = g->cur;
            unsigned want = g->want;
            pthread_mutex_unlock(&g->mu);
            sample_once(g, p);
            pthread_mutex_lock(&g->mu);
            next = clock_now_ns() + g->interval_ns;
            if (want) {
                g->want = 0;
                pthread_cond_broadcast(&g->cv);
                /* the first sample of a point starts its interval */
            }
            continue;
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        lat_ns wait = g->active ? next - now : 100 * LAT_NS_PER_MS;
        if (wait < 0) wait = 0;
        lat_ns abs = (lat_ns)ts.tv_sec * LAT_NS_PER_S + ts.tv_nsec + wait;
        ts.tv_sec = abs / LAT_NS_PER_S;
        ts.tv_nsec = abs % LAT_NS_PER_S;
        pthread_cond_timedwait(&g->cv, &g->mu, &ts);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

int gpu_telem_start(struct gpu_telem *g, char *why, size_t whylen)
{
    g->available = false;
    if (g->mode == GPU_TELEM_OFF) return 0;
    if (g->mode == GPU_TELEM_DCGM) {
        struct http1_url u;
        const char *w = NULL;
        if (http1_url_parse(g->url, &u, &w) < 0) {
            snprintf(why, whylen, "--gpu-metrics-url %s: %s", g->url, w ? w : "bad URL");
            return LAT_E_USAGE;
        }
        int rc = conn_target_init(&g->conn, u.host, u.port, u.tls, true);
        if (rc < 0) {
            snprintf(why, whylen, "--gpu-metrics-url %s: cannot resolve %s", g->url, u.host);
            return LAT_E_USAGE;
        }
        g->conn_ok = true;
        rc = http1_build_request(&g->req, "GET", u.hostport, u.path, NULL, 0, NULL, 0);
        if (rc) return rc;
        struct prom_set set = {0};
        int status = 0;
        rc = llm_bench_scrape_status(&g->conn, g->req.data, g->req.len, &set, &status);
        struct gpu_point probe;
        memset(&probe, 0, sizeof(probe));
        size_t cap = 0;
        int found =
            rc ? 0 : gpu_from_prom(&set, 0, probe.dev, &probe.ndev, &probe.s, &probe.n, &cap);
        free(probe.s);
        prom_set_fini(&set);
        if (rc || found <= 0) {
            char what[96];
            if (rc && status && (status < 200 || status >= 300))
                snprintf(what, sizeof(what), "the server answered HTTP %d", status);
            else if (rc)
                snprintf(what, sizeof(what), "%s",
                         rc == LAT_E_USAGE ? "malformed exposition" : lat_strerror(rc));
            else
                snprintf(what, sizeof(what), "no DCGM_FI_DEV_* series");
            snprintf(why, whylen,
                     "--gpu-metrics-url %s: %s (expected a DCGM exporter, e.g. "
                     "http://HOST:9400/metrics)",
                     g->url, what);
            return LAT_E_USAGE;
        }
    } else {
        int rc = gpu_nvml_open(NULL, &g->nvml, g->unavailable_why, sizeof(g->unavailable_why));
        if (rc == -ENOMEM) return rc;
        if (rc) return 0; /* the run goes on without telemetry */
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the timed wait's clock */
    pthread_cond_init(&g->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&g->th, NULL, sampler_main, g) != 0) {
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        snprintf(why, whylen, "GPU telemetry: cannot start the sampler thread");
        return -EAGAIN;
    }
    g->started = true;
    g->available = true;
    return 0;
}

static struct gpu_point *new_point(const struct gpu_telem *g)
{
    struct gpu_point *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    p->source = g->mode == GPU_TELEM_DCGM ? "dcgm" : "nvml";
    p->available = g->available;
    if (!g->available) snprintf(p->why, sizeof(p->why), "%s", g->unavailable_why);
    return p;
}

/* Asks the thread for one sample now and waits for it. Lock held. */
static void sample_now(struct gpu_telem *g)
{
    g->want = 1;
    pthread_cond_broadcast(&g->cv);
    while (g->want && !g->stop)
        pthread_cond_wait(&g->cv, &g->mu);
}

void gpu_telem_point_begin(struct gpu_telem *g)
{
    if (g->mode == GPU_TELEM_OFF) return;
    if (!g->started) return;
    pthread_mutex_lock(&g->mu);
    g->cur = new_point(g);
    g->cap = 0;
    if (g->cur) {
        g->cur->t_begin = clock_now_ns();
        g->active = true;
        sample_now(g);
    }
    pthread_mutex_unlock(&g->mu);
}

struct gpu_point *gpu_telem_point_end(struct gpu_telem *g)
{
    if (g->mode == GPU_TELEM_OFF) return NULL;
    if (!g->started) return new_point(g); /* unavailable: the point says why */
    pthread_mutex_lock(&g->mu);
    struct gpu_point *p = g->cur;
    if (p) {
        sample_now(g);
        p->t_end = clock_now_ns();
    }
    g->active = false;
    g->cur = NULL;
    pthread_mutex_unlock(&g->mu);
    if (p) gpu_point_stats(p, 0, 0, p->st);
    return p;
}

void gpu_telem_stop(struct gpu_telem *g)
{
    if (g->started) {
        pthread_mutex_lock(&g->mu);
        g->stop = true;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->th, NULL);
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->mu);
        g->started = false;
        gpu_point_free(g->cur);
        g->cur = NULL;
    }
    gpu_nvml_close(g->nvml);
    g->nvml = NULL;
    if (g->conn_ok) conn_target_fini(&g->conn);
    g->conn_ok = false;
    buf_fini(&g->req);
}

void gpu_stat_add(struct gpu_stat *dst, const struct gpu_stat *src)
{
    if (!src->n) return;
    if (!dst->n) {
        *dst = *src;
        return;
    }
    uint64_t n = dst->n + src->n;
    dst->mean = (dst->mean * (double)dst->n + src->mean * (double)src->n) / (double)n;
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
    dst->n = n;
}

int gpu_sample_cmp(const void *a, const void *b)
{
    const struct gpu_sample *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}
