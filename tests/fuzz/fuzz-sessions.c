/* fuzz-sessions.c - libFuzzer target for the --sessions file parser and the history builder
 * (src/llm/sessions.c): every accepted file gives, for every turn of every session, with the
 * server's reply or the dataset's, a messages array that is valid JSON. */
#include "core/buf.h"
#include "core/err.h"
#include "llm/chunk.h"
#include "llm/sessions.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct llm_sessions S;
    char why[512];
    int rc = llm_sessions_parse(&S, (const char *)data, size, "fuzz", why, sizeof(why));
    if (rc != 0) {
        /* an error leaves nothing behind and says why */
        if (S.n || S.s || S.t || S.arena || (!why[0] && rc != -ENOMEM)) abort();
        return 0;
    }
    if (S.n == 0) abort();
    struct lat_buf h = LAT_BUF_INIT, m = LAT_BUF_INIT;
    size_t total = 0;
    for (size_t i = 0; i < S.n && total < 200; i++) {
        const struct llm_session *s = &S.s[i];
        if (s->n == 0 || s->first + s->n > S.nt || s->n > S.max_turns) abort();
        for (int ds = 0; ds < 2; ds++) {
            if (llm_sess_history_start(&S, s, &h)) abort();
            for (size_t k = 0; k < s->n && total < 200; k++, total++) {
                const struct llm_sess_turn *t = &S.t[s->first + k];
                if (t->user_off + t->user_len > S.arena_len) abort();
                if (t->reply_len && t->reply_off + t->reply_len > S.arena_len) abort();
                buf_reset(&m);
                if (llm_sess_messages(&S, s, k, &h, &m)) abort();
                if (!lj_valid(m.data, m.len) || m.data[0] != '[') abort();
                /* a reply the server might stream: escapes, a quote, a control character */
                static const char reply[] = "a\\\"b\\n\\u00e9";
                rc = llm_sess_history_add(&S, s, k, ds ? NULL : reply, ds ? 0 : sizeof(reply) - 1,
                                          &h);
                if (rc) abort();
            }
        }
    }
    buf_fini(&h);
    buf_fini(&m);
    llm_sessions_fini(&S);
    return 0;
}
