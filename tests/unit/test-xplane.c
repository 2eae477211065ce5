/*
 * test-xplane.c - the TensorFlow .xplane.pb reader (ingest/xplane.c) on XSpaces built here with a
 * small protobuf encoder: planes, lines, events, metadata maps, stats (int, uint, ref, str),
 * sub-ns picosecond offsets, aggregated events; its TensorFlow mapping (graph/eager ops, steps,
 * markers), analyze's TF section numbers on it, TF's trace_viewer JSON mapped the same way, and
 * broken files (0 bytes, truncated, bad lengths, groups, garbage) failing with a clear message.
 */
#include "analyze/tf.h"
#include "core/err.h"
#include "doctor/doctor.h"
#include "ingest/ingest.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- a tiny protobuf encoder ---- */

struct enc {
    unsigned char b[8192];
    size_t n;
};

static void e_varint(struct enc *e, uint64_t v)
{
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        e->b[e->n++] = (unsigned char)(c | (v ? 0x80 : 0));
    } while (v);
}
static void e_int(struct enc *e, uint32_t field, uint64_t v)
{
    e_varint(e, (uint64_t)field << 3 | 0);
    e_varint(e, v);
}
static void e_bytes(struct enc *e, uint32_t field, const void *p, size_t n)
{
    e_varint(e, (uint64_t)field << 3 | 2);
    e_varint(e, n);
    memcpy(e->b + e->n, p, n);
    e->n += n;
}
static void e_str(struct enc *e, uint32_t field, const char *s)
{
    e_bytes(e, field, s, strlen(s));
}
static void e_msg(struct enc *e, uint32_t field, const struct enc *m)
{
    e_bytes(e, field, m->b, m->n);
}

static void stat_int(struct enc *ev, uint32_t field, int64_t mid, uint32_t vfield, uint64_t v)
{
    struct enc s = {.n = 0};
    e_int(&s, 1, (uint64_t)mid);
    e_int(&s, vfield, v);
    e_msg(ev, field, &s);
}

static void emeta(struct enc *pl, int64_t id, const char *name, const char *disp)
{
    struct enc m = {.n = 0}, entry = {.n = 0};
    e_int(&m, 1, (uint64_t)id);
    e_str(&m, 2, name);
    if (disp) e_str(&m, 4, disp);
    e_int(&entry, 1, (uint64_t)id);
    e_msg(&entry, 2, &m);
    e_msg(pl, 4, &entry);
}

static void smeta(struct enc *pl, int64_t id, const char *name)
{
    struct enc m = {.n = 0}, entry = {.n = 0};
    e_int(&m, 1, (uint64_t)id);
    e_str(&m, 2, name);
    e_int(&entry, 1, (uint64_t)id);
    e_msg(&entry, 2, &m);
    e_msg(pl, 5, &entry);
}

/* event (metadata id, offset ps, duration ps; dur < 0: none) with an optional int stat */
static void event(struct enc *line, int64_t mid, int64_t off, int64_t dur, int64_t stat_mid,
                  uint32_t stat_field, uint64_t stat_v)
{
    struct enc ev = {.n = 0};
    e_int(&ev, 1, (uint64_t)mid);
    e_int(&ev, 2, (uint64_t)off);
    if (dur >= 0) e_int(&ev, 3, (uint64_t)dur);
    if (stat_mid) stat_int(&ev, 4, stat_mid, stat_field, stat_v);
    e_msg(line, 4, &ev);
}

/* The hand-made XSpace (times in ps; the lines start at 1000 ns):
 *   python (line 100): step "predict" 0 [0, 10 µs), eager MatMul [1, 3 µs), a tf.function call
 *     [4, 9 µs), step 1 [20, 30 µs), a marker at 21 µs, an aggregated event (num_occurrences);
 *   tf_Compute/1 (line 200): scope/conv:Conv2D [4.5005, 7.5005 µs) holding scope/relu:Relu
 *     [5, 6 µs), scope/conv again [22, 25 µs). Lines are written before the metadata maps, as
 *     TF's serializer does (field order). */
static size_t make_space(unsigned char *out)
{
    struct enc plane = {.n = 0}, l1 = {.n = 0}, l2 = {.n = 0}, space = {.n = 0};
    e_int(&plane, 1, 7);
    e_str(&plane, 2, "/host:CPU");
    e_int(&l1, 1, 100);
    e_str(&l1, 2, "python");
    e_int(&l1, 3, 1000);
    event(&l1, 1, 0, 10000000, 1, 4, 0);        /* step_num = 0 (int64) */
    event(&l1, 4, 1000000, 2000000, 2, 7, 3);   /* eager_op = ref -> "MatMul" */
    event(&l1, 5, 4000000, 5000000, 0, 0, 0);   /* EagerLocalExecute: __inference_f_1 */
    event(&l1, 1, 20000000, 10000000, 1, 3, 1); /* step_num = 1 (uint64) */
    event(&l1, 6, 21000000, -1, 0, 0, 0);       /* marker, no duration */
    {
        struct enc agg = {.n = 0};
        e_int(&agg, 1, 6);
        e_int(&agg, 5, 42); /* num_occurrences: no timeline */
        e_msg(&l1, 4, &agg);
    }
    e_msg(&plane, 3, &l1);
    e_int(&l2, 1, 200);
    e_str(&l2, 2, "tf_Compute/1");
    e_int(&l2, 3, 1000);
    event(&l2, 2, 4500500, 3000000, 0, 0, 0);
    event(&l2, 3, 5000000, 1000000, 0, 0, 0);
    event(&l2, 2, 22000000, 3000000, 0, 0, 0);
    e_msg(&plane, 3, &l2);
    emeta(&plane, 1, "predict", NULL);
    emeta(&plane, 2, "scope/conv:Conv2D", "Conv2D");
    emeta(&plane, 3, "scope/relu:Relu", "Relu");
    emeta(&plane, 4, "EagerLocalExecute: MatMul", NULL);
    emeta(&plane, 5, "EagerLocalExecute: __inference_f_1", NULL);
    emeta(&plane, 6, "ThreadpoolListener::Record", NULL);
    smeta(&plane, 1, "step_num");
    smeta(&plane, 2, "eager_op");
    smeta(&plane, 3, "MatMul");
    e_msg(&space, 1, &plane);
    struct enc env = {.n = 0};
    e_str(&env, 2, "Task Environment");
    smeta(&env, 1, "profile_start_time");
    stat_int(&env, 6, 1, 3, 12345);
    e_msg(&space, 1, &env);
    e_str(&space, 4, "host1");
    memcpy(out, space.b, space.n);
    return space.n;
}

static size_t find_ev(const struct lat_trace *t, const char *name, size_t from)
{
    for (size_t i = from; i < t->ev.n; i++)
        if (!strcmp(lat_trace_str(t, t->ev.name[i]), name)) return i;
    return SIZE_MAX;
}

static const char *arg_s(const struct lat_trace *t, size_t i, const char *k)
{
    const struct lat_arg *a = lat_trace_arg(t, i, k);
    return a && a->type == LAT_ARG_STR ? lat_trace_str(t, a->str) : NULL;
}

TEST(xplane_reader_maps_planes_lines_ops_steps)
{
    static unsigned char buf[16384];
    size_t n = make_space(buf);
    struct lat_trace *t = NULL;
    char err[512] = "";
    ASSERT_RC(ingest_mem(buf, n, "vm.xplane.pb", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "xplane");
    ASSERT_EQ_U64(t->ev.n, 8);
    ASSERT_EQ_U64(t->dropped, 1); /* the aggregated event, counted */
    ASSERT_EQ_STR(ingest_meta_get(t, "xplane_aggregated_events"), "1");
    ASSERT_EQ_STR(ingest_meta_get(t, "xplane_profile_start_time"), "12345");
    ASSERT_EQ_STR(ingest_meta_get(t, "xplane_hostname"), "host1");
    ASSERT_EQ_STR(ingest_meta_get(t, "tf_ops"), "4");
    /* tracks: pid = plane id, tid = line id, named */
    ASSERT_EQ_U64(t->ntracks, 2);
    for (size_t i = 0; i < t->ntracks; i++) {
        ASSERT_EQ_I64(t->tracks[i].pid, 7);
        ASSERT_EQ_STR(lat_trace_str(t, t->tracks[i].pid_label), "host1 /host:CPU");
        ASSERT_EQ_STR(lat_trace_str(t, t->tracks[i].tid_label),
                      t->tracks[i].tid == 100 ? "python" : "tf_Compute/1");
    }
    /* steps */
    size_t s0 = find_ev(t, "predict 0", 0), s1 = find_ev(t, "predict 1", 0);
    ASSERT(s0 != SIZE_MAX && s1 != SIZE_MAX);
    ASSERT(t->ev.flags[s0] & LAT_EVF_STEP);
    ASSERT_EQ_I64(t->ev.step[s0], 0);
    ASSERT_EQ_I64(t->ev.step[s1], 1);
    ASSERT_EQ_I64(t->ev.ts[s0], 1000);
    ASSERT_EQ_I64(t->ev.dur[s0], 10000);
    ASSERT_EQ_I64(t->ev.ts[s1], 21000);
    /* graph op: ps offsets floored to ns, end floored too */
    size_t c = find_ev(t, "scope/conv", 0);
    ASSERT(c != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[c], LAT_EV_CPU_OP);
    ASSERT_EQ_I64(t->ev.ts[c], 5500);
    ASSERT_EQ_I64(t->ev.dur[c], 3000);
    ASSERT_EQ_STR(arg_s(t, c, "op_type"), "Conv2D");
    ASSERT_EQ_STR(arg_s(t, c, "tf_op"), "scope/conv:Conv2D");
    ASSERT_EQ_STR(arg_s(t, c, "tf_mode"), "graph");
    ASSERT_EQ_STR(arg_s(t, c, "display_name"), "Conv2D");
    /* eager op, its ref stat resolved to the stat metadata's name */
    size_t m = find_ev(t, "MatMul", 0);
    ASSERT(m != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[m], LAT_EV_CPU_OP);
    ASSERT_EQ_STR(arg_s(t, m, "tf_mode"), "eager");
    ASSERT_EQ_STR(arg_s(t, m, "eager_op"), "MatMul");
    /* a tf.function call is not an op; a marker is an instant */
    size_t f = find_ev(t, "EagerLocalExecute: __inference_f_1", 0);
    ASSERT(f != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[f], LAT_EV_OTHER);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.cat[f]), "tf_traceme");
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.cat[c]), "cpu_op");
    ASSERT_EQ_I64(t->ev.kind[s0], LAT_EV_USER_ANNOTATION);
    size_t mk = find_ev(t, "ThreadpoolListener::Record", 0);
    ASSERT(mk != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[mk], LAT_EV_INSTANT);
    ASSERT_EQ_I64(t->ev.dur[mk], 0);
    for (size_t i = 1; i < t->ev.n; i++)
        ASSERT(t->ev.ts[i - 1] <= t->ev.ts[i]);
    lat_trace_free(t);
}

TEST(xplane_tf_section_numbers)
{
    static unsigned char buf[16384];
    size_t n = make_space(buf);
    struct lat_trace *t = NULL;
    char err[512] = "";
    ASSERT_RC(ingest_mem(buf, n, "vm.xplane.pb", NULL, &t, err, sizeof(err)));
    ASSERT(lat_tf_is(t));
    struct lat_tf_summary s;
    ASSERT_RC(lat_tf_summarize(t, 0, &s));
    ASSERT_EQ_U64(s.steps, 2);
    ASSERT_EQ_I64(s.step_total, 20000);
    ASSERT_EQ_I64(s.step_p50, 10000);
    ASSERT_EQ_I64(s.step_max, 10000);
    ASSERT_EQ_U64(s.nstep_groups, 1);
    ASSERT_EQ_STR(s.step_groups[0].name, "predict");
    ASSERT_EQ_U64(s.ops, 4);
    /* conv 3000 - relu 1000 nested, + 3000; relu 1000; eager MatMul 2000 */
    ASSERT_EQ_I64(s.graph_self, 6000);
    ASSERT_EQ_I64(s.eager_self, 2000);
    ASSERT_EQ_I64(s.op_self, 8000);
    ASSERT_NEAR(s.eager_pct, 25.0, 1e-9);
    ASSERT_EQ_STR(s.op_types[0].name, "Conv2D");
    ASSERT_EQ_U64(s.op_types[0].calls, 2);
    ASSERT_EQ_I64(s.op_types[0].self, 5000);
    ASSERT_EQ_I64(s.op_types[0].total, 6000);
    ASSERT_NEAR(s.op_types[0].self_pct, 62.5, 1e-9);
    ASSERT_EQ_STR(s.nodes[0].name, "scope/conv");
    ASSERT_EQ_STR(s.nodes[0].op_type, "Conv2D");
    /* steps [1000, 11000) and [21000, 31000): ops busy 2000 (MatMul) + 3000 (conv, relu
     * inside) in step 0, 3000 (conv) in step 1 -> idle 12000 of 20000 */
    ASSERT_EQ_I64(s.step_wall, 20000);
    ASSERT_EQ_I64(s.host_busy, 8000);
    ASSERT_EQ_I64(s.host_idle, 12000);
    ASSERT_NEAR(s.host_idle_pct, 60.0, 1e-9);
    lat_tf_summary_fini(&s);
    lat_trace_free(t);
}

/* TF's trace_viewer JSON: op events named by type, the full name in stackFrames */
TEST(tf_trace_viewer_json_mapped_like_xplane)
{
    static const char js[] =
        "{\"displayTimeUnit\":\"ns\",\"stackFrames\":{\"4\":{\"name\":\"scope/conv:Conv2D\"}},"
        "\"traceEvents\":[{\"args\":{\"name\":\"host1 /host:CPU\"},\"name\":\"process_name\","
        "\"ph\":\"M\",\"pid\":701},"
        "{\"args\":{\"name\":\"tf_Compute/1\"},\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":701,"
        "\"tid\":5},"
        "{\"pid\":701,\"tid\":5,\"name\":\"predict 0\",\"ts\":1,\"dur\":10,\"ph\":\"X\","
        "\"args\":{\"step_num\":0,\"step_name\":\"predict 0\"}},"
        "{\"pid\":701,\"tid\":5,\"name\":\"Conv2D\",\"ts\":5.5,\"dur\":3,\"ph\":\"X\","
        "\"args\":{\"is_eager\":0},\"sf\":4}]}";
    struct lat_trace *t = NULL;
    char err[512] = "";
    ASSERT_RC(ingest_mem(js, sizeof(js) - 1, "x.trace.json", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "tf-trace-viewer");
    ASSERT_EQ_STR(lat_trace_str(t, t->tracks[0].pid_label), "host1 /host:CPU");
    size_t c = find_ev(t, "scope/conv", 0);
    ASSERT(c != SIZE_MAX);
    ASSERT_EQ_I64(t->ev.kind[c], LAT_EV_CPU_OP);
    ASSERT_EQ_STR(arg_s(t, c, "op_type"), "Conv2D");
    ASSERT_EQ_STR(arg_s(t, c, "tf_mode"), "graph");
    size_t s = find_ev(t, "predict 0", 0);
    ASSERT(s != SIZE_MAX && (t->ev.flags[s] & LAT_EVF_STEP));
    lat_trace_free(t);
}

/* xprof 2.24's two trace_viewer JSONs (issue 29), hand-made with the structure of a real TF 2.21
 * LSTM profile (t705 checks the real files against TF's framework_op_stats). The streaming
 * "trace_viewer@" one: events named by op type with only "uid"/"group_id" args, no "sf", the
 * nodes only in stackFrames (MatMul twice, Conv2D once), step regions without step_num. The
 * other ("trace_viewer"): every arg a string ("long_name": "node:Type", "is_eager": "0",
 * "step_num": "3") and a last element {}. */
TEST(tf_trace_viewer_xprof224_handmade)
{
    static const char head[] =
        "{\"displayTimeUnit\":\"ns\",\"returnedEventsSize\":6,\"filteredByVisibility\":true,"
        "\"stackFrames\":{\"1\":{\"name\":\"m/while/MatMul:MatMul\"},"
        "\"2\":{\"name\":\"m/while/MatMul_1:MatMul\"},\"3\":{\"name\":\"m/conv:Conv2D\"}},"
        "\"traceEvents\":[{\"args\":{\"name\":\"vm /host:CPU\"},\"name\":\"process_name\","
        "\"ph\":\"M\",\"pid\":1701},{\"args\":{\"name\":\"python\"},\"name\":\"thread_name\","
        "\"ph\":\"M\",\"pid\":1701,\"tid\":1},{\"args\":{\"name\":\"tf_Compute/-5\"},"
        "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1701,\"tid\":2},";
    static const char streaming[] =
        "{\"pid\":1701,\"tid\":1,\"name\":\"step\",\"ts\":1,\"dur\":100,\"ph\":\"X\","
        "\"args\":{\"uid\":0}},"
        "{\"pid\":1701,\"tid\":2,\"name\":\"MatMul\",\"ts\":10,\"dur\":4,\"ph\":\"X\","
        "\"args\":{\"group_id\":0,\"uid\":0}},"
        "{\"pid\":1701,\"tid\":2,\"name\":\"MatMul\",\"ts\":20,\"dur\":6,\"ph\":\"X\","
        "\"args\":{\"group_id\":0,\"uid\":0}},"
        "{\"pid\":1701,\"tid\":2,\"name\":\"Conv2D\",\"ts\":30,\"dur\":5,\"ph\":\"X\","
        "\"args\":{\"uid\":0}},"
        "{\"pid\":1701,\"tid\":2,\"name\":\"ExecutorDoneCallback\",\"ts\":40,\"dur\":2,"
        "\"ph\":\"X\",\"args\":{\"uid\":0}}]}";
    static const char plain[] =
        "{\"args\":{\"step_num\":\"3\"},\"dur\":100,\"name\":\"step\",\"ph\":\"X\",\"pid\":1701,"
        "\"tid\":1,\"ts\":1},"
        "{\"args\":{\"group_id\":\"0\",\"is_eager\":\"0\",\"long_name\":\"m/while/MatMul:MatMul\"},"
        "\"dur\":4,\"name\":\"MatMul\",\"ph\":\"X\",\"pid\":1701,\"tid\":2,\"ts\":10},"
        "{\"args\":{\"group_id\":\"0\",\"is_eager\":\"1\",\"long_name\":\"m/e/MatMul_1:MatMul\"},"
        "\"dur\":6,\"name\":\"MatMul\",\"ph\":\"X\",\"pid\":1701,\"tid\":2,\"ts\":20},"
        "{\"args\":{},\"dur\":2,\"name\":\"ExecutorDoneCallback\",\"ph\":\"X\",\"pid\":1701,"
        "\"tid\":2,\"ts\":40},{}]}";
    char js[4096];
    for (int v = 0; v < 2; v++) {
        int n = snprintf(js, sizeof(js), "%s%s", head, v ? plain : streaming);
        ASSERT(n > 0 && (size_t)n < sizeof(js));
        struct lat_trace *t = NULL;
        char err[512] = "";
        ASSERT_RC(ingest_mem(js, (size_t)n, "handmade.trace.json", NULL, &t, err, sizeof(err)));
        ASSERT_EQ_STR(t->format, "tf-trace-viewer");
        struct lat_tf_summary s;
        ASSERT_RC(lat_tf_summarize(t, 100, &s));
        if (!v) {
            /* 3 graph ops, 15 µs; Conv2D has one node: named; MatMul two: by type */
            ASSERT_EQ_U64(s.ops, 3);
            ASSERT_EQ_I64(s.graph_self, 15000);
            ASSERT_EQ_U64(s.ops_unnamed, 2);
            size_t c = find_ev(t, "m/conv", 0);
            ASSERT(c != SIZE_MAX && t->ev.kind[c] == LAT_EV_CPU_OP);
            size_t m = find_ev(t, "(any of 2 MatMul nodes)", 0);
            ASSERT(m != SIZE_MAX && t->ev.kind[m] == LAT_EV_CPU_OP);
            ASSERT_EQ_STR(arg_s(t, m, "op_type"), "MatMul");
            ASSERT_EQ_STR(arg_s(t, m, "tf_mode"), "graph");
            ASSERT(find_ev(t, "(any of 2 MatMul nodes)", m + 1) != SIZE_MAX);
            /* the step cannot be identified: none, and the reason */
            ASSERT_EQ_U64(s.steps, 0);
            ASSERT(s.steps_note && strstr(s.steps_note, "step_num") &&
                   strstr(s.steps_note, ".xplane.pb"));
        } else {
            /* long_name names both; is_eager "1" is eager; step_num "3" is a step */
            ASSERT_EQ_U64(s.ops, 2);
            ASSERT_EQ_I64(s.graph_self, 4000);
            ASSERT_EQ_I64(s.eager_self, 6000);
            ASSERT_EQ_U64(s.ops_unnamed, 0);
            ASSERT(find_ev(t, "m/while/MatMul", 0) != SIZE_MAX);
            ASSERT(find_ev(t, "m/e/MatMul_1", 0) != SIZE_MAX);
            ASSERT_EQ_U64(s.steps, 1);
            ASSERT(s.steps_note == NULL);
            ASSERT(find_ev(t, "step 3", 0) != SIZE_MAX);
            ASSERT_EQ_U64(t->dropped, 0); /* the last {} is no event, nor a drop */
        }
        lat_tf_summary_fini(&s);
        lat_trace_free(t);
    }
}

static int load_pb(const void *p, size_t n, char *err, size_t errsz)
{
    struct lat_trace *t = NULL;
    int rc = ingest_mem(p, n, "bad.xplane.pb", NULL, &t, err, errsz);
    if (!rc) lat_trace_free(t);
    return rc;
}

/* An XEvent with no name (no, an unknown or a nameless metadata_id) and no duration is left
 * out and counted as empty_event: a file of 2-byte empty XEvents must not become millions of
 * events. Kept: a named event, a named instant and an unnamed event with a duration. */
TEST(xplane_empty_events_dropped_and_counted)
{
    struct enc plane = {.n = 0}, line = {.n = 0}, space = {.n = 0}, empty = {.n = 0};
    e_int(&plane, 1, 7);
    e_str(&plane, 2, "/host:CPU");
    e_int(&line, 1, 100);
    e_str(&line, 2, "python");
    e_int(&line, 3, 1000);
    event(&line, 1, 0, 5000000, 0, 0, 0);       /* "op", 5 µs: kept */
    event(&line, 1, 6000000, -1, 0, 0, 0);      /* "op", instant: kept */
    event(&line, 9, 7000000, 1000000, 0, 0, 0); /* unknown metadata, 1 µs: kept as (unknown) */
    e_msg(&line, 4, &empty);                    /* 22 00: dropped */
    e_msg(&line, 4, &empty);                    /* dropped */
    event(&line, 9, 8000000, -1, 0, 0, 0);      /* unknown metadata, no duration: dropped */
    event(&line, 2, 9000000, 0, 0, 0, 0);       /* nameless metadata, duration 0: dropped */
    e_msg(&plane, 3, &line);
    emeta(&plane, 1, "op", NULL);
    emeta(&plane, 2, "", NULL);
    e_msg(&space, 1, &plane);
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(space.b, space.n, "handmade.xplane.pb", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 3);
    ASSERT_EQ_U64(t->drops[LAT_DROP_EMPTY], 4);
    ASSERT_EQ_U64(t->dropped, 4);
    ASSERT_EQ_STR(lat_drop_reason_name(LAT_DROP_EMPTY), "empty_event");
    char sum[256];
    ASSERT(lat_trace_drop_summary(t, sum, sizeof(sum)) && strstr(sum, "4 events dropped") &&
           strstr(sum, "no name, no duration: 4"));
    lat_trace_free(t);

    /* nothing but empty XEvents: no timed events, and it says how many were left out */
    struct enc p2 = {.n = 0}, l2 = {.n = 0}, s2 = {.n = 0};
    e_int(&p2, 1, 7);
    e_str(&p2, 2, "/host:CPU");
    e_int(&l2, 1, 100);
    for (int i = 0; i < 1000; i++)
        e_msg(&l2, 4, &empty);
    e_msg(&p2, 3, &l2);
    e_msg(&s2, 1, &p2);
    ASSERT_EQ_I64(ingest_mem(s2.b, s2.n, "handmade-empty.xplane.pb", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "handmade-empty.xplane.pb") && strstr(err, "without timed events") &&
           strstr(err, "1000 empty XEvents left out"));
}

TEST(xplane_broken_files_fail_clearly)
{
    static unsigned char buf[16384];
    size_t n = make_space(buf);
    char err[512];
    /* 0 bytes */
    ASSERT(load_pb("", 0, err, sizeof(err)) == LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "empty .xplane.pb (0 bytes)") != NULL);
    /* every truncation fails (or, cut at a field boundary, loads fewer planes): never crashes */
    for (size_t cut = 1; cut < n; cut++) {
        err[0] = 0;
        int rc = load_pb(buf, cut, err, sizeof(err));
        if (rc) ASSERT(strstr(err, "xplane.pb") != NULL);
    }
    ASSERT(load_pb(buf, n - 3, err, sizeof(err)) == LAT_E_TRUNCATED);
    ASSERT(strstr(err, "not a valid TensorFlow .xplane.pb") != NULL);
    /* a length beyond its message */
    static const unsigned char longlen[] = {0x0a, 0x7f, 0x10, 0x01};
    ASSERT(load_pb(longlen, sizeof(longlen), err, sizeof(err)) == LAT_E_TRUNCATED);
    ASSERT(strstr(err, "longer than its message") != NULL);
    /* groups (wire type 3) */
    static const unsigned char group[] = {0x0b, 0x0c};
    ASSERT(load_pb(group, sizeof(group), err, sizeof(err)) == LAT_E_TRUNCATED);
    ASSERT(strstr(err, "wire type") != NULL);
    /* an 11-byte varint */
    static const unsigned char vlong[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    ASSERT(load_pb(vlong, sizeof(vlong), err, sizeof(err)) == LAT_E_TRUNCATED);
    /* valid protobuf, no planes */
    static const unsigned char noplane[] = {0x22, 0x02, 'v', 'm'};
    ASSERT(load_pb(noplane, sizeof(noplane), err, sizeof(err)) == LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "without XPlanes") != NULL);
    /* garbage bytes */
    static const unsigned char junk[] = {0xff, 0xff, 0xff, 0xff, 'g', 'a', 'r', 'b'};
    ASSERT(load_pb(junk, sizeof(junk), err, sizeof(err)) < 0);
    ASSERT(strstr(err, "TensorFlow .xplane.pb") != NULL);
}

/* The shared TF 2.21 sample (skipped when the corpus is absent): counts that match the file. */
TEST(xplane_corpus_sample)
{
    const char *root = getenv("LATSCOPE_TRACES");
    char path[1024];
    snprintf(path, sizeof(path), "%s/tf/tiny_cnn_tf2.21.0/vm.xplane.pb",
             root ? root : "/work/shared/traces");
    FILE *f = fopen(path, "rb");
    if (!f) return; /* corpus absent */
    fclose(f);
    struct lat_trace *t = NULL;
    char err[512] = "";
    ASSERT_RC(ingest_open(path, NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "xplane");
    /* 942 + 262 + 213 + 629 + 894 events on the five host lines (protoc --decode_raw) */
    ASSERT_EQ_U64(t->ev.n, 2940);
    ASSERT_EQ_U64(t->dropped, 0);
    ASSERT_EQ_U64(t->ntracks, 5);
    struct lat_tf_summary s;
    ASSERT_RC(lat_tf_summarize(t, 0, &s));
    ASSERT_EQ_U64(s.steps, 7); /* 5 "inference" + 2 "eager_predict" */
    ASSERT_EQ_U64(s.nstep_groups, 2);
    /* 31 graph ops x 5 runs + 98 eager ops */
    ASSERT_EQ_U64(s.ops, 31 * 5 + 98);
    lat_tf_summary_fini(&s);
    lat_trace_free(t);
}

/* For the doctor: 6 steps of 10 µs on "python"; in each, a graph Conv2D of conv_ps on
 * tf_Compute/1 and (iter_ps > 0) an IteratorGetNext of iter_ps before it, on "python". */
static size_t make_steps(unsigned char *out, int64_t conv_ps, int64_t iter_ps)
{
    struct enc plane = {.n = 0}, l1 = {.n = 0}, l2 = {.n = 0}, space = {.n = 0};
    e_int(&plane, 1, 1);
    e_str(&plane, 2, "/host:CPU");
    e_int(&l1, 1, 100);
    e_str(&l1, 2, "python");
    e_int(&l2, 1, 200);
    e_str(&l2, 2, "tf_Compute/1");
    for (int k = 0; k < 6; k++) {
        int64_t at = (int64_t)k * 20000000;
        event(&l1, 1, at, 10000000, 1, 4, (uint64_t)k);
        if (iter_ps) event(&l1, 3, at + 100000, iter_ps, 0, 0, 0);
        event(&l2, 2, at + 100000 + iter_ps, conv_ps, 0, 0, 0);
    }
    e_msg(&plane, 3, &l1);
    e_msg(&plane, 3, &l2);
    emeta(&plane, 1, "predict", NULL);
    emeta(&plane, 2, "m/conv:Conv2D", "Conv2D");
    emeta(&plane, 3, "IteratorGetNext", NULL);
    smeta(&plane, 1, "step_num");
    e_msg(&space, 1, &plane);
    memcpy(out, space.b, space.n);
    return space.n;
}

static struct doc_report *doctor_on(const unsigned char *buf, size_t n)
{
    struct lat_trace *t = NULL;
    char err[512] = "";
    int rc = ingest_mem(buf, n, "d.xplane.pb", NULL, &t, err, sizeof(err));
    if (rc) FAIL("ingest_mem: %d %s", rc, err);
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    doctor_rank(r);
    lat_trace_free(t);
    return r;
}

static const struct doc_finding *dfind(const struct doc_report *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].id, id)) return &r->f[i];
    return NULL;
}

TEST(xplane_doctor_tf_rules)
{
    static unsigned char buf[16384];
    /* Conv2D 5 µs of each 10 µs step, IteratorGetNext 2 µs: one op type (100 % of the op
     * time), host idle 50 %, input pipeline 20 % */
    size_t n = make_steps(buf, 5000000, 2000000);
    struct doc_report *r = doctor_on(buf, n);
    const struct doc_finding *f = dfind(r, "tf-dominant-op");
    ASSERT(f != NULL);
    ASSERT_NEAR(f->saving_us_per_step, 5.0, 1e-9);
    ASSERT(strstr(f->recommendation, "jit_compile=True") != NULL);
    f = dfind(r, "tf-host-idle");
    ASSERT(f != NULL); /* busy 5 of 10 µs (the iterator is not an op): idle 5 µs per step */
    ASSERT_NEAR(f->saving_us_per_step, 5.0, 1e-9);
    f = dfind(r, "tf-input-pipeline");
    ASSERT(f != NULL);
    ASSERT_NEAR(f->saving_us_per_step, 2.0, 1e-9);
    ASSERT(strstr(f->recommendation, "prefetch") != NULL);
    ASSERT(dfind(r, "tf-eager-ops") == NULL);
    ASSERT(dfind(r, "cpu-python-overhead") == NULL); /* PyTorch rules do not judge TF */
    doctor_report_free(r);
    /* Conv2D fills 9.5 µs of each step, no input pipeline: no idle/input finding */
    n = make_steps(buf, 9500000, 0);
    r = doctor_on(buf, n);
    ASSERT(dfind(r, "tf-host-idle") == NULL);
    ASSERT(dfind(r, "tf-input-pipeline") == NULL);
    ASSERT(dfind(r, "tf-dominant-op") != NULL);
    ASSERT(r->ntraces == 1 && r->traces[0].judged);
    doctor_report_free(r);
}

/* ---- a TensorFlow profile directory (LOGDIR/plugins/profile/RUN/HOST.xplane.pb) ---- */

static void put_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}

static void mkdirs(const char *base, const char *rel, char *out, size_t outsz)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s", base);
    const char *r = rel;
    while (*r) {
        size_t l = strcspn(r, "/");
        size_t k = strlen(p);
        snprintf(p + k, sizeof(p) - k, "/%.*s", (int)l, r);
        mkdir(p, 0755);
        r += l + (r[l] == '/');
    }
    snprintf(out, outsz, "%s", p);
}

TEST(tf_profile_directory_latest_run_hosts)
{
    unsigned char buf[8192];
    size_t n = make_space(buf);
    char log[600], run1[700], run2[700], run3[700], prof[700];
    snprintf(log, sizeof(log), "%s/tflog", test_tmpdir());
    mkdirs(test_tmpdir(), "tflog/plugins/profile/2026_01_01_00_00_00", run1, sizeof(run1));
    mkdirs(test_tmpdir(), "tflog/plugins/profile/2026_01_02_00_00_00", run2, sizeof(run2));
    mkdirs(test_tmpdir(), "tflog/plugins/profile/2026_01_03_00_00_00", run3, sizeof(run3));
    snprintf(prof, sizeof(prof), "%s/plugins/profile", log);
    put_file(run1, "old.xplane.pb", buf, n);
    put_file(run2, "h1.xplane.pb", buf, n);
    put_file(run2, "h2.xplane.pb", buf, n);
    put_file(run2, "h1.trace.json.gz", "x", 1);         /* h1's twin: not read (it is no gzip) */
    put_file(run2, "h1.overview_page.pb", "x", 1);      /* another TF tool file: not a trace */
    put_file(run3, "h1.memory_profile.json.gz", "", 0); /* newest run: no profile file */

    const char *dirs[] = {log, prof, run2};
    for (size_t d = 0; d < 3; d++) {
        struct lat_ingest_set *s = NULL;
        char err[LAT_INGEST_ERRLEN] = "";
        ASSERT_RC(ingest_paths(&dirs[d], 1, NULL, &s, err, sizeof(err)));
        ASSERT_EQ_U64(s->n, 2);
        for (size_t i = 0; i < 2; i++) {
            const struct lat_ingest_file *f = &s->files[i];
            ASSERT(strncmp(f->path, run2, strlen(run2)) == 0);
            ASSERT(strstr(f->path, i ? "h2.xplane.pb" : "h1.xplane.pb"));
            ASSERT_EQ_I64(f->status, LAT_INGEST_OK); /* hosts: no rank rules */
            ASSERT(f->trace && !strcmp(f->trace->format, "xplane"));
        }
        ASSERT(s->note != NULL);
        ASSERT(strstr(s->note, "2 hosts (h1, h2)"));
        ASSERT(strstr(s->note, "1 HOST.trace.json.gz not read"));
        if (d < 2) {
            ASSERT(strstr(s->note, "run 2026_01_02_00_00_00, the latest of 3"));
            ASSERT(strstr(s->note, "1 newer run without a *.xplane.pb skipped"));
        }
        ingest_set_free(s);
    }
    /* the empty run named, and a profile directory whose runs are all empty */
    struct lat_ingest_set *s = NULL;
    char err[LAT_INGEST_ERRLEN] = "";
    const char *empty[] = {run3};
    ASSERT_EQ_I64(ingest_paths(empty, 1, NULL, &s, err, sizeof(err)), LAT_E_NOT_FOUND);
    ASSERT(s == NULL && strstr(err, "a TensorFlow profile run without a *.xplane.pb"));
    char e1[700];
    mkdirs(test_tmpdir(), "tfempty/plugins/profile/r1", e1, sizeof(e1));
    char elog[600];
    snprintf(elog, sizeof(elog), "%s/tfempty", test_tmpdir());
    const char *el[] = {elog};
    ASSERT_EQ_I64(ingest_paths(el, 1, NULL, &s, err, sizeof(err)), LAT_E_NOT_FOUND);
    ASSERT(strstr(err, "1 TensorFlow profile run, none with a *.xplane.pb"));
    /* a plain directory of traces is not a TF profile: no note */
    char plain[700];
    mkdirs(test_tmpdir(), "plainrk", plain, sizeof(plain));
    put_file(plain, "t.json", "{\"traceEvents\": []}", 19);
    const char *pl[] = {plain};
    ASSERT_RC(ingest_paths(pl, 1, NULL, &s, err, sizeof(err)));
    ASSERT(s->note == NULL);
    ingest_set_free(s);
}

TEST(ingest_sniff_reads_non_json_traces)
{
    static const char perf[] = "# ========\n# captured on: x\n#\n"
                               "prog  42  1.000001:    2000000 cpu-clock: \n"
                               "\t  401000 funcA+0x10 (/opt/app/prog)\n\n";
    ASSERT(ingest_sniff_reads(perf, sizeof(perf) - 1, "x.txt"));
    ASSERT(ingest_sniff_reads("main;f 3\nmain;g 1\n", 18, "x.txt"));
    ASSERT(ingest_sniff_reads("\x0a\x02\x08\x01", 4, "h.xplane.pb"));
    /* bench results and HDR logs are for diff's own sniff */
    ASSERT(!ingest_sniff_reads("{\"target\": \"http\"}", 18, "b.json"));
    ASSERT(!ingest_sniff_reads("#[StartTime: 1.0]\n0.1,1.0,2.0,HIST\n", 35, "x.hlog"));
    ASSERT(!ingest_sniff_reads("hello world\n", 12, "x.log"));
}
