/*
 * util.c - helpers shared by the doctor's rules (internal to src/doctor, declared in rules.h):
 * the worst-examples keeper, sorted accumulator views, labels, percentiles.
 */
#include "core/err.h"
#include "core/units.h"
#include "doctor/ctx.h"
#include "doctor/finding.h"
#include "doctor/rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void doc_top_init(struct doc_top *t, size_t max)
{
    memset(t, 0, sizeof(*t));
    t->max = max > 8 ? 8 : max;
}

void doc_top_add(struct doc_top *t, const struct doc_example *e)
{
    if (!t->max) return;
    size_t pos = t->n;
    if (t->n == t->max) {
        if (e->value <= t->ex[t->n - 1].value) return;
        pos = t->n - 1;
    } else {
        t->n++;
    }
    while (pos > 0 && t->ex[pos - 1].value < e->value) {
        t->ex[pos] = t->ex[pos - 1];
        memcpy(t->names[pos], t->names[pos - 1], sizeof(t->names[0]));
        memcpy(t->notes[pos], t->notes[pos - 1], sizeof(t->notes[0]));
        pos--;
    }
    t->ex[pos] = *e;
    snprintf(t->names[pos], sizeof(t->names[0]), "%s", e->name ? e->name : "");
    snprintf(t->notes[pos], sizeof(t->notes[0]), "%s", e->note ? e->note : "");
}

void doc_top_emit(struct doc_ctx *c, struct doc_finding *f, struct doc_top *t)
{
    for (size_t i = 0; i < t->n; i++) {
        t->ex[i].name = t->names[i];
        t->ex[i].note = t->notes[i][0] ? t->notes[i] : NULL;
        doc_example_add(c->r, f, &t->ex[i]);
    }
}

const char *doc_fmt_ns(lat_ns ns, char *buf, size_t len)
{
    return units_format_duration(ns, buf, len);
}

/* Per step: what a "step" is called in titles. */
const char *doc_per_step(const struct doc_ctx *c)
{
    return c->steps_real ? "step" : "trace window";
}

int doc_cmp_kvpair(const void *x, const void *y)
{
    const struct doc_kvpair *a = x, *b = y;
    if (a->val != b->val) return a->val > b->val ? -1 : 1;
    return (a->key > b->key) - (a->key < b->key);
}

struct doc_kvpair *doc_acc_sorted(const struct doc_acc *a, size_t *n)
{
    struct doc_kvpair *v = malloc((a->n ? a->n : 1) * sizeof(*v));
    *n = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < a->n; i++)
        v[(*n)++] = (struct doc_kvpair){a->rows[i].key, a->rows[i].val, a->rows[i].cnt};
    qsort(v, *n, sizeof(*v), doc_cmp_kvpair);
    return v;
}

/* "name" or "name (under op)" of an attribution key. */
void doc_key_label(const struct doc_ctx *c, uint64_t key, char *buf, size_t len)
{
    uint32_t name = (uint32_t)(key >> 32), under = (uint32_t)key;
    if (under && name != DOC_NAME_NONE && name != DOC_NAME_STEP)
        snprintf(buf, len, "%s (under %s)", doc_key_name(c, name), lat_trace_str(c->t, under));
    else
        snprintf(buf, len, "%s", doc_key_name(c, name));
}

const char *doc_op_name_or(const struct doc_ctx *c, int64_t op, const char *dflt)
{
    return op >= 0 ? doc_name(c, (size_t)op) : dflt;
}

bool doc_meta_true(const struct lat_trace *t, const char *key)
{
    for (size_t i = 0; i < t->nmeta; i++)
        if (strcmp(lat_trace_str(t, t->meta[i].key), key) == 0) {
            const char *v = lat_trace_str(t, t->meta[i].value);
            return strcmp(v, "true") == 0 || strcmp(v, "1") == 0 || strcmp(v, "\"true\"") == 0 ||
                   strcmp(v, "\"1\"") == 0 || strcmp(v, "True") == 0;
        }
    return false;
}

void doc_add_cpu_evidence(struct doc_ctx *c, struct doc_finding *f, int64_t tid,
                          const struct lat_ivl_set *win)
{
    char text[600];
    if (tid < 0 || doc_cpu_evidence(c, f, tid, win, text, sizeof(text)) <= 0 || !text[0]) return;
    doc_set(c->r, &f->title, "%s; %s", f->title ? f->title : "", text);
}

/* Kernel launch statistics inside steps (HTA short-kernel rule). */
/* The next step of a host-side finding: record CPU samples, unless the trace already has them
 * (never ask for what the trace holds); then read them with analyze. `with_samples` follows
 * "latscope analyze <this trace>   # ", `without` follows the trace command. */
void doc_cpu_next_step(struct doc_ctx *c, struct doc_finding *f, const char *with_samples,
                       const char *without)
{
    if (doc_cpu_has_samples(c->t))
        doc_set(c->r, &f->next_step, "latscope analyze <this trace>   # %s", with_samples);
    else
        doc_set(c->r, &f->next_step,
                "latscope trace %s-o run.pt.trace.json.gz -- <your command> %s",
                (c->have & DOC_HAVE_GPU) ? "--cuda --cpu " : "--cpu ", without);
}
