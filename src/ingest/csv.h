/*
 * csv.h - a small streaming CSV tokenizer (RFC 4180) for the CSV readers of src/ingest/, and
 * the number parsing they share (thousands separators, decimal comma).
 *
 * Bytes go in by csv_feed() in chunks of any size (a record may span chunks); every complete
 * record is handed to the callback as fields (decoded: quotes removed, "" -> ", embedded commas
 * and newlines kept), each field NUL-terminated. Bounded: a record longer than max_record bytes
 * or with more than max_fields fields fails with LAT_E_OVERFLOW; an open quote at the end of
 * the input fails csv_end() with LAT_E_TRUNCATED. Lenient where tools are: a quote inside an
 * unquoted field, or text after a closing quote, is kept as text; CR before LF is dropped;
 * empty lines are no record; the last line needs no newline.
 *
 * Tools put lines that are not CSV before (and between) their records (ncu's `==PROF==` lines
 * and the profiled program's own output): with is_header set, every line up to the first one
 * is_header accepts is delivered raw (rec.raw, one field, never tokenized, so an odd quote in
 * it cannot swallow the records), and with raw_prefix set, a later line starting with that
 * prefix (unquoted) is delivered raw too. Raw lines longer than max_record are cut, not errors.
 */
#ifndef LAT_INGEST_CSV_H
#define LAT_INGEST_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct csv_field {
    const char *s; /* NUL-terminated, valid during the callback */
    size_t n;
    bool quoted;
};

struct csv_rec {
    const struct csv_field *f;
    size_t n;      /* fields (>= 1) */
    uint64_t line; /* 1-based line number where the record starts */
    bool raw;      /* a non-CSV line (see above), in f[0] */
    bool last;     /* delivered by csv_end(): no newline after it. A callback that finds it
                      incomplete returns LAT_E_TRUNCATED (csv_end sets cut_record) */
};

/* Returns 0 to go on, or an error that csv_feed()/csv_end() return as is. */
typedef int (*csv_rec_fn)(void *ctx, const struct csv_rec *r);

struct csv_rd {
    /* set before the first csv_feed (csv_init sets defaults) */
    size_t max_record; /* bytes of one record */
    size_t max_fields;
    bool (*is_header)(const char *line, size_t n); /* NULL: CSV from the first line */
    const char *raw_prefix;                        /* NULL: none */
    /* the tool quotes every field and ends every record with a newline (ncu): a last record
     * without one that ends after a separator or inside an unquoted field is cut short, and
     * csv_end() fails with LAT_E_TRUNCATED (cut_record set) */
    bool all_quoted;
    csv_rec_fn fn;
    void *ctx;
    /* state */
    char *buf;
    size_t len, cap;
    size_t *off; /* field starts in buf */
    bool *quoted;
    size_t nf, fcap;
    int st;
    bool started, preamble, raw_line, cut, any;
    bool cut_record; /* csv_end() found the last record cut short (all_quoted, callback) */
    bool at_end;     /* csv_end() is delivering the last record */
    uint64_t line, rec_line;
    uint64_t raw_lines; /* lines delivered raw */
};

void csv_init(struct csv_rd *r, csv_rec_fn fn, void *ctx);
/* 0, or the callback's error, LAT_E_OVERFLOW or -ENOMEM. */
int csv_feed(struct csv_rd *r, const char *d, size_t n);
/* The end of the input: delivers a last record without a newline. 0, LAT_E_TRUNCATED (a quoted
 * field never closed, or with all_quoted a last record cut after a separator), or the
 * callback's error. */
int csv_end(struct csv_rd *r);
void csv_fini(struct csv_rd *r);

/* ---- a whole input ---- */

/* What the CSV readers' error messages say about their format. */
struct csv_src_msgs {
    const char
        *what; /* the file, as in "NAME: WHAT that ends inside ...": "an `ncu --csv` report" */
    const char *redo; /* how to write it again, after "truncated? " */
    const char *isnt; /* after "not ", for a record over the limits: "an ncu report" */
};
struct ingest_src;
/* Feeds every chunk of src to r (set up by csv_init and the caller), then csv_end() and
 * csv_fini(); src stays open (the caller closes it). *bytes (may be NULL): the bytes read
 * (decompressed). 0, or the error with err = "NAME: why": the input's own (gzip, read), a quoted
 * field never closed ("WHAT that ends inside a quoted field (line N): truncated? REDO"), a last
 * record cut short (all_quoted: "WHAT whose last record (line N) is cut short ..."), a record
 * over r->max_record bytes or r->max_fields fields (naming LATSCOPE_MAX_VALUE), else
 * lat_strerror() of the callback's error. */
int csv_feed_src(struct csv_rd *r, struct ingest_src *src, const char *name,
                 const struct csv_src_msgs *m, uint64_t *bytes, char *err, size_t errsz);

/* ---- numbers ---- */

enum csv_decimal { CSV_DEC_DOT = 0, CSV_DEC_COMMA = 1 };

/* What a number's text says about the decimal separator: +1 it must be '.' ("1,234.5", "0.25",
 * "1,234,567"), -1 it must be ',' ("1.234,5", "0,25", "1.234.567"), 0 it cannot tell ("1,234",
 * "1.234", "42") or it is not a number. */
int csv_decimal_evidence(const char *s, size_t n);
/* Parses a number written with decimal separator dec and optional grouping (the other of ',' and
 * '.', spaces or U+00A0/U+202F between digit groups), sign and exponent. False for anything
 * else ("", "n/a", "(384, 1, 1)", "inf", hex). *is_int: an integer within int64 (then *iv). */
bool csv_number(const char *s, size_t n, enum csv_decimal dec, double *d, bool *is_int,
                int64_t *iv);

#endif
