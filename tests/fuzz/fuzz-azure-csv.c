/* fuzz-azure-csv.c - libFuzzer target for the Azure LLM trace CSV reader (src/llm/azure.c):
 * the whole-file parser (with and without a --requests limit), the format detector and the
 * timestamp parser on the input's first line. */
#include "llm/azure.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *p, size_t size, size_t limit)
{
    struct llm_replay r;
    char why[256];
    int rc = llm_azure_parse(&r, p, size, "fuzz", limit, why, sizeof(why));
    if (rc != 0) {
        /* an error leaves nothing behind and says why */
        if (r.n || r.e || r.offsets || r.arena || (!why[0] && rc != -ENOMEM)) abort();
        return;
    }
    if (r.n == 0 || r.offsets[0] != 0 || (limit && r.n > limit)) abort();
    for (size_t i = 0; i < r.n; i++) {
        if (i && r.offsets[i] < r.offsets[i - 1]) abort();
        if (r.e[i].input_tokens < 1 || r.e[i].output_tokens < 1 || r.e[i].json_len) abort();
    }
    llm_replay_fini(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    (void)llm_azure_is_csv(p, size);
    check(p, size, 0);
    check(p, size, 2);
    const char *nl = memchr(p, '\n', size);
    int64_t ns;
    if (llm_azure_time(p, nl ? (size_t)(nl - p) : size, &ns) == 0 &&
        ns < -(int64_t)24 * 3600 * 1000000000LL)
        abort(); /* years from 1970: at most a zone offset before the epoch */
    return 0;
}
