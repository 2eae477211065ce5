/*
 * err.h - error codes shared by every library module.
 *
 * Library functions return 0, a negative errno, or a LAT_E_* code from the reserved range below
 * (HdrHistogram's pattern). lat_strerror() names both kinds. Modules add their codes here, in
 * their own block of 100, so the range stays one table.
 */
#ifndef LAT_CORE_ERR_H
#define LAT_CORE_ERR_H

enum lat_err {
    LAT_E_BASE = -10000,
    /* generic */
    LAT_E_USAGE = -10001, /* bad argument from the caller */
    LAT_E_UNSUPPORTED = -10002,
    LAT_E_TRUNCATED = -10003, /* input ended early */
    LAT_E_OVERFLOW = -10004,  /* a number or size does not fit */
    LAT_E_NOT_FOUND = -10005,
    LAT_E_INTERNAL = -10006,
    /* json / trace input: -10100 .. -10199 */
    LAT_E_BAD_JSON = -10100,
    LAT_E_NOT_TRACE = -10101,  /* valid JSON, but not a trace latscope knows */
    LAT_E_GZIP = -10102,       /* corrupt or truncated gzip stream */
    LAT_E_BAD_EVENTS = -10103, /* most events unusable (no valid ts/dur, wrong time unit) */
    /* bench / net: -10200 .. -10299 */
    LAT_E_HTTP_PARSE = -10200,
    LAT_E_SSE_PARSE = -10201,
    LAT_E_HLOG = -10202,
    LAT_E_PB_PARSE = -10203, /* not a valid protobuf / gRPC message */
    /* capture: -10300 .. -10399 */
    LAT_E_NO_DRIVER = -10300,
    LAT_E_PERM = -10301,
    LAT_E_CUPTI = -10302,
    LAT_E_MIN = -10999,
};

/* Returns a static string for a negative errno or a LAT_E_* code. Never NULL. */
const char *lat_strerror(int rc);

#include <stddef.h>
/* Writes the message (printf format) into err (len bytes, always NUL-terminated when len > 0) and
 * returns rc: `return lat_errf(err, errsz, LAT_E_PARSE, "%s: ...", name);` — the one helper of
 * the functions that report an error as a code plus a message buffer. */
int lat_errf(char *err, size_t len, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
