/*
 * drops.c - how a loaded trace reports what its reader left out (trace->drops[], bad_fields):
 * one line for people and one JSON object, shared by every consumer that reports on a trace
 * (analyze, doctor, ...) so they all say the same thing. See events.h.
 */
#include "core/err.h"
#include "core/jsonw.h"
#include "model/events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool lat_trace_drop_summary(const struct lat_trace *t, char *buf, size_t n)
{
    if (!n) return false;
    buf[0] = '\0';
    if (!t->dropped && !t->bad_fields && !t->cut_note) return false;
    size_t w = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (w < n) w += (size_t)snprintf(buf + w, n - w, __VA_ARGS__);                             \
    } while (0)
    if (t->dropped) {
        PUT("%llu event%s dropped (", (unsigned long long)t->dropped, t->dropped == 1 ? "" : "s");
        bool first = true;
        for (int r = 0; r < LAT_DROP_REASON_COUNT; r++) {
            if (!t->drops[r]) continue;
            PUT("%s%s: %llu", first ? "" : ", ", lat_drop_reason_desc((enum lat_drop_reason)r),
                (unsigned long long)t->drops[r]);
            first = false;
        }
        PUT(")");
        if (t->drops_gpu || t->drops_step || t->drops_query) {
            PUT(", among them");
            if (t->drops_gpu)
                PUT(" %llu GPU event%s", (unsigned long long)t->drops_gpu,
                    t->drops_gpu == 1 ? "" : "s");
            if (t->drops_step)
                PUT("%s %llu ProfilerStep%s", t->drops_gpu ? " and" : "",
                    (unsigned long long)t->drops_step, t->drops_step == 1 ? "" : "s");
            if (t->drops_query)
                PUT("%s %llu TensorRT quer%s", t->drops_gpu || t->drops_step ? " and" : "",
                    (unsigned long long)t->drops_query, t->drops_query == 1 ? "y" : "ies");
            PUT(": the results miss them");
        }
    }
    if (t->bad_fields)
        PUT("%s%llu field%s with a value of the wrong type ignored", t->dropped ? "; " : "",
            (unsigned long long)t->bad_fields, t->bad_fields == 1 ? "" : "s");
    if (t->cut_note)
        PUT("%scut short: %s", t->dropped || t->bad_fields ? "; " : "",
            lat_trace_str(t, t->cut_note));
#undef PUT
    if (w >= n && n > 4) memcpy(buf + n - 4, "...", 4);
    return true;
}

void lat_trace_drops_json(struct jsonw *w, const struct lat_trace *t)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "total");
    jsonw_u64(w, t->dropped);
    jsonw_key(w, "gpu");
    jsonw_u64(w, t->drops_gpu);
    jsonw_key(w, "steps");
    jsonw_u64(w, t->drops_step);
    jsonw_key(w, "queries");
    jsonw_u64(w, t->drops_query);
    jsonw_key(w, "bad_fields");
    jsonw_u64(w, t->bad_fields);
    jsonw_key(w, "by_reason");
    jsonw_obj_begin(w);
    for (int r = 0; r < LAT_DROP_REASON_COUNT; r++) {
        if (!t->drops[r]) continue;
        jsonw_key(w, lat_drop_reason_name((enum lat_drop_reason)r));
        jsonw_u64(w, t->drops[r]);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "cut_short");
    if (t->cut_note)
        jsonw_str(w, lat_trace_str(t, t->cut_note));
    else
        jsonw_null(w);
    jsonw_obj_end(w);
}

int lat_trace_cut_note(struct lat_trace *t, const char *note)
{
    return lat_trace_intern(t, note, strlen(note), &t->cut_note) ? -ENOMEM : 0;
}

void lat_trace_add_drops(struct lat_trace *t, const uint64_t *drops)
{
    for (int r = 0; r < LAT_DROP_REASON_COUNT; r++) {
        t->drops[r] += drops[r];
        t->dropped += drops[r];
    }
}

static bool time_reason(int r)
{
    return (r >= LAT_DROP_NO_TS && r <= LAT_DROP_DUR_RANGE) ||
           (r >= LAT_DROP_NO_TIME && r <= LAT_DROP_NEG_TIME);
}

int lat_drops_check(const uint64_t *drops, uint64_t bad, uint64_t total, const char *what,
                    const char *fix, char *err, size_t errsz)
{
    if (bad * 2 <= total) return 0;
    if (err && errsz) {
        char why[240] = "";
        size_t w = 0;
        for (int r = 0; r < LAT_DROP_REASON_COUNT && w < sizeof(why); r++)
            if (time_reason(r) && drops[r])
                w += (size_t)snprintf(why + w, sizeof(why) - w, "%s%s: %llu", w ? ", " : "",
                                      lat_drop_reason_desc((enum lat_drop_reason)r),
                                      (unsigned long long)drops[r]);
        snprintf(err, errsz, "%llu of %llu %s have no usable time (%s): %s",
                 (unsigned long long)bad, (unsigned long long)total, what, why, fix);
    }
    return LAT_E_BAD_EVENTS;
}
