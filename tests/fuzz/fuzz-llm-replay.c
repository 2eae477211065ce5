/* fuzz-llm-replay.c - libFuzzer target for the --replay trace parser (src/llm/replay.c). */
#include "core/buf.h"
#include "llm/chunk.h"
#include "llm/replay.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct llm_replay r;
    char why[256];
    int rc = llm_replay_parse(&r, (const char *)data, size, "fuzz", why, sizeof(why));
    if (rc != 0) {
        /* an error leaves nothing behind and says why */
        if (r.n || r.e || r.offsets || r.arena || (!why[0] && rc != -ENOMEM)) abort();
        return 0;
    }
    if (r.n == 0 || r.offsets[0] != 0) abort();
    for (size_t i = 0; i < r.n; i++) {
        const struct llm_replay_entry *e = &r.e[i];
        if (i && r.offsets[i] < r.offsets[i - 1]) abort();
        if (e->json_len ? e->json_off + e->json_len > r.arena_len
                        : e->input_tokens < 1 && !e->nhash)
            abort();
        if (e->nhash && e->hash_off + e->nhash > r.nhash_all) abort();
        if (e->nhash && e->nhash <= 64) { /* Mooncake blocks: a JSON string of the tokens */
            struct lat_buf b = LAT_BUF_INIT;
            r.block_size = 16;
            if (llm_mooncake_prompt(&b, &r, e, i) || !lj_valid(b.data, b.len)) abort();
            int64_t spaces = 0, want = e->input_tokens > 0 ? e->input_tokens : 16 * e->nhash;
            if (want > 16 * (int64_t)e->nhash) want = 16 * (int64_t)e->nhash;
            for (size_t k = 0; k < b.len; k++)
                spaces += b.data[k] == ' ';
            if (spaces != want) abort(); /* one " word" token each */
            buf_fini(&b);
        }
        if (e->json_len && r.arena[e->json_off] != (e->messages ? '[' : '"')) abort();
    }
    llm_replay_fini(&r);
    return 0;
}
