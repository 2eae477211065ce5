/*
 * fuzz-doctor.c - libFuzzer target for the doctor's rules and renderers on arbitrary traces.
 *
 * The input is a trace document (loaded with ingest_mem); whatever loads is run through every
 * rule, joined with `latscope analyze`'s numbers (analysis_run + doctor_add_analysis), ranked and
 * rendered as text, markdown and JSON. Nothing may crash, leak or hang, the
 * savings must be finite and within [0, 100] %, and the JSON must be complete.
 */
#include "analyze/analysis.h"
#include "core/buf.h"
#include "core/jsonw.h"
#include "doctor/doctor.h"
#include "ingest/ingest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    if (ingest_mem(data, size, "fuzz", NULL, &t, err, sizeof(err))) return 0;
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r = NULL;
    if (doctor_report_new(&r)) abort();
    int rc = doctor_run(r, t, &o);
    if (rc) abort(); /* only -ENOMEM could fail, and libFuzzer's inputs are small */
    struct analysis_opts ao;
    struct lat_analysis *a = NULL;
    analysis_opts_default(&ao);
    if (!analysis_run(&t, 1, &ao, &a) && a->nranks && doctor_add_analysis(r, 0, &a->ranks[0]))
        abort();
    analysis_free(a);
    lat_trace_free(t);
    doctor_rank(r);
    for (size_t i = 0; i < r->n; i++) {
        const struct doc_finding *f = &r->f[i];
        if (!isfinite(f->saving_pct) || f->saving_pct < 0 || f->saving_pct > 100) abort();
        if (!f->title || !f->recommendation || !f->next_step || !f->saving_method) abort();
    }
    struct lat_buf b = LAT_BUF_INIT;
    if (doctor_format_text(r, &b, true) || doctor_format_md(r, &b)) abort();
    buf_fini(&b);
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    doctor_write_json(r, &o, &w);
    if (jsonw_finish(&w)) abort();
    jsonw_fini(&w);
    doctor_report_free(r);
    return 0;
}
