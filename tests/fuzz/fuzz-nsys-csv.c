/*
 * fuzz-nsys-csv.c - libFuzzer target for the `nsys stats --format csv` reader
 * (ingest/nsys-csv.c, its tokenizer ingest/csv.c, the rows through ingest/nsys-map.c) and
 * analyze's nsys stats section (analyze/nsys-stats.c) on what it read.
 *
 * The first byte picks the chunk size and one of the report headers put before the rest (or
 * none, so the fuzzer also makes its own headers and preambles). The reader must load it or
 * fail with a message; a loaded trace's events hold the model's bounds, summary rows have no
 * negative number, and both renderings of the section succeed.
 */
#include "analyze/sections.h"
#include "core/jsonw.h"
#include "ingest/formats.h"
#include "ingest/source.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const heads[] = {
        "",
        "Processing [r.sqlite] with [/r/cuda_gpu_trace.py]...\n\"Start (ns)\",\"Duration "
        "(ns)\",\"CorrId\",\"GrdX\",\"GrdY\",\"GrdZ\",\"BlkX\",\"BlkY\",\"BlkZ\",\"Reg/Trd\","
        "\"StcSMem (MB)\",\"DymSMem (MB)\",\"Bytes (MB)\",\"Throughput (MBps)\",\"SrcMemKd\","
        "\"DstMemKd\",\"Device\",\"Ctx\",\"GreenCtx\",\"Strm\",\"Name\"\n",
        "Start (us),End (us),Duration (us),DurChild (us),DurNonChild (us),Name,PID,TID,Lvl,"
        "NumChild,RangeId,ParentId,RangeStack,NameTree\n",
        "\"Time (%)\",\"Total Time (ms)\",\"Instances\",\"Avg (ms)\",\"Med (ms)\",\"Min (ms)\","
        "\"Max (ms)\",\"StdDev (ms)\",\"Name\"\n",
        "Start (s),Duration (s),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n",
        "\"Total (MiB)\",\"Count\",\"Avg (MiB)\",\"Operation\"\n",
        "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Style\",\"Range\"\n",
        "\"Time (%)\",\"Total Time (ns)\",\"Num Calls\",\"Name\"\n",
    };
    enum { NH = sizeof(heads) / sizeof(heads[0]) };
    if (size < 1) return 0;
    const char *h = heads[data[0] % NH];
    size_t hl = strlen(h), n = hl + size - 1;
    char *buf = malloc(n ? n : 1);
    if (!buf) return 0;
    memcpy(buf, h, hl);
    memcpy(buf + hl, data + 1, size - 1);
    struct ingest_src *src;
    char err[256] = "";
    if (src_open_mem(buf, n, (size_t)(data[0] / NH % 32) * 7 + 1, &src, err, sizeof(err))) {
        free(buf);
        return 0;
    }
    struct lat_trace *t = NULL;
    int rc = ingest_nsys_csv_load(src, "r.csv", NULL, &t, err, sizeof(err));
    free(buf);
    if (rc) {
        if (t || !err[0]) abort();
        return 0;
    }
    if (!lat_nsys_stats_is(t)) abort();
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.ts[i] < LAT_TS_MIN || t->ev.ts[i] > LAT_TS_MAX) abort();
        if (t->ev.dur[i] < 0 || t->ev.dur[i] > LAT_DUR_MAX) abort();
        if (t->ev.track[i] >= t->ntracks) abort();
        (void)lat_trace_str(t, t->ev.name[i]);
    }
    const struct lat_arg *c;
    for (size_t i = 0; i < t->ev.n; i++)
        if ((c = lat_trace_arg(t, i, "total")) && c->type == LAT_ARG_DOUBLE && !(c->v.d >= 0))
            abort();
    FILE *f = fopen("/dev/null", "w");
    if (f) {
        struct jsonw w;
        jsonw_init(&w, f, false);
        jsonw_obj_begin(&w);
        if (lat_nsys_stats_section_json(&w, t, 5)) abort();
        jsonw_obj_end(&w);
        if (jsonw_finish(&w)) abort();
        jsonw_fini(&w);
        if (lat_nsys_stats_section_text(f, t, 5)) abort();
        fclose(f);
    }
    lat_trace_free(t);
    return 0;
}
