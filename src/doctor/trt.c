/*
 * trt.c - what the TensorRT rules share (trt.h).
 */
#include "doctor/trt.h"
#include "doctor/ctx.h"
#include "doctor/shell.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct lat_trt_summary *doc_trt(struct doc_ctx *c)
{
    if (c->trt_done) return c->trt;
    c->trt_done = true;
    if (!lat_trt_is(c->t)) return NULL;
    struct lat_trt_summary *s = calloc(1, sizeof(*s));
    if (!s || lat_trt_summarize(c->t, s)) {
        free(s);
        c->r->err = -ENOMEM;
        return NULL;
    }
    c->trt = s;
    return s;
}

void doc_trt_fini(struct doc_ctx *c)
{
    if (c->trt) lat_trt_summary_fini(c->trt);
    free(c->trt);
    free(c->trt_engine_flag);
    c->trt = NULL;
    c->trt_engine_flag = NULL;
    c->trt_done = false;
}

bool doc_trt_judgeable(const struct lat_trace *t)
{
    if (!lat_trt_is(t)) return false;
    char b[8];
    if (lat_trt_meta(t, "summary.source", b, sizeof(b))) return true;
    uint32_t cl = strtab_find(&t->strs, "trt_layer", 9),
             cq = strtab_find(&t->strs, "trt_compute", 11);
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.cat[i] == cq && cq != UINT32_MAX) return true;
        if (t->ev.cat[i] == cl && cl != UINT32_MAX && !(t->ev.flags[i] & LAT_EVF_NO_DUR))
            return true;
    }
    return false;
}

bool doc_trt_median(const struct lat_trt_summary *s, int m, double *ms, const char **src)
{
    if (s->summary_source && s->p[m].have_median) {
        *ms = s->p[m].median;
        *src = "trtexec's summary";
        return true;
    }
    if (s->nq_kept) {
        *ms = s->q[m].median;
        *src = "exported queries";
        return true;
    }
    return false;
}

double doc_trt_latency_ms(const struct lat_trt_summary *s)
{
    if (s->summary_source && s->p[LAT_TRT_LATENCY].have_mean && s->p[LAT_TRT_LATENCY].mean > 0)
        return s->p[LAT_TRT_LATENCY].mean;
    if (s->nq_kept && s->q[LAT_TRT_LATENCY].mean > 0) return s->q[LAT_TRT_LATENCY].mean;
    double v;
    const char *src;
    if (doc_trt_median(s, LAT_TRT_COMPUTE, &v, &src) && v > 0) return v;
    return s->layers_avg_sum_ms;
}

const char *doc_trt_engine_flag(struct doc_ctx *c)
{
    if (c->trt_engine_flag) return c->trt_engine_flag;
    char model[1024];
    const char *m = lat_trt_meta(c->t, "model.Model", model, sizeof(model));
    const char *p = c->t->path;
    char eng[4096] = "";
    if (p) { /* the TREx prefix (or an export's name without its suffix) is the engine file */
        size_t l = strlen(p);
        static const char *const sfx[] = {".profile.metadata.json", ".build.metadata.json",
                                          ".profile.json",          ".graph.json",
                                          ".timing.json",           ".metadata.json"};
        for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
            size_t k = strlen(sfx[i]);
            if (l > k && !strcmp(p + l - k, sfx[i])) {
                l -= k;
                break;
            }
        }
        if (strstr(p, ".engine") || strstr(p, ".plan") || strstr(p, ".trt"))
            snprintf(eng, sizeof(eng), "%.*s", (int)l, p);
    }
    const char *flag = eng[0] ? "--loadEngine=" : m ? "--onnx=" : "--loadEngine=";
    char *q = doc_sh_quote(eng[0] ? eng : m ? m : "ENGINE", false);
    if (!q) {
        c->r->err = -ENOMEM;
        return "--loadEngine=ENGINE";
    }
    size_t n = strlen(flag) + strlen(q) + 1;
    c->trt_engine_flag = malloc(n);
    if (!c->trt_engine_flag) {
        free(q);
        c->r->err = -ENOMEM;
        return "--loadEngine=ENGINE";
    }
    snprintf(c->trt_engine_flag, n, "%s%s", flag, q);
    free(q);
    return c->trt_engine_flag;
}
