/*
 * mooncake.c - prompts for Mooncake-style traces ("hash_ids": one id per block of tokens):
 * block text is a pure function of (seed, hash id), so a server's prefix cache hits exactly
 * where the trace says two requests share blocks.
 *
 * The words are two- and three-letter English words: " word" is one token in the BPE
 * vocabularies of the common model families and in the fixture's tokenization (a piece of at
 * most 4 bytes), so a block of N pieces is N tokens and block boundaries fall where the trace
 * puts them.
 */
#include "llm/replay.h"

#include "core/buf.h"

static const char *const mwords[64] = {
    "the", "of",  "and", "to",  "in",  "is",  "you", "it",  "he",  "was", "for", "on",  "are",
    "as",  "his", "at",  "be",  "had", "by",  "but", "not", "all", "we",  "can", "an",  "she",
    "do",  "how", "if",  "up",  "out", "so",  "her", "him", "has", "two", "go",  "see", "no",
    "way", "my",  "who", "its", "now", "day", "did", "get", "may", "new", "old", "use", "man",
    "one", "say", "any", "our", "own", "off", "run", "set", "yes", "yet", "sun", "sea",
};

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int llm_mooncake_prompt(struct lat_buf *out, const struct llm_replay *r,
                        const struct llm_replay_entry *e, uint64_t seed)
{
    int64_t bs = r->block_size > 0 ? r->block_size : LLM_MOONCAKE_BLOCK;
    int64_t left = e->input_tokens > 0 ? e->input_tokens : bs * (int64_t)e->nhash;
    int rc = buf_putc(out, '"');
    for (uint32_t i = 0; i < e->nhash && left > 0 && !rc; i++) {
        uint64_t st = mix(seed ^ mix(r->hash[e->hash_off + i] + 0x6a09e667f3bcc909ull));
        int64_t n = left < bs ? left : bs;
        for (int64_t k = 0; k < n && !rc; k++) {
            /* 6 bits a word: ten words per 64-bit draw */
            if (k % 10 == 0 && k) st = mix(st);
            rc = buf_putc(out, ' ');
            if (!rc) rc = buf_puts(out, mwords[(st >> (6 * (k % 10))) & 63]);
        }
        left -= n;
    }
    return rc ? rc : buf_putc(out, '"');
}
