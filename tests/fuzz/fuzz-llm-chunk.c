/* fuzz-llm-chunk.c - libFuzzer target for the OpenAI stream-event reader (src/llm/chunk.c). */
#include "llm/chunk.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct llm_chunk c;
    const char *p = (const char *)data;
    int rc = llm_chunk_parse(p, size, &c);
    /* The reader accepts exactly what the validator accepts (objects only). */
    if (rc == 0 && !lj_valid(p, size)) abort();
    if (rc == 0 && c.content && c.content_bytes == 0) abort();
    return 0;
}
