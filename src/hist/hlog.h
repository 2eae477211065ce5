/*
 * hlog.h - HdrHistogram interval log (.hlog), V2 compressed encoding: writer, reader, and the
 * single-histogram codec ("HISTF..." base64 blobs). Format: ../shared/docs/load-testing.md §2.2,
 * summarized in docs/metrics.md.
 *
 * Writer output:
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1767189312.000 (seconds since epoch), 2026-11-29 21:12:01 UTC]
 *   #[BaseTime: 1767189312.000 (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   Tag=e2e.sched,0.000,1.000,52301000.0,HISTFAAAA...
 * Entry start times are relative to BaseTime; the max column is the raw max in ns + ".0".
 * Values are in ns; readers that assume µs or ms must be told the unit ratio (HdrHistogram's
 * HistogramLogProcessor -outputValueUnitRatio 1e6 prints ms).
 */
#ifndef LAT_HIST_HLOG_H
#define LAT_HIST_HLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"
#include "hist/hist.h"

/* Largest counts array the decoder accepts (entries); bigger layouts are refused as corrupt
 * rather than allocated (2^22 entries = 32 MiB; 1 ns .. 1 h at 5 digits needs 3.8 M). */
#define HLOG_MAX_COUNTS_LEN (1 << 22)
#define HLOG_MAX_TAG        127

/* Appends the base64 V2 compressed encoding of h (starts with "HISTF") to out, no newline.
 * Returns 0, -ENOMEM or LAT_E_INTERNAL (zlib failure). */
int hlog_encode(const struct lat_hist *h, struct lat_buf *out);
struct jsonw;
/* JSON member key: h's blob (hlog_encode), or null when h is empty or cannot be encoded: the
 * "histograms" of bench results, which bench merge decodes. */
void hlog_json_blob(struct jsonw *w, const char *key, const struct lat_hist *h);
/* JSON member key: [min, max] of h, exact (a decoded blob only has its buckets' edges); nothing
 * when h is empty. */
void hlog_json_extremes(struct jsonw *w, const char *key, const struct lat_hist *h);
/* Decodes one base64 V2 blob of len characters. On success *h is initialized with the layout
 * from the blob (caller frees with hist_fini()); its min/max are the lowest/highest equivalent
 * values of the extreme non-empty buckets. Returns 0, -ENOMEM, LAT_E_HLOG (corrupt: bad
 * base64, cookie, zlib stream, header or counts) or LAT_E_UNSUPPORTED (V0/V1 cookie,
 * normalizing offset != 0). *why (when not NULL) gets a static text naming the problem. */
int hlog_decode(const char *b64, size_t len, struct lat_hist *h, const char **why);

struct hlog_writer {
    FILE *f;
    struct lat_buf line;
    int err; /* first error, sticky */
};

/* Writes the header (version, StartTime, BaseTime = start, legend). start_epoch_s: wall-clock
 * seconds since the epoch of the run's start. Returns 0 or -EIO/-ENOMEM. */
int hlog_writer_start(struct hlog_writer *w, FILE *f, double start_epoch_s);
/* Writes one entry. tag may be NULL (untagged) and must not contain ',', ' ', '\n' or exceed
 * HLOG_MAX_TAG (LAT_E_USAGE). start_s is relative to the start passed to hlog_writer_start(). */
int hlog_writer_interval(struct hlog_writer *w, const char *tag, double start_s, double length_s,
                         const struct lat_hist *h);
/* Flushes; returns the sticky error or 0. Does not close f. */
int hlog_writer_finish(struct hlog_writer *w);
void hlog_writer_fini(struct hlog_writer *w);

struct hlog_entry {
    char tag[HLOG_MAX_TAG + 1]; /* "" when untagged */
    double start_s;             /* as written */
    double abs_start_s;         /* seconds since the epoch, when the log says how to know it */
    double length_s;
    double max_col; /* informational column, never used for statistics */
    struct lat_hist hist;
};

/* Reads a log held in memory (the caller keeps text alive while reading). */
struct hlog_reader {
    const char *p, *end;
    int line;            /* 1-based number of the line last read */
    const char *why;     /* what was wrong, after an error */
    double start_time_s; /* #[StartTime: ...] or 0 */
    double base_time_s;  /* #[BaseTime: ...] or 0 */
    bool have_start, have_base, have_version;
    int version_major, version_minor;
};

void hlog_reader_init(struct hlog_reader *r, const char *text, size_t len);
/* Reads the next entry into *e (e->hist initialized: hist_fini() it after use). Returns 1 for
 * an entry, 0 at the end, or a negative code (LAT_E_HLOG, LAT_E_UNSUPPORTED, -ENOMEM) with
 * r->line and r->why naming the problem. Header lines ('#'), the legend and blank lines are
 * consumed as they come. A missing version line is accepted (Java logs may lack it). */
int hlog_reader_next(struct hlog_reader *r, struct hlog_entry *e);

#endif
