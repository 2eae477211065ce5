/*
 * hta.c - the doctor's bridge to `latscope analyze` (src/analyze/analysis.h): copies the
 * HTA-compatible numbers of one analysed rank (temporal breakdown, idle breakdown by cause,
 * communication overlap, launch statistics) into a trace summary, so doctor's report carries
 * the same numbers that `latscope analyze` and Holistic Trace Analysis print. The doctor's own
 * rules use step windows and device-wide gaps (ctx.c); these numbers are for cross-checking.
 */
#include "analyze/analysis.h"
#include "core/err.h"
#include "doctor/doctor.h"

int doctor_add_analysis(struct doc_report *r, size_t trace, const struct lat_an_rank *a)
{
    if (!r || !a || trace >= r->ntraces) return LAT_E_USAGE;
    struct doc_hta *h = &r->traces[trace].hta;
    h->valid = true;
    h->temporal_valid = a->temporal.valid;
    h->kernel_time = a->temporal.kernel_time;
    h->idle_pct = a->temporal.idle_pct;
    h->compute_pct = a->temporal.compute_pct;
    h->non_compute_pct = a->temporal.non_compute_pct;
    h->host_wait = h->kernel_wait = h->other_idle = 0;
    for (size_t i = 0; i < a->nidle; i++) {
        h->host_wait += a->idle[i].idle[LAT_IDLE_HOST_WAIT];
        h->kernel_wait += a->idle[i].idle[LAT_IDLE_KERNEL_WAIT];
        h->other_idle += a->idle[i].idle[LAT_IDLE_OTHER];
    }
    h->has_comm = a->has_comm;
    h->comm_comp_overlap_pct = a->comm_comp_overlap_pct;
    h->launches = a->launch.count;
    h->short_kernels = a->launch.short_kernels;
    h->median_launch_delay = a->launch.median_launch_delay;
    return 0;
}
