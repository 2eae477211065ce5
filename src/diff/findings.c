/*
 * findings.c - doctor's findings of a before and an after input matched into resolved, new,
 * changed and unchanged: the one matcher of diff's trace and bench modes.
 */
#include "core/grow.h"
#include "diff/diff.h"
#include "diff/internal.h"
#include "doctor/doctor.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_finding(const void *x, const void *y)
{
    const struct diff_finding *a = x, *b = y;
    static const char *const order[] = {"resolved", "new", "changed", "unchanged",
                                        "not judged after"};
    int ia = 0, ib = 0;
    for (int i = 0; i < 5; i++) {
        if (strcmp(a->status, order[i]) == 0) ia = i;
        if (strcmp(b->status, order[i]) == 0) ib = i;
    }
    if (ia != ib) return ia - ib;
    double da = fabs(a->saving_pct[1] - a->saving_pct[0]);
    double db = fabs(b->saving_pct[1] - b->saving_pct[0]);
    return (da < db) - (da > db);
}

/* The load point a service finding is about (its "load" evidence), "" when none. */
static const char *finding_load(const struct doc_finding *f)
{
    for (size_t k = 0; k < f->nkv; k++)
        if (f->kv[k].type == DOC_KV_STR && f->kv[k].group == 0 && !strcmp(f->kv[k].key, "load"))
            return f->kv[k].str ? f->kv[k].str : "";
    return "";
}

int diff_findings_match(const struct doc_report *ra, const struct doc_report *rb, bool single,
                        struct diff_finding **findings, size_t *nfindings, size_t *cap)
{
    int rc = 0;
    for (int side = 0; side < 2 && !rc; side++) {
        const struct doc_report *r = side ? rb : ra;
        for (size_t i = 0; i < r->n && !rc; i++) {
            const struct doc_finding *f = &r->f[i];
            int32_t rank =
                f->trace >= 0 && (size_t)f->trace < r->ntraces ? r->traces[f->trace].rank : -1;
            if (single) rank = -1;
            const char *load = finding_load(f);
            struct diff_finding *d = NULL;
            for (size_t k = 0; k < *nfindings && !d; k++)
                if (strcmp((*findings)[k].id, f->id) == 0 && (*findings)[k].rank == rank &&
                    strcmp((*findings)[k].load, load) == 0)
                    d = &(*findings)[k];
            if (!d) {
                if ((rc = LAT_GROW(*findings, *cap, *nfindings, 1, 16))) break;
                d = &(*findings)[(*nfindings)++];
                memset(d, 0, sizeof(*d));
                snprintf(d->id, sizeof(d->id), "%s", f->id);
                snprintf(d->load, sizeof(d->load), "%s", load);
                d->rank = rank;
                d->severity[0] = d->severity[1] = -1;
            }
            if (d->in[side]) continue; /* one finding per (id, rank, load) and side: the top one */
            d->in[side] = true;
            d->saving_pct[side] = f->saving_pct;
            d->saving_us[side] = f->saving_us_per_step;
            d->severity[side] = (int)f->severity;
            if (side == 1 || !d->title[0])
                snprintf(d->title, sizeof(d->title), "%s", f->title ? f->title : "");
        }
    }
    for (size_t k = 0; k < *nfindings; k++) {
        struct diff_finding *d = &(*findings)[k];
        /* "resolved" is a verdict: only when the after side was judged (a rule looked inside
         * its steps; for a step-variance finding, the step rules ran: enough steps) */
        bool judged_after = false;
        const char *fam = doctor_finding_family(d->id);
        bool steps_fam = fam && !strcmp(fam, "steps");
        for (size_t t = 0; !rc && rb && t < rb->ntraces && !judged_after; t++) {
            struct doc_family_use use[16];
            size_t nu = doctor_families(&rb->traces[t], use, 16);
            bool ok = rb->traces[t].judged;
            for (size_t u = 0; u < nu && steps_fam; u++)
                if (!strcmp(use[u].name, "steps")) ok = ok && use[u].ran;
            judged_after = ok;
        }
        d->status =
            !d->in[1] && !judged_after ? "not judged after"
            : !d->in[1]                ? "resolved"
            : !d->in[0]                ? "new"
            : fabs(d->saving_pct[1] - d->saving_pct[0]) >= 0.05 || d->severity[0] != d->severity[1]
                ? "changed"
                : "unchanged";
    }
    if (*nfindings) qsort(*findings, *nfindings, sizeof(**findings), cmp_finding);
    return rc;
}
