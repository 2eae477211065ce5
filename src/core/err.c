/*
 * err.c - one strerror for errno values and latscope's own codes.
 *
 * Codes in [LAT_E_MIN, LAT_E_BASE) are ours; anything else negative is -errno. The strings are
 * static; callers add context (file, byte offset) themselves.
 */
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *lat_strerror(int rc)
{
    switch (rc) {
    case 0:
        return "success";
    case LAT_E_USAGE:
        return "invalid argument";
    case LAT_E_UNSUPPORTED:
        return "not supported";
    case LAT_E_TRUNCATED:
        return "input ends early (truncated file?)";
    case LAT_E_OVERFLOW:
        return "value out of range";
    case LAT_E_NOT_FOUND:
        return "not found";
    case LAT_E_INTERNAL:
        return "internal error";
    case LAT_E_BAD_JSON:
        return "malformed JSON";
    case LAT_E_NOT_TRACE:
        return "not a trace format latscope reads";
    case LAT_E_GZIP:
        return "corrupt or truncated gzip data";
    case LAT_E_BAD_EVENTS:
        return "most events of the trace have no usable time";
    case LAT_E_HTTP_PARSE:
        return "malformed HTTP response";
    case LAT_E_SSE_PARSE:
        return "malformed server-sent event stream";
    case LAT_E_PB_PARSE:
        return "malformed protobuf or gRPC message";
    case LAT_E_HLOG:
        return "malformed HdrHistogram log";
    case LAT_E_NO_DRIVER:
        return "no NVIDIA driver found";
    case LAT_E_PERM:
        return "permission denied";
    case LAT_E_CUPTI:
        return "CUPTI error";
    default:
        break;
    }
    if (rc < 0 && rc > LAT_E_BASE) return strerror(-rc);
    return "unknown error";
}

int lat_errf(char *err, size_t len, int rc, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return rc;
}
