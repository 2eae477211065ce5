/*
 * timeline.h - the timeline of `latscope report`: lanes (CPU threads, GPU streams, annotations)
 * of a trace's duration events, plus level-of-detail bins pre-computed at several zoom levels so
 * the page stays interactive on traces of millions of events (docs/latscope-report.md, "LOD").
 *
 * Lanes: one per CPU thread track and per GPU (device, stream) track; user/GPU annotations
 * (NVTX ranges) get their own lane next to their track. Events are sorted by (ts, -dur) in a
 * lane and get a nesting depth (0 = not inside another event of the lane) and a parent.
 *
 * Levels: level j has bins of width w_j = w_0 / 4^j, w_0 = ceil(span / 1024). At level j an
 * event is "big" when dur >= 2 w_j: the page draws it individually; every other ("small") event
 * is summarised in the bins: a bin counts the small events starting in it, sums the time
 * covered by its outermost small events (clipped to the bin, at most w_j), and names the
 * longest of them (by its time inside the bin). Levels stop when a level holds more bins than
 * half the events, when no window of REP_TL_VIEW_BINS bins of the level holds more than
 * REP_TL_RAW_OK events (raw drawing is cheap from there on), when w_j would drop below the
 * time unit, or at REP_TL_MAX_LEVELS. Below the finest level the page draws raw events.
 *
 * Library code: never prints. The trace must outlive the timeline (names point into it).
 */
#ifndef LAT_REPORT_TIMELINE_H
#define LAT_REPORT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/jsonw.h"
#include "model/events.h"

#define REP_TL_BASE_BINS  1024
#define REP_TL_MAX_LEVELS 10
/* Raw events the page may draw in one view (widths up to REP_TL_VIEW_BINS bins of the finest
 * level): levels stop once no such window holds more. */
#define REP_TL_RAW_OK    100000
#define REP_TL_VIEW_BINS 2048

struct rep_tl_lane {
    uint32_t track; /* index into trace->tracks */
    bool gpu;
    bool annot; /* the annotation lane of this track */
    char *label;
    size_t n;
    uint32_t *ev;    /* trace event indices, sorted by (ts, -dur) */
    uint16_t *depth; /* nesting depth (clamped at 65535) */
    int32_t *parent; /* lane-local index of the enclosing event, -1 at depth 0 */
    uint16_t maxdepth;
};

struct rep_tl_bin {
    int64_t idx;     /* bin number: covers [t0 + idx*w, t0 + (idx+1)*w) */
    lat_ns busy;     /* time covered by outermost small events, clipped to the bin, <= w */
    uint32_t count;  /* small events starting in the bin */
    uint32_t top;    /* lane-local index of the longest small event touching the bin */
    uint16_t depth;  /* smallest depth among the bin's small events */
    lat_ns top_part; /* the time of `top` inside the bin */
};

struct rep_tl_lane_bins {
    struct rep_tl_bin *b; /* ascending idx, only non-empty bins */
    size_t n, cap;
    uint32_t *big; /* lane-local indices of big events, ascending */
    size_t nbig;
};

struct rep_tl_level {
    lat_ns w;
    struct rep_tl_lane_bins *lanes; /* one per timeline lane */
    size_t nbins;                   /* over all lanes */
};

struct rep_tl {
    const struct lat_trace *trace;
    lat_ns t0, t1; /* first start, last end over the lanes' events */
    lat_ns unit;   /* 1000 when every time is whole µs (JSON then carries µs), else 1 */
    struct rep_tl_lane *lanes;
    size_t nlanes;
    size_t nevents; /* over all lanes */
    struct rep_tl_level levels[REP_TL_MAX_LEVELS];
    size_t nlevels;
    /* names used, as trace string ids; name_of[string id] = local id (UINT32_MAX: unused) */
    uint32_t *names;
    size_t nnames, names_cap;
    uint32_t *name_of;
};

/* Builds the timeline of t: every duration event (not instants, counters or metadata) whose
 * ts and dur lie within +-2^61 ns. 0, -ENOMEM, or LAT_E_OVERFLOW when the events span more
 * than 2^61 ns (73 years). Free with rep_tl_free(). No duration event gives no lane. */
int rep_tl_build(const struct lat_trace *t, struct rep_tl **out);
void rep_tl_free(struct rep_tl *tl);

/* Writes the timeline as one JSON object (shape in docs/latscope-report.md): names, lanes with
 * delta-encoded columns, levels with delta-encoded bins. */
void rep_tl_write_json(struct jsonw *w, const struct rep_tl *tl);

#endif
