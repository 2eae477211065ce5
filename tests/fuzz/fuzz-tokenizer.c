/* fuzz-tokenizer.c - libFuzzer target for the tokenizer.json reader (src/llm/tokenizer.c): any
 * input is loaded; a tokenizer that loads encodes a few texts (its own bytes included). */
#include "llm/tokenizer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct llm_tokenizer *t = NULL;
    char why[256];
    int rc = llm_tokenizer_load_mem((const char *)data, size, "fuzz", &t, why, sizeof(why));
    if (rc) {
        if (t || !why[0] || !memchr(why, '\0', sizeof(why))) abort();
        return 0;
    }
    static const char *const texts[] = {"hello world", "  \n\r\n x's 123 \xe4\xb8\xad\xe6\x96\x87",
                                        "\xff\xfe bad utf-8 \xc3", ""};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        struct lat_buf ids = LAT_BUF_INIT;
        int64_t n = -1, m = -1;
        if (llm_tokenizer_encode(t, texts[i], strlen(texts[i]), &ids, &n) == 0) {
            if (n < 0 || ids.len != (size_t)n * sizeof(int32_t)) abort();
            for (int64_t k = 0; k < n; k++) {
                int32_t id;
                memcpy(&id, ids.data + 4 * k, 4);
                if (id < 0 || (size_t)id >= llm_tokenizer_vocab_size(t)) abort();
            }
            if (llm_tokenizer_count(t, texts[i], strlen(texts[i]), &m) == 0 && m != n) abort();
        }
        buf_fini(&ids);
    }
    int64_t n;
    llm_tokenizer_count(t, (const char *)data, size < 4096 ? size : 4096, &n);
    struct lat_buf pieces = LAT_BUF_INIT;
    llm_tokenizer_pieces(t, (const char *)data, size < 4096 ? size : 4096, &pieces);
    buf_fini(&pieces);
    llm_tokenizer_free(t);
    return 0;
}
