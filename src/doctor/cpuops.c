/*
 * cpuops.c - per-step CPU operator statistics for the CPU-inference rules (rule-cpu-*.c),
 * computed once per trace on the thread that runs each ProfilerStep.
 *
 * Self time per event name comes from doc_attr_window() over the step window (the same
 * attribution the tail rule uses), so nested ops are not counted twice. "Python/framework"
 * time is what lies in the step outside any operator: the ProfilerStep's own self time, time
 * with no event, and the self time of record_function regions that are neither pre/post-
 * processing nor DataLoader (a region such as "model_forward" is Python between the ops it
 * encloses). A compiled graph's region (`## Call CompiledFxGraph ... ##`, torch.compile's
 * Inductor output) is not Python: its self time is the generated kernels' and counts as
 * compiled-kernel time (a Torch-Compiled Region's own time is Python: guards, wrappers). Outermost
 * ops are cpu_ops with no enclosing cpu_op below the step (regions are transparent); their count
 * and length give the small-op (dispatch overhead) statistics.
 */
#include "doctor/rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool doc_is_prepost_name(const char *s)
{
    static const char *const words[] = {
        "preprocess", "postprocess", "pre_process", "post_process", "pre-process", "post-process",
        "tokeniz",    "detokeniz",   "transform",   "decode_image", "resize",      "normaliz",
        "collate",    "augment",     "to_tensor",   "totensor",     "nms",
    };
    char low[128];
    size_t n = 0;
    for (; s[n] && n + 1 < sizeof(low); n++)
        low[n] = (char)tolower((unsigned char)s[n]);
    low[n] = 0;
    for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
        if (strstr(low, words[i])) return true;
    return false;
}

bool doc_is_compiled_name(const char *s)
{
    return strstr(s, "Torch-Compiled Region") || strstr(s, "CompiledFxGraph") ||
           strstr(s, "CompiledFunction") || strstr(s, "TorchDynamo");
}

void doc_cpuops_fini(struct doc_cpuops *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) {
        doc_acc_fini(&p->s[i].self);
        doc_acc_fini(&p->s[i].top);
    }
    free(p->s);
    free(p->contended);
    doc_acc_fini(&p->prepost_by);
    doc_acc_fini(&p->regions_by);
    memset(p, 0, sizeof(*p));
}

static lat_ns clip(lat_ns a, lat_ns b, lat_ns lo, lat_ns hi)
{
    if (a < lo) a = lo;
    if (b > hi) b = hi;
    return b > a ? b - a : 0;
}

/* The thread with the most time in outermost cpu_ops: the one a window without a ProfilerStep
 * is judged on. UINT32_MAX when there is none. */
static uint32_t busiest_track(const struct doc_ctx *c)
{
    const struct lat_trace *t = c->t;
    lat_ns *sum = calloc(t->ntracks ? t->ntracks : 1, sizeof(*sum));
    uint32_t best = UINT32_MAX;
    if (!sum) return best;
    for (size_t i = 0; i < t->ev.n; i++)
        if (t->ev.kind[i] == LAT_EV_CPU_OP && c->parent[i] < 0 && t->ev.dur[i] > 0 &&
            t->ev.track[i] < t->ntracks)
            sum[t->ev.track[i]] += t->ev.dur[i];
    for (uint32_t k = 0; k < t->ntracks; k++)
        if (sum[k] > 0 && (best == UINT32_MAX || sum[k] > sum[best])) best = k;
    free(sum);
    return best;
}

static int build_step(struct doc_ctx *c, struct doc_cpuops *p, size_t si, uint32_t main_tr)
{
    const struct lat_trace *t = c->t;
    struct doc_step stc = c->steps[si];
    const struct doc_step *st = &stc;
    if (stc.track >= t->ntracks) stc.track = main_tr;
    struct doc_cpu_step *cs = &p->s[si];
    int rc = doc_attr_window(c, st->track, st->ts, st->end, &cs->self);
    if (rc) return rc;
    cs->python = doc_acc_get(&cs->self, (uint64_t)DOC_NAME_STEP << 32) +
                 doc_acc_get(&cs->self, (uint64_t)DOC_NAME_NONE << 32);
    if (st->track >= t->ntracks) return 0;
    const uint32_t *ev = c->trk_ev + c->trk_off[st->track];
    size_t m = c->trk_off[st->track + 1] - c->trk_off[st->track];
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ev.ts[ev[mid]] < st->ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    struct doc_acc seen = {0}; /* region names already counted */
    for (size_t k = lo; k < m && t->ev.ts[ev[k]] < st->end && !rc; k++) {
        size_t i = ev[k];
        uint16_t kind = t->ev.kind[i];
        if (kind != LAT_EV_CPU_OP && kind != LAT_EV_USER_ANNOTATION) continue;
        if (doc_is_step_event(c, i)) continue;
        const char *nm = doc_name(c, i);
        lat_ns d = clip(t->ev.ts[i], t->ev.ts[i] + t->ev.dur[i], st->ts, st->end);
        if (doc_is_compiled_name(nm)) p->compiled = true;
        if (doc_is_dataloader(nm)) {
            if (doc_top_op(c, i) < 0 || doc_top_op(c, i) == (int64_t)i) cs->dataloader += d;
            continue;
        }
        if (kind == LAT_EV_USER_ANNOTATION) {
            lat_ns self = doc_acc_get(&cs->self, (uint64_t)t->ev.name[i] << 32);
            /* the accumulator holds the name's self time over the step: count each name once */
            bool first = doc_acc_get(&seen, t->ev.name[i]) == 0;
            if (first && (rc = doc_acc_add(&seen, t->ev.name[i], 1, 1))) break;
            if (doc_is_prepost_name(nm)) {
                /* only the outermost pre/post region counts, so nested ones are not doubled */
                bool nested = false;
                for (int64_t q = c->parent[i]; q >= 0; q = c->parent[q])
                    if (t->ev.kind[q] == LAT_EV_USER_ANNOTATION &&
                        doc_is_prepost_name(doc_name(c, (size_t)q)))
                        nested = true;
                if (!nested) {
                    cs->prepost += d;
                    rc = doc_acc_add(&p->prepost_by, t->ev.name[i], d, 1);
                }
                if (first) cs->prepost_self += self;
            } else if (first && strstr(nm, "CompiledFxGraph")) {
                /* a compiled graph's own time is its generated code (Inductor's C++ kernels,
                 * `<built-in function kernel>` under with_stack), not Python */
                cs->compiled += self;
            } else if (first) {
                cs->regions_self += self;
                cs->python += self;
                rc = doc_acc_add(&p->regions_by, t->ev.name[i], self, 1);
            }
            continue;
        }
        if (doc_enclosing_op(c, i) >= 0) continue; /* not outermost */
        cs->nops++;
        cs->ops += d;
        if (t->ev.dur[i] < c->o->th.cpu_small_op) {
            cs->nsmall++;
            cs->small += d;
        }
        rc = doc_acc_add(&cs->top, t->ev.name[i], d, 1);
    }
    doc_acc_fini(&seen);
    return rc;
}

int doc_cpuops_build(struct doc_ctx *c)
{
    if (c->cpu) return 0;
    struct doc_cpuops *p = calloc(1, sizeof(*p));
    if (!p) return c->r->err = -ENOMEM;
    p->contention_step = -1;
    p->n = c->nsteps;
    p->s = calloc(p->n ? p->n : 1, sizeof(*p->s));
    p->contended = calloc(p->n ? p->n : 1, sizeof(*p->contended));
    int rc = p->s && p->contended ? 0 : -ENOMEM;
    /* With more than ~1000 steps only every stride-th step is decomposed (as in the tail rule),
     * so memory stays bounded on traces with very many short steps. */
    size_t stride = p->n > 1000 ? p->n / 1000 : 1;
    uint32_t main_tr = busiest_track(c);
    for (size_t i = 0; i < p->n && !rc; i += stride) {
        p->s[i].sampled = true;
        p->nsampled++;
        rc = build_step(c, p, i, main_tr);
    }
    c->cpu = p; /* freed by doctor_run, also after a failure */
    if (rc) return c->r->err = rc;
    return 0;
}

lat_ns doc_cpu_mean(const struct doc_cpuops *p, size_t off)
{
    double sum = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->s[i].sampled)
            sum += (double)*(const lat_ns *)(const void *)((const char *)&p->s[i] + off);
    return p->nsampled ? (lat_ns)(sum / (double)p->nsampled) : 0;
}
