/*
 * meta.c - the metadata of a `latscope trace` trace (meta.h).
 */
#include "capture/meta.h"

#include "core/buf.h"
#include "core/features.h"
#include "core/jsonw.h"
#include "core/redact.h"

#include <errno.h>
#include <string.h>

static int meta_json(struct lat_trace *t, const char *key, struct jsonw *w)
{
    uint32_t k, v;
    int rc = jsonw_finish(w);
    if (!rc) rc = lat_trace_intern(t, key, strlen(key), &k);
    if (!rc) rc = lat_trace_intern(t, w->buf.data ? w->buf.data : "null", w->buf.len, &v);
    if (!rc) rc = lat_trace_add_meta(t, k, v);
    jsonw_fini(w);
    return rc;
}

bool capture_meta_env_kept(const char *name, size_t n)
{
    static const char *const pre[] = {
        "CUDA",         "NCCL",   "TORCH", "PYTORCH", "CUBLAS",          "CUDNN",
        "NVIDIA",       "TRITON", "NVTX",  "TF32",    "OMP_NUM_THREADS", "MKL_NUM_THREADS",
        "TENSORRT",     "TRT_",   "ORT_",  "CUPTI",   "LATSCOPE",        "HF_",
        "TRANSFORMERS", "VLLM",   NULL};
    for (size_t i = 0; pre[i]; i++) {
        size_t l = strlen(pre[i]);
        if (n >= l && strncmp(name, pre[i], l) == 0) return true;
    }
    return false;
}

/* The command line, each argument through lat_redact_buf (a secret option's value too). */
static int meta_command(struct lat_trace *t, char **cmd)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_arr_begin(&w);
    bool hide_next = false;
    struct lat_buf red = LAT_BUF_INIT;
    for (size_t i = 0; cmd && cmd[i]; i++) {
        buf_reset(&red);
        if (lat_redact_buf(&red, cmd[i], &hide_next) < 0) {
            buf_fini(&red);
            jsonw_fini(&w);
            return -ENOMEM;
        }
        jsonw_str(&w, red.data);
    }
    buf_fini(&red);
    jsonw_arr_end(&w);
    return meta_json(t, "latscope_command", &w);
}

/* CUDA/NCCL/torch-related variables only; secret-looking names are REDACTED. */
static int meta_env(struct lat_trace *t, char **env)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_obj_begin(&w);
    for (char **e = env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        size_t n = (size_t)(eq - *e);
        if (!capture_meta_env_kept(*e, n)) continue;
        char name[256];
        if (n >= sizeof(name)) continue;
        memcpy(name, *e, n);
        name[n] = 0;
        jsonw_key(&w, name);
        jsonw_str(&w, lat_meta_is_secret(name) ? "REDACTED" : eq + 1);
    }
    jsonw_obj_end(&w);
    return meta_json(t, "latscope_env", &w);
}

static void capture_statuses(struct jsonw *w, const struct collect_stats *st)
{
    jsonw_key(w, "status");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < st->nmsgs; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "pid");
        jsonw_u64(w, st->msgs[i].pid);
        jsonw_key(w, "kind");
        jsonw_str(w, collect_status_name(st->msgs[i].code));
        jsonw_key(w, "message");
        jsonw_str(w, st->msgs[i].text);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static int meta_capture(struct lat_trace *t, const struct capture_meta *m)
{
    const struct collect_stats *st = m->st;
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "cuda");
    jsonw_bool(&w, m->cuda);
    jsonw_key(&w, "nvtx");
    jsonw_bool(&w, m->nvtx);
    jsonw_key(&w, "cpu");
    jsonw_bool(&w, m->cpu);
    jsonw_key(&w, "driver");
    jsonw_bool(&w, m->driver);
    if (m->note) {
        jsonw_key(&w, "note");
        jsonw_str(&w, m->note);
    }
    jsonw_key(&w, "wall_ns");
    jsonw_i64(&w, m->wall_ns);
    jsonw_key(&w, "exit_status");
    jsonw_i64(&w, m->exit_status);
    jsonw_key(&w, "delay_ns");
    jsonw_i64(&w, m->delay_ns);
    jsonw_key(&w, "duration_ns");
    jsonw_i64(&w, m->duration_ns);
    jsonw_key(&w, "processes");
    jsonw_u64(&w, st->files);
    jsonw_key(&w, "cupti_dropped");
    jsonw_u64(&w, st->cupti_dropped);
    jsonw_key(&w, "lost_records");
    jsonw_u64(&w, st->lost);
    jsonw_key(&w, "zero_timestamps");
    jsonw_u64(&w, st->zero_ts);
    jsonw_key(&w, "unmatched_nvtx");
    jsonw_u64(&w, st->unmatched_nvtx);
    jsonw_key(&w, "clock_syncs");
    jsonw_u64(&w, st->nsyncs);
    jsonw_key(&w, "clock_steps");
    jsonw_u64(&w, st->clock_steps);
    jsonw_key(&w, "injection_self_ns");
    jsonw_i64(&w, st->self_ns);
    capture_statuses(&w, st);
    jsonw_obj_end(&w);
    return meta_json(t, "latscope_capture", &w);
}

int capture_meta_add(struct lat_trace *t, const struct capture_meta *m)
{
    struct jsonw w;
    int rc;

    jsonw_init(&w, NULL, false);
    jsonw_str(&w, lat_version);
    if ((rc = meta_json(t, "latscope_version", &w))) return rc;
    if ((rc = meta_command(t, m->cmd))) return rc;
    if ((rc = meta_env(t, m->env))) return rc;
    if ((rc = meta_capture(t, m))) return rc;
    if (m->st->cupti_runtime) {
        jsonw_init(&w, NULL, false);
        jsonw_u64(&w, m->st->cupti_runtime);
        if ((rc = meta_json(t, "cupti_version", &w))) return rc;
    }
    jsonw_init(&w, NULL, false);
    jsonw_str(&w, m->output);
    return meta_json(t, "traceName", &w);
}
