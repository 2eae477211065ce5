/* fuzz-units.c - libFuzzer target for the duration and count parsers (option values). */
#include "core/units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    lat_ns ns;
    uint64_t n;
    char buf[64];
    if (units_parse_duration(s, LAT_NS_PER_S, &ns) == 0)
        units_format_duration(ns, buf, sizeof(buf));
    if (units_parse_count(s, &n) == 0) units_format_bytes(n, buf, sizeof(buf));
    free(s);
    return 0;
}
