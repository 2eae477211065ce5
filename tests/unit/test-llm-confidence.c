/* test-llm-confidence.c - `bench --target openai --confidence`: each request's own TTFT and TPOT
 * per view (the samples of the early-stopping test), the window hand-over, and the binomial
 * test on such samples against the LoadGen table (load-testing.md §6). */
#include "test.h"

#include "bench/openai.h"
#include "core/err.h"
#include "hist/hist.h"
#include "stats/search.h"

#include <string.h>

/* A streamed request: send 500 ns late, role chunk at 2000, 10 content chunks 100 ns apart
 * from 3000, usage event at 4000, response end at 4100; usage says 10 tokens. */
static struct llm_record rec10(void)
{
    struct llm_record r;
    memset(&r, 0, sizeof(r));
    r.t_sched = 1000;
    r.t_send = 1500;
    r.t_first_event = r.t_first_choice = 2000;
    r.t_first = 3000;
    r.t_last = r.t_last_choice = 3900;
    r.t_last_event = 4000;
    r.t_end = 4100;
    r.usage_tokens = 10;
    r.chunk_usage_tokens = r.prompt_tokens = -1;
    r.requested_tokens = 10;
    r.n_content = 10;
    r.n_choice = 11; /* streamed */
    r.err = LLM_OK;
    return r;
}

TEST(llm_req_values_per_view)
{
    struct llm_record r = rec10();
    lat_ns ttft, tpot;
    llm_bench_req_values(&r, LLM_VIEW_LATSCOPE, &ttft, &tpot);
    ASSERT_EQ_I64(ttft, 2000);    /* t_first - t_sched */
    ASSERT_EQ_I64(tpot, 900 / 9); /* (t_last - t_first) / (n - 1) */
    llm_bench_req_values(&r, LLM_VIEW_VLLM, &ttft, &tpot);
    ASSERT_EQ_I64(ttft, 500);      /* first choices event - t_send */
    ASSERT_EQ_I64(tpot, 1900 / 9); /* (E2EL 2400 - TTFT 500) / 9 */
    llm_bench_req_values(&r, LLM_VIEW_GENAI_PERF, &ttft, &tpot);
    ASSERT_EQ_I64(ttft, 500);      /* r[0] - t_send */
    ASSERT_EQ_I64(tpot, 2000 / 9); /* (r[last] 2500 - 500) / 9 */

    /* --no-stream: one body, no choices events: no TPOT in any view (was 0.000) */
    r.n_choice = 0;
    r.n_content = 1;
    r.t_first = r.t_last = r.t_first_choice = r.t_last_choice = r.t_end;
    for (int v = LLM_VIEW_LATSCOPE; v <= LLM_VIEW_GENAI_PERF; v++) {
        llm_bench_req_values(&r, (enum llm_view)v, &ttft, &tpot);
        ASSERT(ttft > 0);
        ASSERT_EQ_I64(tpot, -1);
    }
    r = rec10();
    r.usage_tokens = 1; /* n <= 1: no TPOT sample, TTFT still counts */
    llm_bench_req_values(&r, LLM_VIEW_LATSCOPE, &ttft, &tpot);
    ASSERT_EQ_I64(ttft, 2000);
    ASSERT_EQ_I64(tpot, -1);
    r = rec10();
    r.err = LLM_ERR_CUT; /* failed requests give no sample (the errors term judges them) */
    llm_bench_req_values(&r, LLM_VIEW_LATSCOPE, &ttft, &tpot);
    ASSERT_EQ_I64(ttft, -1);
    ASSERT_EQ_I64(tpot, -1);
    r = rec10();
    r.t_first = r.t_last = -1; /* no content chunk */
    llm_bench_req_values(&r, LLM_VIEW_LATSCOPE, &ttft, &tpot);
    ASSERT_EQ_I64(ttft, -1);
    ASSERT_EQ_I64(tpot, -1);
}

TEST(llm_ivl_take_moves_and_forgets)
{
    struct llm_bench b;
    memset(&b, 0, sizeof(b));
    struct lat_hist t1, t2;
    ASSERT_RC(hist_init_default(&t1));
    ASSERT_RC(hist_init_default(&t2));
    llm_bench_ivl_take(&b, &t1, &t2); /* not enabled: nothing */
    ASSERT_EQ_U64(hist_count(&t1), 0);
    ASSERT_RC(llm_bench_ivl_enable(&b));
    hist_record(&b.ivl_ttft, 20000000);
    hist_record(&b.ivl_ttft, 30000000);
    hist_record(&b.ivl_tpot, 5000000);
    llm_bench_ivl_take(&b, &t1, &t2);
    ASSERT_EQ_U64(hist_count(&t1), 2);
    ASSERT_EQ_U64(hist_count(&t2), 1);
    llm_bench_ivl_take(&b, &t1, &t2); /* taken once only: cumulative, not doubled */
    ASSERT_EQ_U64(hist_count(&t1), 2);
    ASSERT_EQ_U64(hist_count(&t2), 1);
    llm_bench_fini(&b);
    ASSERT(!b.ivl_on);
    hist_fini(&t1);
    hist_fini(&t2);
}

/* p99 TTFT at confidence 0.99 with 10 requests over the limit needs N >= h_min(10) + 10 = 2010
 * (load-testing.md §6 table); with none over, h_min(0) = 459. */
TEST(llm_ttft_early_stop_matches_loadgen_table)
{
    struct slo s;
    const char *why = NULL;
    ASSERT_RC(slo_parse("ttft.p99<=500ms", &s, &why));
    struct lat_hist h;
    ASSERT_RC(hist_init_default(&h));
    hist_record_n(&h, 20 * 1000000LL, 1999);
    hist_record_n(&h, 600 * 1000000LL, 10);
    double obs;
    uint64_t more;
    ASSERT_EQ_I64(slo_term_eval_hist(&s.t[0], &h, 0.99, &obs, &more), SLO_UNDECIDED);
    ASSERT_EQ_U64(more, 1);
    ASSERT_OP_I64((int64_t)obs, <=, 20 * 1000000LL + 20000); /* p99 = rank 1989: 20 ms */
    hist_record(&h, 20 * 1000000LL);                         /* N = 2010 */
    ASSERT_EQ_I64(slo_term_eval_hist(&s.t[0], &h, 0.99, &obs, &more), SLO_PASS);
    ASSERT_EQ_U64(more, 0);

    hist_reset(&h);
    hist_record_n(&h, 20 * 1000000LL, 100);
    ASSERT_EQ_I64(slo_term_eval_hist(&s.t[0], &h, 0.99, &obs, &more), SLO_UNDECIDED);
    ASSERT_EQ_U64(more, 459 - 100);
    /* Too many over the limit for the point estimate: a plain failure, nothing more needed. */
    hist_record_n(&h, 600 * 1000000LL, 2);
    ASSERT_EQ_I64(slo_term_eval_hist(&s.t[0], &h, 0.99, &obs, &more), SLO_FAIL);
    ASSERT_EQ_U64(more, 0);
    hist_fini(&h);
}
