/*
 * merge.h - `latscope bench merge`: the JSON results of the N shards of one load (bench
 * --shard K/N, docs/latscope-bench-distributed.md) combined into one result of the same form
 * as a single-process run.
 *
 * Exact where the data allow it: every HDR histogram (latency, latency_actual, ttfb, send_lag,
 * loop_lag and the LLM ones) is decoded and added bucket by bucket (same layout: no loss), so
 * the merged percentiles are those of one histogram that recorded every shard's requests;
 * counters (requests, each error class, bytes, cap hits, retries) are summed. The achieved rate
 * is the summed requests over the union of the shards' measured windows on the wall clock.
 * --sessions rows are merged the same way from their own histograms (merge-parts.c).
 * A merged point is INVALID when any shard's is. The per-shard lines and the start skew (t0
 * differences on the shards' own clocks) come with it. Percentiles are "hdr" estimates: the
 * shards' exact samples are not in their JSON.
 */
#ifndef LAT_BENCH_MERGE_H
#define LAT_BENCH_MERGE_H

#include <stddef.h>

#include "bench/report.h"
#include "bench/shard.h"

struct bench_merged {
    struct bench_run run;
    struct bench_dist dist;
    char target[32], url[1024], mode[32], arrival[64], rx_time[16], workload[1024];
    char **llm_names; /* names of the extra histograms of each point (owned) */
    size_t nllm_names, llm_names_cap;
};

/* Merges n >= 1 bench JSON documents docs[i][0..lens[i]) named names[i] (for messages) into
 * *m (free with bench_merged_fini, also after a failure). Returns 0, or a LAT_E_* code with
 * err = "NAME: why" (not a bench result, shards of different runs, a shard missing or twice,
 * a corrupt histogram). */
int bench_merge_docs(struct bench_merged *m, const char *const *docs, const size_t *lens,
                     const char *const *names, size_t n, char *err, size_t errsz);
void bench_merged_fini(struct bench_merged *m);

/* The latency statistics of an LLM summary (ttft, ttft_send, e2e, e2e_send, tpot, itl,
 * chunk_gap) from the point's merged LLM histograms (p->llm_hist; latscope definitions,
 * nearest rank on the histogram). Shared with the MPI reduction. */
void bench_llm_stats_from_hists(struct llm_summary *s, const struct bench_point *p);

/* Adds the HdrHistogram blob at histograms/<name> of the JSON object d[0..n) into dst (absent
 * or null: nothing), with its exact extremes from histogram_extremes_ns/<name> when present.
 * 0, or an error with err = "FILE: WHERE.histograms/NAME: why" (corrupt, not latscope's
 * layout). */
int bench_merge_add_blob(const char *d, size_t n, const char *name, struct lat_hist *dst,
                         const char *file, const char *where, char *err, size_t errsz);

/* One shard's JSON of one point (merge-parts.c): the point object d[0..n), its shard index,
 * the file name (messages) and its measured window's start from its t0 (ns). */
struct bench_merge_shard {
    const char *d, *name;
    size_t n;
    uint32_t index;
    lat_ns ws_rel_ns;
    size_t point; /* the point's index (messages) */
};
/* The merged point's GPU telemetry (p->gpu), time slices (p->slices) and multi-turn sessions
 * (p->sessions) from the shards' (see merge-parts.c for what merges exactly and what is "not
 * mergeable"); after the histograms and the window (p->res.window_start_ns). 0, -ENOMEM, or
 * LAT_E_USAGE with err (different --slice widths, --sessions settings, a corrupt histogram). */
int bench_merge_point_parts(struct bench_point *p, const struct bench_merge_shard *sh, size_t n,
                            char *err, size_t errsz);

#endif
