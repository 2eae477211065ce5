/* fuzz-slo.c - libFuzzer target for the text parsers of src/stats: SLO expressions
 * (--slo) and arrival specs (--arrival); every parsed SLO must format and re-parse. */
#include "stats/sched.h"
#include "stats/search.h"

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
    struct slo slo;
    const char *why;
    if (slo_parse(s, &slo, &why) == 0) {
        for (int i = 0; i < slo.n; i++) {
            char buf[128];
            struct slo again;
            slo_term_format(&slo.t[i], buf, sizeof(buf));
            if (slo.t[i].stat != SLO_ERRORS && slo_parse(buf, &again, &why) != 0) abort();
            (void)slo_term_holds(&slo.t[i], 1e6);
        }
    }
    struct sched_spec sp;
    if (sched_parse(s, &sp) == 0) {
        struct lat_sched sc;
        if (sched_init(&sc, &sp, 1000.0, 1, 0) == 0)
            for (int i = 0; i < 16; i++)
                (void)sched_next(&sc);
    }
    free(s);
    return 0;
}
