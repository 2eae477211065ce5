/* fuzz-llm-workload.c - libFuzzer target for --extra-body: any JSON object it accepts must
 * give request bodies that are one valid JSON object, in both APIs, whatever members the
 * extra body replaces (model, prompt/messages, max_tokens, stream, ...). */
#include "core/buf.h"
#include "llm/chunk.h"
#include "llm/workload.h"

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
    for (int api = 0; api < 2; api++) {
        struct llm_workload_cfg cfg = {
            .api = api ? LLM_API_CHAT : LLM_API_COMPLETIONS,
            .model = (size & 1) ? "m" : NULL,
            .stream = (size & 2) != 0,
            .include_usage = true,
            .ignore_eos = (size & 4) != 0,
            .input = {4, 0},
            .output = {8, 0},
            .seed = 1,
            .extra_body = s,
        };
        struct llm_workload *w;
        char why[256];
        if (llm_workload_new(&cfg, &w, why, sizeof(why)) != 0) continue;
        struct lat_buf b = LAT_BUF_INIT;
        int32_t mt;
        if (llm_workload_body(w, 0, &b, &mt) == 0 && !lj_valid(b.data, b.len)) abort();
        buf_fini(&b);
        llm_workload_free(w);
    }
    free(s);
    return 0;
}
