/*
 * tok.h - streaming JSON tokenizer (pull API, no DOM) and a small convenience layer for
 * in-memory documents.
 *
 * Streaming use:
 *
 *     struct json_tok t;
 *     struct json_token tk;
 *     json_tok_init(&t, 0);
 *     for each chunk: json_tok_feed(&t, chunk, n);      (last one: json_tok_finish(&t))
 *         while ((rc = json_tok_next(&t, &tk)) == 1) use tk;
 *         if (rc < 0) error: json_tok_errmsg(&t), json_tok_erroff(&t)
 *         rc == 0: feed the next chunk (or, after finish, the document is complete)
 *     json_tok_fini(&t);
 *
 * Chunks may split the input at any byte. A chunk passed to json_tok_feed must stay valid until
 * json_tok_next returns 0 for it. Token text (tk.s) is valid until the next json_tok_next,
 * json_tok_feed or json_tok_fini call. Numbers keep their exact text; integers are also given as
 * int64/uint64 when they fit. Strings are decoded (escapes, \u surrogate pairs; a lone surrogate
 * becomes U+FFFD); raw bytes of invalid UTF-8 are kept as they are unless JSON_TOK_STRICT.
 * Duplicate keys are passed through in order (the convenience lookups return the last one, like
 * Python's json). Errors carry the absolute byte offset and what was expected there.
 */
#ifndef LAT_JSON_TOK_H
#define LAT_JSON_TOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

enum json_type {
    JSON_NONE = 0,
    JSON_OBJ_BEGIN, /* { */
    JSON_OBJ_END,   /* } */
    JSON_ARR_BEGIN, /* [ */
    JSON_ARR_END,   /* ] */
    JSON_KEY,       /* an object member name (decoded, in s/len) */
    JSON_STR,       /* a string value (decoded, in s/len) */
    JSON_NUM,       /* a number (exact text in s/len; see num_flags) */
    JSON_TRUE,
    JSON_FALSE,
    JSON_NULL,
    JSON_END, /* the top-level value is complete and the input ended (after json_tok_finish) */
};

/* num_flags */
enum json_num_flags {
    JSON_NUM_INT = 1u << 0,  /* no fraction and no exponent */
    JSON_NUM_I64 = 1u << 1,  /* integer that fits int64: tok.i */
    JSON_NUM_U64 = 1u << 2,  /* non-negative integer that fits uint64: tok.u */
    JSON_NUM_NEG = 1u << 3,  /* leading minus sign */
    JSON_NUM_FRAC = 1u << 4, /* has a '.' part */
    JSON_NUM_EXP = 1u << 5,  /* has an exponent */
};

struct json_token {
    enum json_type type;
    const char *s; /* KEY/STR: decoded bytes, NUM: number text (not NUL-terminated); else NULL */
    size_t len;
    uint64_t off; /* absolute byte offset of the token's first byte */
    int depth;    /* nesting depth of the token (top-level value: 0; its members: 1) */
    unsigned num_flags;
    int64_t i;
    uint64_t u;
    bool escaped; /* KEY/STR: the source contained escapes */
};

/* json_tok_init flags */
enum json_tok_flags {
    JSON_TOK_STRICT = 1u << 0, /* reject invalid UTF-8 and raw control characters in strings */
    JSON_TOK_MULTI = 1u << 1,  /* accept several whitespace-separated top-level values (JSONL) */
};

#define JSON_TOK_DEFAULT_MAX_DEPTH 512
/* Numbers longer than this (characters) are an error (LAT_E_OVERFLOW): no JSON producer writes
 * one, and the bound keeps tokenizing linear when a number is split across many chunks. */
#define JSON_TOK_MAX_NUMBER 4096

struct json_tok {
    /* private: the current window [p, end) and where it starts in the stream */
    const char *p, *end, *buf;
    uint64_t buf_off;
    const char *chunk; /* the caller's current chunk when reading from carry, else NULL */
    size_t chunk_len, chunk_used;
    struct lat_buf carry;   /* a token split across chunks */
    size_t carry_old;       /* bytes of carry that came before the current chunk */
    size_t resume;          /* string scan resume offset within the pending token */
    struct lat_buf scratch; /* decoded strings with escapes */
    unsigned flags;
    int max_depth, depth;
    size_t max_token;     /* json_tok_set_max_token (SIZE_MAX = no limit) */
    bool too_big;         /* the error is the max_token limit */
    unsigned char *stack; /* 'o' or 'a' per open container: small[] or the heap */
    unsigned char small[32];
    int state;
    bool eof, done, in_carry;
    int err;
    uint64_t err_off;
    char errmsg[160];
    char fdesc[16]; /* "found ..." text of an error (a member, not a local: no stack check) */
};

/* Initializes t (flags: enum json_tok_flags). Never fails; memory is allocated lazily. */
void json_tok_init(struct json_tok *t, unsigned flags);
/* Sets the nesting limit (default JSON_TOK_DEFAULT_MAX_DEPTH, at most 65535). */
void json_tok_set_max_depth(struct json_tok *t, int max_depth);
/* Sets the size limit of one token (a string or key, bytes as in the input, quotes and escapes
 * included): a longer one fails with LAT_E_OVERFLOW, json_tok_too_big() true. Enforced on
 * tokens that span chunks (those are the ones the tokenizer buffers: its memory stays within
 * about twice the limit); a token inside one chunk is already in the caller's memory. Default:
 * no limit. */
void json_tok_set_max_token(struct json_tok *t, size_t max_bytes);
bool json_tok_too_big(const struct json_tok *t);
void json_tok_fini(struct json_tok *t);
/* Makes data[0..n) the next input. Call only after json_tok_next returned 0. */
void json_tok_feed(struct json_tok *t, const char *data, size_t n);
/* Marks the end of the input (after the last feed). */
void json_tok_finish(struct json_tok *t);
/* Next token: 1 = a token in *tk, 0 = need more input (or done, after JSON_END was returned),
 * < 0 = error (LAT_E_BAD_JSON, LAT_E_TRUNCATED, LAT_E_OVERFLOW for the depth limit, -ENOMEM);
 * errors are sticky. */
int json_tok_next(struct json_tok *t, struct json_token *tk);
/* After an error: absolute byte offset and a message naming what was expected and found. */
uint64_t json_tok_erroff(const struct json_tok *t);
const char *json_tok_errmsg(const struct json_tok *t);
/* Bytes consumed so far (absolute offset of the next unread byte). */
uint64_t json_tok_offset(const struct json_tok *t);

/* Skips the value whose first token is tk (BEGIN: up to its END; scalars: nothing).
 * Returns 1 when skipped, 0 when more input is needed (call again with the same tk after
 * feeding: it resumes), < 0 on error. `pending` must be 0 on the first call. */
int json_tok_skip(struct json_tok *t, const struct json_token *tk, int *pending);

/* ---- numbers ---- */

/* Converts decimal number text s[0..n) to a fixed-point integer: value * 10^scale, exactly when
 * the result fits int64 (e.g. scale 3: "1712195495519689.047" -> 1712195495519689047; exponents
 * are applied exactly: "1.5e3" -> 1500000). Digits beyond `scale` decimals are rounded half away
 * from zero. *frac (may be NULL) is set when the value is not a whole number (a non-zero digit
 * after the decimal point once the exponent is applied). 0 <= scale <= 18.
 * Returns 0, LAT_E_OVERFLOW or LAT_E_BAD_JSON (not a JSON number). */
int json_num_fixed(const char *s, size_t n, int scale, int64_t *out, bool *frac);
/* Parses number text as a double (strtod on the exact text). 0 or LAT_E_BAD_JSON. */
int json_num_double(const char *s, size_t n, double *out);

/* ---- in-memory documents (small: KServe metadata, Triton stats, SSE payloads) ---- */

/* A value found in an in-memory document: its type (JSON_OBJ_BEGIN / JSON_ARR_BEGIN for
 * containers), and its raw text doc[off .. off+len). */
struct json_val {
    enum json_type type;
    size_t off, len;
};

/* Validates a whole document (one value, surrounding whitespace allowed). Returns 0 or an
 * error code; on error, *err_off and msg (may be NULL) describe it. */
int json_validate(const char *doc, size_t n, unsigned flags, uint64_t *err_off, char *msg,
                  size_t msgsz);

/* Finds the value at `path` in doc[0..n). The path is a sequence of segments separated by '/':
 * object keys or array indexes ("choices/0/delta/content"; "" = the whole document; a key that
 * contains '/' or '~' is written with "~1" / "~0" as in RFC 6901). Duplicate keys: the last one
 * wins. Returns 0, LAT_E_NOT_FOUND, or a parse error code. */
int json_find(const char *doc, size_t n, const char *path, struct json_val *out);
/* Typed getters on top of json_find. Integers: exact int64 (a number with a fraction fails
 * with LAT_E_USAGE unless its fraction is zero). Strings: decoded, appended to *out
 * (NUL-terminated). Double: any number. Bool: true/false. Return 0, LAT_E_NOT_FOUND,
 * LAT_E_USAGE (wrong type) or a parse error. */
int json_get_i64(const char *doc, size_t n, const char *path, int64_t *out);
int json_get_double(const char *doc, size_t n, const char *path, double *out);
int json_get_bool(const char *doc, size_t n, const char *path, bool *out);
int json_get_str(const char *doc, size_t n, const char *path, struct lat_buf *out);
/* Number of elements (array) or members (object) of the value at path. */
int json_get_count(const char *doc, size_t n, const char *path, size_t *count);

/* Iterates the members of an object or the elements of an array held in doc[off .. off+len)
 * (a json_val from json_find). For each, *key (objects only; may be NULL) receives the decoded
 * key appended to a cleared buffer, and *val the value's span (absolute offsets in doc).
 * Returns 1 for an item, 0 at the end, < 0 on error. */
struct json_iter {
    const char *doc;
    size_t n, pos, end;
    bool obj, started;
};
int json_iter_init(struct json_iter *it, const char *doc, size_t n, const struct json_val *v);
int json_iter_next(struct json_iter *it, struct lat_buf *key, struct json_val *val);

/* Decodes the JSON string literal lit[0..len) (quotes included) and appends it to *out
 * (NUL-terminated). Lone surrogates become U+FFFD. 0, LAT_E_BAD_JSON or -ENOMEM. */
int json_str_decode(const char *lit, size_t len, struct lat_buf *out);

#endif
