/*
 * units.c - human units for options and reports.
 *
 * Durations are parsed exactly into int64 ns: the integer and fractional digits are scaled
 * separately, so "0.1s" is 100000000 ns, not 99999999 (no strtod round trip). Up to 9
 * fractional digits are honoured; more are rejected rather than silently truncated.
 */
#include "core/units.h"
#include "core/err.h"

#include <stdio.h>
#include <string.h>

static int units_parse_fixed(const char *s, const char **end, uint64_t *ip, uint64_t *frac,
                             int *frac_digits)
{
    const char *p = s;
    uint64_t v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (v > (UINT64_MAX - 9) / 10) return LAT_E_OVERFLOW;
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        digits++;
    }
    uint64_t f = 0;
    int fd = 0;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (fd == 9) return LAT_E_USAGE;
            f = f * 10 + (uint64_t)(*p - '0');
            fd++;
            p++;
        }
    }
    if (digits == 0 && fd == 0) return LAT_E_USAGE;
    *ip = v;
    *frac = f;
    *frac_digits = fd;
    *end = p;
    return 0;
}

static int units_scale(uint64_t ip, uint64_t frac, int fd, uint64_t unit, uint64_t *out)
{
    if (unit && ip > UINT64_MAX / unit) return LAT_E_OVERFLOW;
    uint64_t v = ip * unit;
    uint64_t pow10 = 1;
    for (int i = 0; i < fd; i++)
        pow10 *= 10;
    /* frac / 10^fd of one unit; exact when unit is a multiple of 10^fd, otherwise truncated. */
    uint64_t fv = (unit % pow10 == 0) ? frac * (unit / pow10) : (frac * unit) / pow10;
    if (v > UINT64_MAX - fv) return LAT_E_OVERFLOW;
    *out = v + fv;
    return 0;
}

int units_parse_duration(const char *s, lat_ns default_unit_ns, lat_ns *out)
{
    static const struct {
        const char *suffix;
        uint64_t ns;
    } units[] = {{"ns", 1},
                 {"us", 1000},
                 {"\xc2\xb5s", 1000},
                 {"ms", 1000000},
                 {"s", 1000000000ULL},
                 {"m", 60000000000ULL},
                 {"h", 3600000000000ULL}};
    uint64_t ip, frac, v;
    int fd, rc;
    const char *end;

    if (!s) return LAT_E_USAGE;
    rc = units_parse_fixed(s, &end, &ip, &frac, &fd);
    if (rc) return rc;
    uint64_t unit = (uint64_t)default_unit_ns;
    if (*end) {
        unit = 0;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (strcmp(end, units[i].suffix) == 0) unit = units[i].ns;
        if (!unit) return LAT_E_USAGE;
    }
    rc = units_scale(ip, frac, fd, unit, &v);
    if (rc) return rc;
    if (v > (uint64_t)INT64_MAX) return LAT_E_OVERFLOW;
    *out = (lat_ns)v;
    return 0;
}

int units_parse_count(const char *s, uint64_t *out)
{
    uint64_t ip, frac, v;
    int fd, rc;
    const char *end;

    if (!s) return LAT_E_USAGE;
    rc = units_parse_fixed(s, &end, &ip, &frac, &fd);
    if (rc) return rc;
    uint64_t unit = 1;
    if (*end) {
        if (end[1]) return LAT_E_USAGE;
        switch (*end) {
        case 'k':
        case 'K':
            unit = 1000;
            break;
        case 'M':
            unit = 1000000;
            break;
        case 'G':
            unit = 1000000000;
            break;
        default:
            return LAT_E_USAGE;
        }
    }
    rc = units_scale(ip, frac, fd, unit, &v);
    if (rc) return rc;
    /* "1.5" without a suffix is not a count. */
    if (unit == 1 && fd && frac) return LAT_E_USAGE;
    *out = v;
    return 0;
}

char *units_format_duration(lat_ns ns, char *buf, size_t len)
{
    double v = (double)ns;
    const char *u = "ns";
    double a = v < 0 ? -v : v;
    if (a >= 1e9) {
        v /= 1e9;
        u = "s";
    } else if (a >= 1e6) {
        v /= 1e6;
        u = "ms";
    } else if (a >= 1e3) {
        v /= 1e3;
        u = "us";
    }
    a = v < 0 ? -v : v;
    if (a >= 100 || u[0] == 'n')
        snprintf(buf, len, "%.0f %s", v, u);
    else if (a >= 10)
        snprintf(buf, len, "%.1f %s", v, u);
    else
        snprintf(buf, len, "%.2f %s", v, u);
    return buf;
}

char *units_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *u[] = {"B", "kB", "MB", "GB", "TB"};
    double v = (double)bytes;
    int i = 0;
    while (v >= 1000 && i < 4) {
        v /= 1000;
        i++;
    }
    if (i == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.2f %s", v, u[i]);
    return buf;
}
