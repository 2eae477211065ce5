/*
 * rule-ncu.c - findings of an Nsight Compute report read alone (ingest/ncu.c, numbers from
 * analyze/ncu.c, the same as `latscope analyze`'s Nsight Compute section). ncu's own rules say
 * what it would gain: each kernel whose largest "Estimated Speedup" is >= NCU_SPEEDUP_PCT
 * becomes an ncu-kernel-speedup finding (the three largest savings), its saving = the launch's
 * duration x that speedup (ncu's estimate, an upper bound) against the report's profiled time;
 * launches whose achieved occupancy is below NCU_OCCUPANCY_PCT are listed in one
 * ncu-low-occupancy finding with the block limit that caps them (no saving of its own: ncu's
 * occupancy rules carry it). Given with a timeline, the report's numbers also go into that
 * trace's dominant-kernels finding (rule-kernels.c).
 */
#include "analyze/ncu.h"
#include "doctor/rules.h"
#include "doctor/shell.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What to change for ncu's rule names (the most common ones; others: ncu's own text). */
static const char *advice(const char *rule)
{
    static const struct {
        const char *rule, *what;
    } tab[] = {
        {"TheoreticalOccupancy",
         "occupancy is capped by the launch: fewer registers per thread (__launch_bounds__, "
         "-maxrregcount), less shared memory per block, or another block size; for library "
         "kernels (cuBLAS/cuDNN/CUTLASS) another algorithm or tile (cublasLt heuristics, "
         "TensorRT tactic selection)"},
        {"AchievedOccupancy",
         "warps are not resident as often as the launch allows: imbalanced or too few blocks, "
         "or a tail; more work per launch (a larger batch) or a grid that is a multiple of the "
         "SM count"},
        {"LaunchConfiguration",
         "the grid leaves a partial wave or too few blocks per SM: size the grid to a multiple "
         "of (SMs x blocks per SM), or batch more work into one launch"},
        {"SOLBottleneck",
         "neither compute nor memory is near its peak: the kernel is latency-bound; look at "
         "Scheduler and Warp State Statistics (stalls), raise the parallelism per SM"},
        {"WorkloadImbalance",
         "some SMs or memory slices work less than others: balance the work per block (split "
         "large blocks, avoid data-dependent block sizes)"},
        {"UncoalescedGlobalAccess",
         "global memory accesses are not coalesced: make neighbouring threads touch "
         "neighbouring addresses (layout/transposition, vectorized loads)"},
        {"UncoalescedSharedAccess", "shared memory bank conflicts: pad or swizzle the tiles"},
        {"CPIStall", "warps stall on one reason most of the time: see the Warp State section"},
    };
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (!strcmp(rule, tab[i].rule)) return tab[i].what;
    return NULL;
}

struct pick {
    const struct lat_ncu_launch *l;
    lat_ns saving;
};

static int cmp_pick(const void *a, const void *b)
{
    const struct pick *x = a, *y = b;
    if (x->saving != y->saving) return x->saving > y->saving ? -1 : 1;
    return x->l->id < y->l->id ? -1 : x->l->id > y->l->id;
}

void doc_ncu_evidence(struct doc_ctx *c, struct doc_finding *f, const struct lat_ncu_launch *l,
                      const char *prefix)
{
    char k[64];
#define K(s) (snprintf(k, sizeof(k), "%s%s", prefix, s), k)
    doc_kv_int(c->r, f, K("launch_id"), l->id);
    if (l->has_dur) doc_kv_us(c->r, f, K("duration_us"), l->dur);
    if (l->bound) doc_kv_str(c->r, f, K("bound"), l->bound);
    if (!isnan(l->sm_pct)) doc_kv_num(c->r, f, K("sm_throughput_pct"), l->sm_pct);
    if (!isnan(l->mem_pct)) doc_kv_num(c->r, f, K("memory_throughput_pct"), l->mem_pct);
    if (!isnan(l->achieved_occ)) doc_kv_num(c->r, f, K("achieved_occupancy_pct"), l->achieved_occ);
    if (!isnan(l->theoretical_occ))
        doc_kv_num(c->r, f, K("theoretical_occupancy_pct"), l->theoretical_occ);
    if (l->limiter[0]) doc_kv_str(c->r, f, K("occupancy_limiter"), l->limiter);
    if (l->regs >= 0) doc_kv_int(c->r, f, K("registers_per_thread"), l->regs);
    if (l->nrules) {
        doc_kv_str(c->r, f, K("top_rule"), l->rules[0].name);
        if (!isnan(l->rules[0].speedup_pct))
            doc_kv_num(c->r, f, K("top_rule_speedup_pct"), l->rules[0].speedup_pct);
        if (l->rules[0].description)
            doc_kv_str(c->r, f, K("top_rule_text"), l->rules[0].description);
    }
#undef K
}

void doc_ncu_command(struct doc_ctx *c, const struct lat_ncu_launch *l, char *out, size_t n)
{
    char base[200], stem[48];
    doc_ncu_name(l->kernel, base, sizeof(base));
    char *qre = doc_sh_quote(base, true);
    doc_file_stem(base, 40, stem, sizeof(stem));
    const char *sec = l->nrules && l->rules[0].section ? l->rules[0].section : NULL;
    char *qsec = sec ? doc_sh_quote(sec, false) : NULL;
    if (!qre || (sec && !qsec)) c->r->err = -ENOMEM;
    snprintf(out, n,
             "ncu --set full%s%s --kernel-name regex:%s --launch-count 1 -o %s <your command>",
             qsec ? " --section " : "", qsec ? qsec : "", qre ? qre : "'.*'", stem);
    free(qre);
    free(qsec);
}

DOC_RULE(ncu)
{
    if (!lat_ncu_is(c->t)) return;
    const struct doc_thresholds *th = &c->o->th;
    struct lat_ncu_summary s;
    if (lat_ncu_summarize(c->t, &s)) {
        c->r->err = -ENOMEM;
        return;
    }
    struct pick *p = calloc(s.nlaunches ? s.nlaunches : 1, sizeof(*p));
    if (!p) {
        c->r->err = -ENOMEM;
        lat_ncu_summary_fini(&s);
        return;
    }
    /* the largest saving per kernel name */
    size_t np = 0;
    for (size_t i = 0; i < s.nlaunches; i++) {
        const struct lat_ncu_launch *l = &s.launches[i];
        if (isnan(l->max_speedup_pct) || l->max_speedup_pct < th->ncu_speedup_pct || !l->has_dur)
            continue;
        lat_ns sv = (lat_ns)((double)l->dur * l->max_speedup_pct / 100.0);
        size_t j = 0;
        for (; j < np && strcmp(p[j].l->kernel, l->kernel); j++) {
        }
        if (j == np)
            np++;
        else if (p[j].saving >= sv)
            continue;
        p[j] = (struct pick){l, sv};
    }
    qsort(p, np, sizeof(*p), cmp_pick);
    char b1[32], cmd[1400];
    for (size_t i = 0; i < np && i < 3 && !c->r->err; i++) {
        const struct lat_ncu_launch *l = p[i].l;
        const struct lat_ncu_rule *u = &l->rules[0];
        struct doc_finding *f = doc_finding_add(c->r, "ncu-kernel-speedup", c->trace);
        if (!f) break;
        doc_saving(f, p[i].saving, s.total);
        char base[200];
        doc_ncu_name(l->kernel, base, sizeof(base));
        doc_set(c->r, &f->title,
                "%s (launch %lld, %s, %s-bound): ncu estimates up to %.1f %% "
                "faster (%s)",
                base, (long long)l->id, doc_fmt_ns(l->dur, b1, sizeof(b1)),
                l->bound ? l->bound : "?", u->speedup_pct, u->name);
        doc_set(c->r, &f->saving_method,
                "ncu's Estimated Speedup of its rule %s (%s) times the launch's duration, against "
                "the %s of kernel time the report profiled; ncu's estimate, an upper bound",
                u->name, u->speedup_type ? u->speedup_type : "?",
                doc_fmt_ns(s.total, b1, sizeof(b1)));
        doc_kv_str(c->r, f, "kernel", l->kernel);
        doc_ncu_evidence(c, f, l, "");
        doc_kv_num(c->r, f, "threshold_pct", th->ncu_speedup_pct);
        for (size_t q = 0; q < l->nrules && q < 5; q++) {
            doc_row_begin(c->r, f, "rules");
            doc_kv_str(c->r, f, "name", l->rules[q].name);
            if (l->rules[q].section) doc_kv_str(c->r, f, "section", l->rules[q].section);
            if (!isnan(l->rules[q].speedup_pct))
                doc_kv_num(c->r, f, "estimated_speedup_pct", l->rules[q].speedup_pct);
            doc_row_end(f);
        }
        const char *a = advice(u->name);
        doc_set(c->r, &f->recommendation, "ncu %s: %s%s%s", u->name,
                u->description ? u->description : "(no text)", a ? " What to change: " : "",
                a ? a : "");
        doc_ncu_command(c, l, cmd, sizeof(cmd));
        doc_set(c->r, &f->next_step, "%s", cmd);
    }
    /* low achieved occupancy, longest first */
    size_t nlow = 0;
    for (size_t i = 0; i < s.nlaunches; i++)
        if (!isnan(s.launches[i].achieved_occ) &&
            s.launches[i].achieved_occ < th->ncu_occupancy_pct)
            p[nlow++] = (struct pick){&s.launches[i], s.launches[i].dur};
    qsort(p, nlow, sizeof(*p), cmp_pick);
    if (nlow && !c->r->err) {
        struct doc_finding *f = doc_finding_add(c->r, "ncu-low-occupancy", c->trace);
        if (f) {
            doc_saving(f, 0, s.total);
            const struct lat_ncu_launch *l = p[0].l;
            char base[200];
            doc_ncu_name(l->kernel, base, sizeof(base));
            doc_set(c->r, &f->title,
                    "%zu launch%s below %.0f %% achieved occupancy; the longest, %s, reaches %.1f "
                    "%% (theoretical %.1f %%%s%s)",
                    nlow, nlow == 1 ? "" : "es", th->ncu_occupancy_pct, base, l->achieved_occ,
                    l->theoretical_occ, l->limiter[0] ? ", limited by " : "", l->limiter);
            doc_set(c->r, &f->saving_method,
                    "not estimated here: ncu's occupancy rules carry the estimate "
                    "(ncu-kernel-speedup)");
            doc_kv_num(c->r, f, "threshold_pct", th->ncu_occupancy_pct);
            for (size_t i = 0; i < nlow && i < 5; i++) {
                doc_row_begin(c->r, f, "launches");
                doc_kv_str(c->r, f, "kernel", p[i].l->kernel);
                doc_ncu_evidence(c, f, p[i].l, "");
                doc_row_end(f);
            }
            doc_set(c->r, &f->recommendation,
                    "Low occupancy hides less latency. When the limit is registers or shared "
                    "memory, the launch caps it (fewer registers per thread via "
                    "__launch_bounds__/-maxrregcount, smaller tiles, another block size, or for "
                    "library kernels another algorithm/tactic); when achieved is far below "
                    "theoretical, the grid is too small or imbalanced (more work per launch, a "
                    "larger batch).");
            doc_ncu_command(c, l, cmd, sizeof(cmd));
            doc_set(c->r, &f->next_step, "%s", cmd);
        }
    }
    free(p);
    lat_ncu_summary_fini(&s);
}
