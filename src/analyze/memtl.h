/*
 * memtl.h - torch's export_memory_timeline raw file (a JSON list of [time, action, bytes,
 * category]) folded into HTA's memory timeline (hta/memory_analysis.py _process_raw_events at
 * f4d0062c): one point per distinct time, each holding the bytes per category so far. A push
 * parser: feed the (decompressed) bytes in any chunks, then finish. No allocation per row
 * beyond the growing point arrays. The [memory]-instant timeline of a trace is part of
 * analysis_run() (lat_an_rank.memdev, memops; memtl.c).
 */
#ifndef LAT_ANALYZE_MEMTL_H
#define LAT_ANALYZE_MEMTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LAT_MEMRAW_CATS 8 /* HTA's _CATEGORY_TO_INDEX */

struct lat_memraw {
    /* result, after lat_memraw_finish() */
    int64_t *times;                    /* n points: the row times (negative ones: the smallest
                                          positive time, as HTA) */
    int64_t (*sizes)[LAT_MEMRAW_CATS]; /* bytes per category at each point */
    size_t n, rows;
    int64_t peak[LAT_MEMRAW_CATS]; /* largest value of each category */
    int64_t peak_total;            /* largest sum over the categories */
    size_t peak_index;             /* the point where it is */
    int64_t tmin;                  /* smallest positive time (-1: none) */
    char err[128];                 /* why it failed */
    /* parser state */
    size_t cap;
    uint64_t offset;
    int depth, nfield;
    int64_t field[4], num;
    bool started, done, failed, in_num, neg, expect_item, expect_num;
};

void lat_memraw_init(struct lat_memraw *m);
/* 0, -ENOMEM, or LAT_E_NOT_TRACE with m->err. */
int lat_memraw_feed(struct lat_memraw *m, const char *p, size_t len);
int lat_memraw_finish(struct lat_memraw *m);
void lat_memraw_fini(struct lat_memraw *m);
/* "Parameter", "Optimizer state", "Input", "Temporary", "Activation", "Gradient", "Autograd",
 * "Unknown" (HTA's order). */
const char *lat_memraw_category(int c);
/* c10::DeviceType of a [memory] record: "CPU", "CUDA", ... */
const char *lat_an_mem_device_name(int64_t device_type);

/* The raw file's report after lat_memraw_finish(): the JSON document (build metadata, then
 * "memory_timeline_raw": points, peak, categories) to w (0 or the writer's error), and the same
 * as a text table to f. path is the file's name as given. */
struct jsonw;
int lat_memraw_json(struct jsonw *w, const struct lat_memraw *m, const char *path);
void lat_memraw_format_text(FILE *f, const struct lat_memraw *m, const char *path);

#endif
