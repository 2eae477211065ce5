/*
 * units.h - parsing and formatting of human units: durations ("250us", "2s", "1.5m") and
 * counts ("10k", "2M"). Shared by every command's option parser.
 */
#ifndef LAT_CORE_UNITS_H
#define LAT_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/clock.h"

/*
 * Parses a duration. Suffixes: ns, us, ms, s, m, h. A bare number uses default_unit_ns
 * (e.g. LAT_NS_PER_S). Returns 0 or LAT_E_USAGE (bad text) / LAT_E_OVERFLOW.
 */
int units_parse_duration(const char *s, lat_ns default_unit_ns, lat_ns *out);
/* Parses a non-negative count with optional k/M/G (x1000) suffix. */
int units_parse_count(const char *s, uint64_t *out);
/* Formats a duration with 3 significant digits and a unit ("12.3 ms"). Returns buf. */
char *units_format_duration(lat_ns ns, char *buf, size_t len);
/* Formats a byte count ("1.50 MB", decimal units). Returns buf. */
char *units_format_bytes(uint64_t bytes, char *buf, size_t len);

#endif
