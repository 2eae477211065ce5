/*
 * json.c - the JSON documents of `latscope diff --format json` (docs/latscope-diff.md), shared by
 * cmd-diff.c and `latscope report`'s diff pages, so both embed the same document.
 */
#include "core/features.h"
#include "core/jsonw.h"
#include "diff/diff.h"

#include <math.h>
#include <string.h>

int diff_unit_decimals(const char *unit)
{
    if (!strcmp(unit, "ms")) return 3;
    if (!strcmp(unit, "%")) return 3;
    if (!strcmp(unit, "us")) return 3;
    return 1;
}

const char *diff_severity_name(int s)
{
    static const char *const n[] = {"info", "low", "medium", "high"};
    return s >= 0 && s < 4 ? n[s] : "-";
}

static void json_num(struct jsonw *w, const char *key, double v, int dec)
{
    jsonw_key(w, key);
    if (isnan(v) || isinf(v))
        jsonw_null(w);
    else
        jsonw_fixed(w, v, dec);
}

static void json_ci(struct jsonw *w, const char *key, const struct dstat_ci *ci, int dec)
{
    jsonw_key(w, key);
    if (!ci->have) {
        jsonw_null(w);
        return;
    }
    jsonw_arr_begin(w);
    jsonw_fixed(w, ci->lo, dec);
    jsonw_fixed(w, ci->hi, dec);
    jsonw_arr_end(w);
}

static void json_rows(struct jsonw *w, const struct diff_bench_result *res)
{
    jsonw_key(w, "rows");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < res->nrows; i++) {
        const struct diff_row *r = &res->rows[i];
        int dec = diff_unit_decimals(r->unit) + 3;
        jsonw_obj_begin(w);
        jsonw_key(w, "section");
        jsonw_str(w, r->load);
        jsonw_key(w, "metric");
        jsonw_str(w, r->key);
        jsonw_key(w, "label");
        jsonw_str(w, r->label);
        jsonw_key(w, "unit");
        jsonw_str(w, r->unit);
        jsonw_key(w, "lower_is_better");
        jsonw_bool(w, r->lower_better);
        json_num(w, "before", r->before, dec);
        json_num(w, "after", r->after, dec);
        json_num(w, "delta", r->delta, dec);
        json_num(w, "delta_pct", r->delta_pct, 4);
        json_ci(w, "ci", &r->ci, dec);
        json_ci(w, "ci_pct", &r->ci_pct, 4);
        jsonw_key(w, "method");
        jsonw_str(w, r->method ? r->method : "none");
        jsonw_key(w, "verdict");
        jsonw_str(w, diff_verdict_name(r->verdict));
        jsonw_key(w, "why_no_interval");
        if (!r->ci.have && r->ci.why)
            jsonw_str(w, r->ci.why);
        else
            jsonw_null(w);
        jsonw_key(w, "invalid_point");
        jsonw_bool(w, r->flagged);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void json_notes(struct jsonw *w, const struct diff_bench_result *res)
{
    jsonw_key(w, "warnings");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < res->nnotes; i++)
        jsonw_str(w, res->notes[i]);
    jsonw_arr_end(w);
}

static void json_paths(struct jsonw *w, const char *key, const char *const *p, size_t n)
{
    jsonw_key(w, key);
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        jsonw_str(w, p[i]);
    jsonw_arr_end(w);
}

static void json_rules(struct jsonw *w, const struct diff_json_rules *c)
{
    const bool *fired = c ? c->fired : NULL;
    const struct diff_row *const *first = c ? c->first : NULL;
    jsonw_key(w, "fail_if");
    jsonw_arr_begin(w);
    for (size_t k = 0; c && k < c->n; k++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "rule");
        jsonw_str(w, c->rules[k].text);
        jsonw_key(w, "failed");
        jsonw_bool(w, fired[k]);
        jsonw_key(w, "tested");
        jsonw_bool(w, !c->untested[k]);
        jsonw_key(w, "section");
        if (first[k])
            jsonw_str(w, first[k]->load);
        else
            jsonw_null(w);
        jsonw_key(w, "metric");
        if (first[k])
            jsonw_str(w, first[k]->key);
        else
            jsonw_null(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void json_ops(struct jsonw *w, const struct diff_trace_result *r)
{
    jsonw_key(w, "ops");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nops; i++) {
        const struct diff_op *op = &r->ops[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "name");
        jsonw_str(w, op->name);
        jsonw_key(w, "device");
        jsonw_str(w, op->gpu ? "gpu" : "cpu");
        jsonw_key(w, "control_counts");
        jsonw_u64(w, op->count[0]);
        jsonw_key(w, "test_counts");
        jsonw_u64(w, op->count[1]);
        jsonw_key(w, "control_total_duration_us");
        jsonw_ns_as_us(w, op->dur[0]);
        jsonw_key(w, "test_total_duration_us");
        jsonw_ns_as_us(w, op->dur[1]);
        jsonw_key(w, "diff_counts");
        jsonw_i64(w, (int64_t)op->count[1] - (int64_t)op->count[0]);
        jsonw_key(w, "diff_duration_us");
        jsonw_ns_as_us(w, op->dur[1] - op->dur[0]);
        jsonw_key(w, "counts_change_categories");
        jsonw_strn(w, &op->change, 1);
        jsonw_key(w, "status");
        jsonw_str(w, op->status);
        json_num(w, "share_of_step_delta", op->step_share, 6);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void json_findings(struct jsonw *w, const struct diff_finding *findings, size_t n,
                          bool service)
{
    jsonw_key(w, "findings");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        const struct diff_finding *d = &findings[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "id");
        jsonw_str(w, d->id);
        if (service) { /* a bench result's: the load point (null: about the whole run) */
            jsonw_key(w, "load");
            if (d->load[0])
                jsonw_str(w, d->load);
            else
                jsonw_null(w);
        } else {
            jsonw_key(w, "rank");
            jsonw_i64(w, d->rank);
        }
        jsonw_key(w, "status");
        jsonw_str(w, d->status);
        jsonw_key(w, "title");
        jsonw_str(w, d->title);
        for (int side = 0; side < 2; side++) {
            jsonw_key(w, side ? "after" : "before");
            if (!d->in[side]) {
                jsonw_null(w);
                continue;
            }
            jsonw_obj_begin(w);
            jsonw_key(w, "severity");
            jsonw_str(w, diff_severity_name(d->severity[side]));
            json_num(w, "saving_pct", d->saving_pct[side], 4);
            json_num(w, service ? "saving_us_per_request" : "saving_us_per_step",
                     d->saving_us[side], 3);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

double diff_cpu_share(const struct diff_trace_result *r, const uint64_t *k, int side)
{
    return r->cpu_samples[side] ? 100.0 * (double)k[side] / (double)r->cpu_samples[side] : NAN;
}

const char *diff_cpu_verdict(const struct dstat_ci *ci)
{
    if (!ci->have) return "-";
    if (ci->lo > 0) return "larger share";
    if (ci->hi < 0) return "smaller share";
    return "no significant change";
}

static void json_cpu(struct jsonw *w, const struct diff_trace_result *r)
{
    jsonw_key(w, "cpu_samples_before");
    jsonw_u64(w, r->cpu_samples[0]);
    jsonw_key(w, "cpu_samples_after");
    jsonw_u64(w, r->cpu_samples[1]);
    jsonw_key(w, "cpu_functions");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->ncpu; i++) {
        const struct diff_cpu_func *c = &r->cpu[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "function");
        jsonw_str(w, c->name);
        jsonw_key(w, "self_before");
        jsonw_u64(w, c->self[0]);
        jsonw_key(w, "self_after");
        jsonw_u64(w, c->self[1]);
        jsonw_key(w, "total_before");
        jsonw_u64(w, c->total[0]);
        jsonw_key(w, "total_after");
        jsonw_u64(w, c->total[1]);
        json_num(w, "self_pct_before", diff_cpu_share(r, c->self, 0), 4);
        json_num(w, "self_pct_after", diff_cpu_share(r, c->self, 1), 4);
        json_num(w, "total_pct_before", diff_cpu_share(r, c->total, 0), 4);
        json_num(w, "total_pct_after", diff_cpu_share(r, c->total, 1), 4);
        struct dstat_ci s = c->ci_self, t = c->ci_total;
        s.lo *= 100, s.hi *= 100, t.lo *= 100, t.hi *= 100;
        json_ci(w, "ci_self_pct_points", &s, 4);
        json_ci(w, "ci_total_pct_points", &t, 4);
        jsonw_key(w, "verdict");
        jsonw_str(w, diff_cpu_verdict(&c->ci_total));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void diff_bench_write_json(struct jsonw *w, const char *const *a, size_t na, const char *const *b,
                           size_t nb, const struct diff_bench_opts *o,
                           const struct diff_bench_result *res, const struct diff_json_rules *rules)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "kind");
    jsonw_str(w, "bench");
    lat_build_json(w);
    json_paths(w, "before", a, na);
    json_paths(w, "after", b, nb);
    jsonw_key(w, "confidence");
    jsonw_double(w, o->conf, 6);
    jsonw_key(w, "resamples");
    jsonw_u64(w, o->resamples);
    jsonw_key(w, "seed");
    jsonw_u64(w, o->seed);
    jsonw_key(w, "noise_pct");
    jsonw_double(w, o->noise_pct, 6);
    json_notes(w, res);
    json_rows(w, res);
    if (res->service_findings) json_findings(w, res->findings, res->nfindings, true);
    json_rules(w, rules);
    jsonw_obj_end(w);
}

void diff_trace_write_json(struct jsonw *w, const char *a, const char *b,
                           const struct diff_trace_opts *o, const struct diff_trace_result *r,
                           const struct diff_json_rules *rules)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "kind");
    jsonw_str(w, "trace");
    lat_build_json(w);
    json_paths(w, "before", &a, 1);
    json_paths(w, "after", &b, 1);
    jsonw_key(w, "confidence");
    jsonw_double(w, o->conf, 6);
    jsonw_key(w, "steps_before");
    jsonw_u64(w, r->steps[0]);
    jsonw_key(w, "steps_after");
    jsonw_u64(w, r->steps[1]);
    jsonw_key(w, "doctor_steps_before");
    jsonw_u64(w, r->doc_steps[0]);
    jsonw_key(w, "doctor_steps_after");
    jsonw_u64(w, r->doc_steps[1]);
    json_notes(w, &r->scal);
    json_rows(w, &r->scal);
    json_findings(w, r->findings, r->nfindings, false);
    json_ops(w, r);
    json_cpu(w, r);
    json_rules(w, rules);
    jsonw_obj_end(w);
}
