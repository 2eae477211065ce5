/*
 * tokenizer.h - a Hugging Face `tokenizer.json` read in C, to count tokens exactly (ISL/OSL,
 * prompts sized to N tokens) without Python or the model's server.
 *
 * Supported: model "BPE" over byte-level input (GPT-2, RoBERTa, Llama 3, Mistral-Nemo, GPT-NeoX
 * style): the ByteLevel pre-tokenizer (with its GPT-2 regex, add_prefix_space), or a Sequence of a
 * Split on the GPT-2 or the Llama-3 regex (behavior Isolated) and ByteLevel(use_regex false);
 * byte-to-unicode map, merges applied by rank (leftmost lowest rank first, like `tokenizers`),
 * ignore_merges, unk_token/fuse_unk, byte_fallback, added tokens (matched in the text before the
 * pre-tokenizer, as `tokenizers` does). Everything else (a normalizer, WordPiece, Unigram,
 * SentencePiece-style Metaspace) is refused with a message naming it: a count that is silently
 * wrong is worse than none. Counts are of the text alone: no special tokens (BOS) are added, no
 * chat template is applied (the server's usage.prompt_tokens includes those).
 *
 * Unicode classes of the regexes (\p{L}, \p{N}, \s): White_Space and the numeric ranges are
 * tables here; letters are what glibc's C.UTF-8 iswalpha says minus those numbers and the common
 * combining-mark blocks (\p{M} is not \p{L}). Text that is not valid UTF-8 counts each invalid
 * byte as a symbol of its own.
 *
 * A loaded tokenizer is read-only: any number of threads may count with it at once.
 */
#ifndef LAT_LLM_TOKENIZER_H
#define LAT_LLM_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

struct llm_tokenizer;

#define LLM_TOKENIZER_MAX_FILE (512u << 20) /* tokenizer.json larger than this is refused */

/* Loads path. 0, -errno (file), -ENOMEM, LAT_E_BAD_JSON or LAT_E_UNSUPPORTED with why naming
 * the file and the problem. Free with llm_tokenizer_free. */
int llm_tokenizer_load(const char *path, struct llm_tokenizer **out, char *why, size_t whylen);
/* The same from a document in memory (name is used in messages). */
int llm_tokenizer_load_mem(const char *doc, size_t n, const char *name, struct llm_tokenizer **out,
                           char *why, size_t whylen);
void llm_tokenizer_free(struct llm_tokenizer *t);

/* Token ids of text[0..n), appended to *ids (int32_t each) when ids is not NULL; *count gets how
 * many. 0 or -ENOMEM. */
int llm_tokenizer_encode(const struct llm_tokenizer *t, const char *text, size_t n,
                         struct lat_buf *ids, int64_t *count);
/* Number of tokens of text[0..n). 0 or -ENOMEM. */
int llm_tokenizer_count(const struct llm_tokenizer *t, const char *text, size_t n, int64_t *count);
/* The pre-tokenizer's pieces of text[0..n) (no added-token split, as `tokenizers`'
 * pre_tokenizer.pre_tokenize_str), appended to out as lowercase hex bytes, one piece per word,
 * separated by spaces (a prefix space of add_prefix_space included). For tests. 0 or -ENOMEM. */
int llm_tokenizer_pieces(const struct llm_tokenizer *t, const char *text, size_t n,
                         struct lat_buf *out);
/* Vocabulary size (largest id + 1) and the number of merges. */
size_t llm_tokenizer_vocab_size(const struct llm_tokenizer *t);
size_t llm_tokenizer_merges(const struct llm_tokenizer *t);
/* "gpt2" or "llama3": which pre-tokenizer regex the file asked for. */
const char *llm_tokenizer_pretok(const struct llm_tokenizer *t);

#endif
