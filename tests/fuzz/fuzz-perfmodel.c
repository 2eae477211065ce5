/*
 * fuzz-perfmodel.c - libFuzzer target for the performance model's args scanner and formulas
 * (pm_cost in src/analyze/perfmodel.c) and the peak-table name matcher.
 *
 * Input: up to four NUL-separated strings: op name, "Input Dims", "Input type", "Concrete
 * Inputs" (raw JSON text as the trace model keeps it). The cost, when computed, must be finite
 * and not negative.
 */
#include "analyze/perfmodel.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    const char *part[4] = {"", NULL, NULL, NULL};
    char *p = buf;
    for (int i = 0; i < 4; i++) {
        part[i] = p;
        size_t l = strlen(p);
        if (p + l >= buf + size) break;
        p += l + 1;
    }
    (void)pm_peak_for(part[0]);
    struct pm_cost c;
    if (pm_cost(part[0], part[1], part[2], part[3], &c) == 0) {
        if (!(c.flops >= 0) || !(c.bytes >= 0) || isinf(c.flops) || isinf(c.bytes)) abort();
        if (!memchr(c.shape, 0, sizeof(c.shape))) abort();
    }
    free(buf);
    return 0;
}
