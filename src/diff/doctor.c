/*
 * doctor.c - a bench result's load points handed to doctor's service rules (doctor/service.h):
 * the one path for `latscope doctor RESULT.json`, `bench --doctor` and `diff`'s service
 * findings. doctor does not read bench JSON itself (diff's reader does), so it does not depend
 * on diff.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core/err.h"

#include "diff/diff.h"
#include "doctor/service.h"

int diff_run_doctor(struct doc_report *r, const struct diff_run *run)
{
    if (!r || !run) return LAT_E_USAGE;
    size_t ns = 0;
    for (size_t i = 0; i < run->npts; i++)
        ns += run->pts[i].nslices;
    struct doc_svc_point *pts = calloc(run->npts ? run->npts : 1, sizeof(*pts));
    struct doc_svc_slice *sl = calloc(ns ? ns : 1, sizeof(*sl));
    if (!pts || !sl) {
        free(pts);
        free(sl);
        return -ENOMEM;
    }
    size_t at = 0;
    for (size_t i = 0; i < run->npts; i++) {
        const struct diff_point *p = &run->pts[i];
        for (size_t k = 0; k < p->nslices; k++) {
            const struct diff_slice *s = &p->slices[k];
            sl[at + k] = (struct doc_svc_slice){s->start_s, s->end_s,   s->requests, s->errors,
                                                s->lat_p50, s->lat_p99, s->lat_max};
        }
        pts[i] = (struct doc_svc_point){
            .load = p->load,
            .valid = p->valid,
            .why = p->why,
            .invalid_client = p->invalid_client,
            .ok = p->ok,
            .errors = p->errors,
            .lat_mean = p->stat[DIFF_F_LAT][0],
            .lat_p50 = p->stat[DIFF_F_LAT][1],
            .lat_p99 = p->stat[DIFF_F_LAT][4],
            .ttfb_p50 = p->stat[DIFF_F_TTFB][1],
            .ttfb_p99 = p->stat[DIFF_F_TTFB][4],
            .send_lag_p99 = p->stat[DIFF_F_SEND_LAG][4],
            .client_cpu_pct = p->client_cpu_pct,
            .max_thread_busy_pct = p->max_thread_busy_pct,
            .inflight_cap_hits = p->inflight_cap_hits,
            .lat_hist = p->hist[DIFF_F_LAT],
            .concurrency = p->concurrency,
            .rate = p->rate,
            .achieved_rps = p->scalar[DIFF_S_THROUGHPUT],
            .duration_s = p->duration_s,
            .stale_retries = p->stale_retries,
            .server_closes = p->server_closes,
            .slow_connects = p->slow_connects,
            .connect_max_ms = p->connect_max_ms,
            .listen_overflows = p->listen_overflows,
            .listen_drops = p->listen_drops,
            .err_connect = p->err_connect,
            .err_timeout = p->err_timeout,
            .err_reset = p->err_reset,
            .err_4xx = p->err_4xx,
            .err_5xx = p->err_5xx,
            .lat_act_mean = p->stat[DIFF_F_LAT_ACT][0],
            .server_count = p->srv_count,
            .server_queue_ms = p->srv_queue_ms,
            .server_input_ms = p->srv_input_ms,
            .server_infer_ms = p->srv_infer_ms,
            .server_output_ms = p->srv_output_ms,
            .slices = p->nslices ? sl + at : NULL,
            .nslices = p->nslices,
            .llm = run->llm && !isnan(p->stat[DIFF_F_TTFT][1]),
            .ttft_mean = p->stat[DIFF_F_TTFT][0],
            .ttft_p50 = p->stat[DIFF_F_TTFT][1],
            .tpot_mean = p->stat[DIFF_F_TPOT][0],
            .tpot_p50 = p->stat[DIFF_F_TPOT][1],
            .itl_p50 = p->stat[DIFF_F_ITL][1],
            .e2e_mean = p->stat[DIFF_F_E2E][0],
            .e2e_p50 = p->stat[DIFF_F_E2E][1],
            .out_tok_per_req = p->scalar[DIFF_S_OUT_TOK_REQ],
            .out_tok_s = p->scalar[DIFF_S_OUT_TOK_S],
            .input_tokens_mean = p->input_tokens_mean,
            .burst_streams = p->burst_streams,
            .burst_ttft_mean_ms = p->burst_ttft_mean_ms,
            .osl_mismatch = p->osl_mismatch,
            .isl_short = p->isl_short,
            .isl_usage_mean = p->isl_usage_mean,
            .isl_sent_mean = p->isl_sent_mean,
        };
        at += p->nslices;
    }
    struct doc_svc_run sr = {.path = run->path,
                             .target = run->target,
                             .mode = run->mode,
                             .threads = run->threads,
                             .fm_slo = run->fm_slo,
                             .fm_max_rate = run->fm_max_rate,
                             .fm_lowest_failing_rate = run->fm_lowest_failing_rate,
                             .pts = pts,
                             .npts = run->npts,
                             .srv = run->srv.present ? &run->srv : NULL};
    int rc = doctor_run_service(r, &sr);
    free(pts);
    free(sl);
    return rc;
}
