/* test-events.c - the trace model: events, args, tracks, sorting, secrets. */
#include "test.h"

#include "model/events.h"

static struct lat_event ev_at(lat_ns ts, lat_ns dur, uint32_t name)
{
    struct lat_event e = {0};
    e.ts = ts;
    e.dur = dur;
    e.name = name;
    e.stream = -1;
    e.device = -1;
    e.step = -1;
    e.correlation = -1;
    e.external_id = -1;
    e.ph = 'X';
    return e;
}

TEST(trace_add_and_read_back)
{
    struct lat_trace *t;
    uint32_t name, key, ai, tr;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT_RC(lat_trace_intern(t, "aten::mm", 8, &name));
    ASSERT_RC(lat_trace_intern(t, "bytes", 5, &key));
    struct lat_arg a = {.key = key, .type = LAT_ARG_INT, .v.i = 4096};
    ASSERT_RC(lat_trace_add_arg(t, &a, &ai));
    ASSERT_RC(lat_trace_track(t, 1234, 5678, 0, 0, false, &tr));
    for (int i = 0; i < 5000; i++) {
        struct lat_event e = ev_at(i * 10, 5, name);
        e.track = tr;
        e.args = ai;
        e.nargs = 1;
        e.kind = LAT_EV_CPU_OP;
        ASSERT_RC(lat_trace_add_event(t, &e));
    }
    ASSERT_EQ_U64(t->ev.n, 5000);
    struct lat_event back;
    lat_trace_event(t, 4321, &back);
    ASSERT_EQ_I64(back.ts, 43210);
    ASSERT_EQ_STR(lat_trace_str(t, back.name), "aten::mm");
    int64_t v;
    ASSERT(lat_trace_arg_int(t, 4321, "bytes", &v));
    ASSERT_EQ_I64(v, 4096);
    ASSERT(!lat_trace_arg_int(t, 4321, "missing", &v));
    lat_trace_free(t);
}

TEST(trace_tracks_are_unique)
{
    struct lat_trace *t;
    uint32_t a, b, c, d, s;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT_RC(lat_trace_intern(t, "Spans", 5, &s));
    ASSERT_RC(lat_trace_track(t, 0, 7, 0, 0, true, &a));
    ASSERT_RC(lat_trace_track(t, 0, 7, 0, 0, false, &b));
    ASSERT_RC(lat_trace_track(t, 0, 7, 0, 0, true, &c));
    ASSERT_RC(lat_trace_track(t, -1, 7, s, 0, false, &d));
    ASSERT_EQ_U64(a, c);
    ASSERT(a != b);
    ASSERT(d != b);
    for (int i = 0; i < 1000; i++)
        ASSERT_RC(lat_trace_track(t, 1, i, 0, 0, false, &a));
    ASSERT_RC(lat_trace_track(t, 1, 500, 0, 0, false, &b));
    ASSERT_EQ_U64(t->ntracks, 1003);
    ASSERT_EQ_I64(t->tracks[b].tid, 500);
    lat_trace_free(t);
}

TEST(trace_sort_by_ts_then_longer_first)
{
    struct lat_trace *t;
    ASSERT_RC(lat_trace_new(&t));
    lat_ns ts[] = {30, 10, 20, 10, 5};
    lat_ns dur[] = {1, 2, 3, 9, 4};
    for (int i = 0; i < 5; i++) {
        struct lat_event e = ev_at(ts[i], dur[i], (uint32_t)i);
        ASSERT_RC(lat_trace_add_event(t, &e));
    }
    ASSERT_RC(lat_trace_sort(t));
    lat_ns want_ts[] = {5, 10, 10, 20, 30};
    uint32_t want_name[] = {4, 3, 1, 2, 0};
    for (int i = 0; i < 5; i++) {
        ASSERT_EQ_I64(t->ev.ts[i], want_ts[i]);
        ASSERT_EQ_U64(t->ev.name[i], want_name[i]);
    }
    lat_trace_free(t);
}

TEST(meta_secret_keys)
{
    ASSERT(lat_meta_is_secret("HF_TOKEN"));
    ASSERT(lat_meta_is_secret("aws_secret_access_key"));
    ASSERT(lat_meta_is_secret("DB_PASSWORD"));
    ASSERT(lat_meta_is_secret("GOOGLE_APPLICATION_CREDENTIALS"));
    ASSERT(!lat_meta_is_secret("CUDA_VISIBLE_DEVICES"));
    ASSERT(!lat_meta_is_secret("schemaVersion"));
}
