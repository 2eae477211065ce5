/*
 * stream.h - the wire formats of `latscope analyze --stream` (many ranks, read twice) and of
 * `mpirun -n N latscope analyze`: after pass 1, every process's files and scan to every process
 * (so that all number the ranks, drop the same last steps and align by the same offset); after
 * pass 2, each analysed rank as one record (its rendered part of the report and its packed
 * analysis), consumed in file order by the process that prints. Bytes only: the command does
 * the reading, the MPI calls and the messages.
 */
#ifndef LAT_ANALYZE_STREAM_H
#define LAT_ANALYZE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/analysis.h"
#include "core/buf.h"

/* One input file of a streamed job, as the processes exchange it. */
struct an_stream_file {
    uint32_t index; /* in the input set */
    uint8_t status; /* the reader's status of the file (opaque here) */
    bool loaded;    /* a trace: rank, timeline and rules hold */
    bool timeline;  /* a timeline trace (a rank of the job) */
    bool rules;     /* the one-trace-per-rank rule of a directory applies */
    int32_t rank;
    const char *reason; /* why it was skipped, "" when not; unpacked: points into the bytes */
    size_t reason_len;
};

/* Appends this process's scan and files to b. 0 or -ENOMEM. */
int an_stream_pass1_pack(struct lat_buf *b, const struct analysis_scan *scan,
                         const struct an_stream_file *files, size_t n);

/* Reads every process's pass-1 bytes (process p: all[offs[p]..offs[p+1])): the scans merged
 * into scan (the earliest time; the steps sorted, each once; scan is cleared first) and each
 * file handed to on_file (nfiles: the input set's size, an index beyond it is bad bytes).
 * 0, -ENOMEM, LAT_E_TRUNCATED (bad bytes) or what on_file returned. */
int an_stream_pass1_unpack(const char *all, const size_t *offs, int nproc, size_t nfiles,
                           struct analysis_scan *scan,
                           int (*on_file)(void *ctx, const struct an_stream_file *f), void *ctx);

/* Appends one rank's record to out: [u64 length][u32 file index][i32 rank][u64 fragment bytes]
 * [fragment][analysis_rank_pack bytes]; *start gets where it begins after the length (what
 * an_stream_record_read reads). 0 or -ENOMEM (out then holds a part: reset it). */
int an_stream_record_put(struct lat_buf *out, uint32_t index, int32_t rank, const void *frag,
                         size_t flen, const struct lat_analysis *one, size_t *start);

struct an_stream_record {
    uint32_t index;
    int32_t rank;
    const char *frag; /* the rank's rendered part, flen bytes (points into the record) */
    size_t flen;
    struct lat_analysis *one; /* the rank's analysis (owned: analysis_free) */
    size_t used;              /* bytes of the record read */
};

/* Reads a record (after its length). 0, -ENOMEM or LAT_E_TRUNCATED. */
int an_stream_record_read(const void *p, size_t n, struct an_stream_record *r);

/* A record's place in the gathered bytes of every process. */
struct an_stream_span {
    uint32_t index;
    size_t at, len;
};
/* Splits total gathered bytes into records, ordered by file index. 0 or -ENOMEM. */
int an_stream_split(const char *all, size_t total, struct an_stream_span **spans, size_t *n);

#endif
