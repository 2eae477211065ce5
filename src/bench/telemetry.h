/*
 * telemetry.h - GPU telemetry during `latscope bench` (issue 17, AIPerf --gpu-telemetry):
 * utilization, memory, power and clocks per GPU, sampled over each load point next to its
 * latency, from a DCGM exporter (--gpu-metrics-url URL, Prometheus text parsed by llm/prom.h)
 * or from NVML directly (--gpu-telemetry nvml: libnvidia-ml.so.1 is dlopen()ed, never linked).
 *
 * One sampler thread samples only while a point runs: once when it begins, every interval,
 * and once when it ends, so a point's samples are exactly the scrapes made for it. Each sample
 * is one value set per GPU with its CLOCK_MONOTONIC time; a point keeps its series and the
 * per-GPU mean/min/max of each field, and time slices (bench/slices.h) reuse the series.
 *
 *   gpu_telem_config()     --gpu-metrics-url, --gpu-telemetry, --gpu-interval (checked)
 *   gpu_telem_start()      checks the source (one probe scrape / NVML init), starts the thread
 *   gpu_telem_point_begin / _end   around each bench_run_point
 *   gpu_telem_stop()       joins the thread and frees the source
 * Library code: nothing is printed; errors come back as text in why.
 */
#ifndef LAT_BENCH_TELEMETRY_H
#define LAT_BENCH_TELEMETRY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/clock.h"
#include "net/conn.h"

struct jsonw;
struct prom_set;

/* The fields, in DCGM's names and units. */
enum gpu_field {
    GPU_F_UTIL = 0, /* DCGM_FI_DEV_GPU_UTIL, %; NVML utilization.gpu */
    GPU_F_MEM_COPY, /* DCGM_FI_DEV_MEM_COPY_UTIL, %; NVML utilization.memory */
    GPU_F_FB_USED,  /* DCGM_FI_DEV_FB_USED, MiB; NVML memory used */
    GPU_F_FB_FREE,  /* DCGM_FI_DEV_FB_FREE, MiB */
    GPU_F_POWER,    /* DCGM_FI_DEV_POWER_USAGE, W; NVML power usage (mW / 1000) */
    GPU_F_SM_CLOCK, /* DCGM_FI_DEV_SM_CLOCK, MHz */
    GPU_F_MEM_CLOCK,
    GPU_F_TEMP,      /* DCGM_FI_DEV_GPU_TEMP, C */
    GPU_F_GR_ACTIVE, /* DCGM_FI_PROF_GR_ENGINE_ACTIVE, ratio 0..1 (profiling metrics) */
    GPU_F__N,
};
extern const char *const gpu_field_keys[GPU_F__N];  /* JSON keys: "gpu_util_pct", ... */
extern const char *const gpu_field_dcgm[GPU_F__N];  /* "DCGM_FI_DEV_GPU_UTIL", ... */
extern const char *const gpu_field_label[GPU_F__N]; /* text: "util %", ... */

#define GPU_TELEM_MAX_GPUS 64
#define GPU_ID_MAX         24
#define GPU_UUID_MAX       64
#define GPU_MODEL_MAX      64

/* One GPU's values at one instant (have: bit per field present). */
struct gpu_sample {
    lat_ns t;
    uint16_t dev; /* index into the point's dev[] */
    uint16_t have;
    double v[GPU_F__N];
};

struct gpu_dev {
    char id[GPU_ID_MAX];       /* DCGM label gpu (or the NVML index) */
    char uuid[GPU_UUID_MAX];   /* label UUID */
    char model[GPU_MODEL_MAX]; /* label modelName */
};

struct gpu_stat {
    uint64_t n;
    double mean, min, max;
};

/* Statistics of one GPU over an interval. */
struct gpu_dev_stats {
    struct gpu_stat f[GPU_F__N];
};

/* One load point's telemetry (owned by the point; free with gpu_point_free). */
struct gpu_point {
    const char *source; /* "dcgm" or "nvml" */
    bool available;     /* false: the source could not be read (why) */
    char why[256];
    lat_ns t_begin, t_end; /* the point's sampling window (CLOCK_MONOTONIC) */
    uint64_t scrapes, errors;
    size_t ndev;
    struct gpu_dev dev[GPU_TELEM_MAX_GPUS];
    struct gpu_dev_stats st[GPU_TELEM_MAX_GPUS];
    struct gpu_sample *s; /* the series, in time order */
    size_t n;
};
void gpu_point_free(struct gpu_point *p);

/* Per-GPU statistics over the samples of p with t in [t0, t1) (t1 <= t0: every sample).
 * out: p->ndev entries. */
void gpu_point_stats(const struct gpu_point *p, lat_ns t0, lat_ns t1, struct gpu_dev_stats *out);

/* Writes "gpu_telemetry": {...} (or null when p is NULL) into the open JSON object; series
 * times are seconds from t_base. */
void gpu_point_write_json(struct jsonw *w, const struct gpu_point *p, lat_ns t_base);
/* Writes one object member per field with samples: "gpu_util_pct": {"mean", "max"} ... */
void gpu_stats_write_json(struct jsonw *w, const struct gpu_dev_stats *s);
/* Appends the text lines of p ("  GPU telemetry (dcgm, 12 scrapes): ...") to b. */
int gpu_point_format_text(struct lat_buf *b, const struct gpu_point *p);

/*
 * One DCGM exposition already parsed into set -> one gpu_sample per GPU found (appended to
 * *s / *n / *cap; devices matched or added in dev / *ndev by their gpu label, else UUID).
 * Returns the number of GPUs found (0: no DCGM_FI_ series), or -ENOMEM.
 */
int gpu_from_prom(const struct prom_set *set, lat_ns t, struct gpu_dev *dev, size_t *ndev,
                  struct gpu_sample **s, size_t *n, size_t *cap);
/* The value of label `label` in a Prometheus series key name{a="b",...}, unescaped, into
 * out (cut at cap - 1 bytes). Returns true when the label is present and well-formed. */
bool prom_key_label(const char *key, const char *label, char *out, size_t cap);

/* ---- NVML (dlopen) ---- */
struct gpu_nvml;
/* Loads lib (NULL: $LATSCOPE_NVML_LIB, else "libnvidia-ml.so.1") and initializes NVML.
 * 0, or LAT_E_NO_DRIVER / LAT_E_UNSUPPORTED with why saying what is missing. */
int gpu_nvml_open(const char *lib, struct gpu_nvml **out, char *why, size_t whylen);
/* One sample of every device; devices listed in dev / *ndev. 0 or an error. */
int gpu_nvml_sample(struct gpu_nvml *g, lat_ns t, struct gpu_dev *dev, size_t *ndev,
                    struct gpu_sample **s, size_t *n, size_t *cap);
void gpu_nvml_close(struct gpu_nvml *g);

/* ---- the sampler ---- */
enum gpu_telem_mode { GPU_TELEM_OFF = 0, GPU_TELEM_DCGM, GPU_TELEM_NVML };

struct gpu_telem {
    enum gpu_telem_mode mode;
    const char *url;
    lat_ns interval_ns; /* default 500 ms */
    bool available;     /* the source works (else unavailable_why, and points say so) */
    char unavailable_why[256];
    /* DCGM */
    struct conn_target conn;
    bool conn_ok;
    struct lat_buf req;
    /* NVML */
    struct gpu_nvml *nvml;
    /* thread */
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool active, stop;
    unsigned want; /* samples requested now (begin/end) */
    struct gpu_point *cur;
    size_t cap;
};

extern const char gpu_telem_usage[];
/* Fills g from the values of --gpu-metrics-url URL, --gpu-telemetry dcgm|nvml and
 * --gpu-interval D (each NULL when absent). 0 or LAT_E_USAGE with why. */
int gpu_telem_config(struct gpu_telem *g, const char *url, const char *mode, const char *interval,
                     char *why, size_t whylen);
/*
 * With a mode set: DCGM: one probe scrape (a URL that is not a DCGM exporter is LAT_E_USAGE:
 * the caller exits 2); NVML: loads the library: when it cannot, returns 0 with available
 * false and unavailable_why set (the run goes on without telemetry; the caller says so).
 */
int gpu_telem_start(struct gpu_telem *g, char *why, size_t whylen);
/* Starts a point's sampling (one sample now). No-op when off or unavailable. */
void gpu_telem_point_begin(struct gpu_telem *g);
/* Ends it (one sample now) and returns its telemetry (NULL when off); free with
 * gpu_point_free. */
struct gpu_point *gpu_telem_point_end(struct gpu_telem *g);
void gpu_telem_stop(struct gpu_telem *g);

/* dst += src: samples, mean weighted by them, min, max (exact; bench merge and --mpi). */
void gpu_stat_add(struct gpu_stat *dst, const struct gpu_stat *src);
/* qsort comparator of struct gpu_sample by time. */
int gpu_sample_cmp(const void *a, const void *b);

#endif
