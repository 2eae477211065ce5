/*
 * critpath.c - caps each finding's saving bound by its share of the critical path
 * (analyze's critical_path, ../shared/docs/analyses.md §11), where that path is available.
 *
 * Shortening work that is not on the critical path does not shorten the step: a finding can
 * save at most the time its kind of work holds on the critical path. Each finding id maps to
 * the bound types (analyze/critpath.h) its cause shows up as; the cap is their mean time per
 * analysed window (one per ProfilerStep, or the whole trace). Findings whose saving is not
 * "less of that work" (sync points, tail steps, profiler overhead, ORT executor) are not capped:
 * HTA's model gives a sync zero weight and moves its wait onto the GPU work it waits for; see
 * cap_map for the CPU-side findings.
 * Traces without cuda_sync records get no cap: the model then misses every GPU -> CPU wait,
 * so the CPU side would look critical and GPU findings would be capped to nothing.
 */
#include "analyze/analysis.h"
#include "core/err.h"
#include "doctor/doctor.h"
#include "doctor/finding.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define B(x) (1u << (x))

/* Only findings whose cause is time the graph weighs: kernels, copies, communication, launch
 * and allocator calls. Time on a CPU thread between operators (Python, framework code, pre- and
 * post-processing, DataLoader waits) is a zero-weight dependency edge in HTA's model, so the
 * findings about it (host-bound idle, pre/post-processing, the CPU rules) are never capped. */
static const struct {
    const char *id;
    unsigned bounds;
} cap_map[] = {
    {"launch-bound", B(LAT_CP_B_CPU) | B(LAT_CP_B_LAUNCH)},
    {"memcpy-exposed", B(LAT_CP_B_CPU) | B(LAT_CP_B_GPU_COMPUTE)},
    {"dominant-kernels", B(LAT_CP_B_GPU_COMPUTE)},
    {"fp32-no-tensor-cores", B(LAT_CP_B_GPU_COMPUTE)},
    {"underfilled-gpu", B(LAT_CP_B_GPU_COMPUTE)},
    {"exposed-communication", B(LAT_CP_B_GPU_COMM)},
    {"allocator-churn", B(LAT_CP_B_CPU)},
};

unsigned doctor_critpath_bounds(const char *id)
{
    for (size_t k = 0; k < sizeof(cap_map) / sizeof(cap_map[0]); k++)
        if (id && !strcmp(cap_map[k].id, id)) return cap_map[k].bounds;
    return 0;
}

int doctor_cap_by_critical_path(struct doc_report *r, size_t trace, const struct lat_an_rank *a)
{
    if (!r || !a || trace >= r->ntraces) return LAT_E_USAGE;
    size_t nw = 0;
    lat_ns per[LAT_CP_B_COUNT] = {0};
    for (size_t k = 0; k < a->ncritpath; k++) {
        /* without cuda_sync records the model lacks every GPU -> CPU wait (HTA warns that
         * its results could be inaccurate): no cap from it */
        if (!a->critpath[k].ok || !a->critpath[k].has_cuda_sync) continue;
        nw++;
        for (int b = 0; b < LAT_CP_B_COUNT; b++)
            per[b] += a->critpath[k].bound[b];
    }
    if (!nw) return 0;
    lat_ns step_mean = r->traces[trace].step_mean;
    for (size_t i = 0; i < r->n; i++) {
        struct doc_finding *f = &r->f[i];
        if (f->trace != (int)trace || f->saving_us_per_step <= 0) continue;
        unsigned m = doctor_critpath_bounds(f->id);
        if (!m) continue;
        lat_ns cap = 0;
        for (int b = 0; b < LAT_CP_B_COUNT; b++)
            if (m & B(b)) cap += per[b];
        cap /= (lat_ns)nw;
        lat_ns was = (lat_ns)(f->saving_us_per_step * 1000.0 + 0.5);
        if (was <= cap) continue;
        char note[200];
        snprintf(note, sizeof(note),
                 "; capped at its time on the critical path: %.1f us per step (was %.1f us)",
                 (double)cap / 1000.0, (double)was / 1000.0);
        size_t n0 = f->saving_method ? strlen(f->saving_method) : 0;
        char *s = malloc(n0 + strlen(note) + 1);
        if (!s) return -ENOMEM;
        memcpy(s, f->saving_method ? f->saving_method : "", n0);
        strcpy(s + n0, note);
        free(f->saving_method);
        f->saving_method = s;
        doc_saving(f, cap, step_mean);
    }
    return 0;
}
