/*
 * test-ranks-job.c - the many-rank pieces: doctor's cross-rank rule (rule-straggler.c) on
 * hand-filled per-rank steps, and a streamed rank's bytes (analysis_rank_pack/unpack) round trip
 * and refusal of cut or bad bytes.
 */
#include "test.h"

#include "analyze/analysis.h"
#include "core/buf.h"
#include "core/err.h"
#include "doctor/doctor.h"
#include "ingest/ingest.h"

/* A report with n ranks of 4 steps each: step time dur[r], communication comm[r] per step. */
static struct doc_report *job(size_t n, const lat_ns *dur, const lat_ns *comm)
{
    struct doc_report *r = NULL;
    ASSERT_RC(doctor_report_new(&r));
    r->ranks = calloc(n, sizeof(*r->ranks));
    r->traces = calloc(n, sizeof(*r->traces));
    ASSERT(r->ranks && r->traces);
    r->nranks = r->ranks_cap = n;
    r->ntraces = r->traces_cap = n;
    for (size_t i = 0; i < n; i++) {
        struct doc_rank_steps *q = &r->ranks[i];
        q->trace = (int)i;
        q->rank = (int32_t)(i * 10); /* ranks need not be positions */
        q->n = 4;
        q->num = calloc(4, sizeof(*q->num));
        q->dur = calloc(4, sizeof(*q->dur));
        q->comm = calloc(4, sizeof(*q->comm));
        q->trace_arg = strdup("t.json");
        ASSERT(q->num && q->dur && q->comm && q->trace_arg);
        for (int s = 0; s < 4; s++) {
            q->num[s] = 5 + s;
            q->dur[s] = dur[i];
            q->comm[s] = comm[i];
        }
    }
    return r;
}

static const struct doc_finding *find(const struct doc_report *r, const char *id, size_t k)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].id, id) && !k--) return &r->f[i];
    return NULL;
}

static const struct doc_kv *kv(const struct doc_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nkv; i++)
        if (!strcmp(f->kv[i].key, key) && !f->kv[i].group) return &f->kv[i];
    fprintf(stderr, "evidence %s missing\n", key);
    exit(1);
}

TEST(doctor_cross_rank_step_straggler)
{
    /* rank 30 takes 12 ms per step, the others 10 ms (no communication) */
    lat_ns dur[] = {10000000, 10000000, 10000000, 12000000, 10000000};
    lat_ns comm[] = {0, 0, 0, 0, 0};
    struct doc_report *r = job(5, dur, comm);
    struct doc_opts o;
    doctor_opts_default(&o);
    ASSERT_RC(doctor_cross_rank(r, &o));
    const struct doc_finding *f = find(r, "straggler-rank", 0);
    ASSERT(f && !find(r, "straggler-rank", 1) && !find(r, "comm-wait-rank", 0));
    ASSERT_EQ_I64(f->trace, 3);
    ASSERT_EQ_I64(kv(f, "rank")->i, 30);
    ASSERT_EQ_STR(kv(f, "measure")->str, "step time");
    ASSERT_NEAR(f->saving_us_per_step, 2000.0, 1e-9); /* 12 - 10 ms */
    ASSERT_NEAR(f->saving_pct, 100.0 * 2 / 12, 1e-9);
    ASSERT_EQ_I64(f->severity, DOC_SEV_MEDIUM);
    ASSERT(strstr(f->title, "Rank 30 is a straggler"));
    doctor_report_free(r);
}

TEST(doctor_cross_rank_work_and_comm)
{
    /* synchronous job: every step 10 ms; rank 20 works 8 ms (comm 2 ms), the others 6 ms
     * (comm 4 ms): a work straggler, and nobody's communication wait is high */
    lat_ns dur[] = {10000000, 10000000, 10000000, 10000000};
    lat_ns comm[] = {4000000, 4000000, 2000000, 4000000};
    struct doc_report *r = job(4, dur, comm);
    struct doc_opts o;
    doctor_opts_default(&o);
    ASSERT_RC(doctor_cross_rank(r, &o));
    const struct doc_finding *f = find(r, "straggler-rank", 0);
    ASSERT(f && !find(r, "comm-wait-rank", 0));
    ASSERT_EQ_I64(kv(f, "rank")->i, 20);
    ASSERT(strstr(kv(f, "measure")->str, "work"));
    ASSERT_NEAR(f->saving_us_per_step, 2000.0, 1e-9);
    doctor_report_free(r);
    /* one rank waits 3 ms longer in communication than the others */
    lat_ns comm2[] = {1000000, 4000000, 1000000, 1000000};
    r = job(4, dur, comm2);
    ASSERT_RC(doctor_cross_rank(r, &o));
    f = find(r, "comm-wait-rank", 0);
    ASSERT(f);
    ASSERT_EQ_I64(kv(f, "rank")->i, 10);
    ASSERT_NEAR(f->saving_us_per_step, 3000.0, 1e-9);
    doctor_report_free(r);
}

TEST(doctor_cross_rank_needs_three_and_spread)
{
    lat_ns dur[] = {10000000, 13000000, 10100000, 9900000};
    lat_ns comm[] = {0, 0, 0, 0};
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r = job(2, dur, comm); /* two ranks: no spread to judge */
    ASSERT_RC(doctor_cross_rank(r, &o));
    ASSERT_EQ_U64(r->n, 0);
    doctor_report_free(r);
    lat_ns even[] = {10000000, 10040000, 9990000, 10020000}; /* within 0.5 % */
    r = job(4, even, comm);
    ASSERT_RC(doctor_cross_rank(r, &o));
    ASSERT_EQ_U64(r->n, 0);
    doctor_report_free(r);
}

TEST(analysis_rank_pack_round_trip)
{
    const char *root = test_shared_traces();
    char path[1024];
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    if (root)
        snprintf(path, sizeof(path), "%s/hta/tests/data/trace_filter/sampled_rank-1.json.gz", root);
    if (!root || ingest_open(path, NULL, &t, err, sizeof(err))) SKIP("shared trace absent");
    struct analysis_opts o;
    analysis_opts_default(&o);
    struct lat_analysis *a = NULL, *b = NULL;
    ASSERT_RC(analysis_run(&t, 1, &o, &a));
    struct lat_buf buf = LAT_BUF_INIT;
    ASSERT_RC(analysis_rank_pack(a, &buf));
    size_t used = 0;
    ASSERT_RC(analysis_rank_unpack(buf.data, buf.len, &used, &b));
    ASSERT_EQ_U64(used, buf.len);
    const struct lat_an_rank *x = &a->ranks[0], *y = &b->ranks[0];
    ASSERT_EQ_I64(y->rank, x->rank);
    ASSERT_EQ_U64(y->events, x->events);
    ASSERT_EQ_I64(y->temporal.idle, x->temporal.idle);
    ASSERT_EQ_U64(y->launch.count, x->launch.count);
    ASSERT(x->launch.count > 0);
    for (size_t i = 0; i < x->launch.count; i++)
        ASSERT_EQ_I64(y->launch_delays[i], x->launch.recs[i].launch_delay);
    ASSERT_EQ_U64(y->nktypes, x->nktypes);
    for (size_t i = 0; i < x->nktypes; i++)
        ASSERT_EQ_STR(y->ktypes[i].label, x->ktypes[i].label);
    ASSERT_EQ_U64(y->nsyncs, x->nsyncs);
    for (size_t i = 0; i < x->nsyncs; i++)
        ASSERT_EQ_STR(y->syncs[i].name, x->syncs[i].name);
    ASSERT_EQ_U64(y->nsteps, x->nsteps);
    ASSERT_EQ_I64(y->steps[0].dur, x->steps[0].dur);
    ASSERT_EQ_STR(b->warning, a->warning);
    analysis_free(b);
    /* every cut of the bytes is refused, never read past */
    for (size_t n = 0; n < buf.len; n += 1 + n / 7) {
        b = NULL;
        ASSERT_EQ_I64(analysis_rank_unpack(buf.data, n, &used, &b), LAT_E_TRUNCATED);
        ASSERT(!b);
    }
    buf_fini(&buf);
    analysis_free(a);
    lat_trace_free(t);
}
