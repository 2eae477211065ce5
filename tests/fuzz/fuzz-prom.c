/* fuzz-prom.c - libFuzzer target for the Prometheus text exposition parser (src/llm/prom.c). */
#include "llm/prom.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct prom_set s = {0};
    unsigned long line = 0;
    prom_parse((const char *)data, size, &s, &line);
    /* The set is sorted and every key starts with its metric name. */
    for (size_t i = 0; i < s.n; i++) {
        if (s.s[i].name_len == 0 || s.s[i].name_len > strlen(s.s[i].key)) abort();
        if (i && strcmp(s.s[i - 1].key, s.s[i].key) > 0) abort();
        double v;
        if (!prom_get(&s, s.s[i].key, &v)) abort();
    }
    prom_set_fini(&s);
    return 0;
}
