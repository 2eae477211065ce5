/*
 * azure.h - `bench --target openai --replay FILE.csv`: the Azure LLM inference traces
 * (github.com/Azure/AzurePublicDataset: AzureLLMInferenceTrace_conv.csv / _code.csv, 2023, and
 * the 2024 week-long traces) into the same struct llm_replay the JSONL replay fills.
 *
 * CSV with a header row naming the columns TIMESTAMP, ContextTokens and GeneratedTokens (any
 * case, any order, other columns ignored; fields may be double-quoted):
 *   TIMESTAMP,ContextTokens,GeneratedTokens
 *   2023-11-16 18:15:46.6805900,4808,10
 * TIMESTAMP is a date and time, "YYYY-MM-DD HH:MM:SS" (or a 'T' between them) with 0 to 9
 * fractional digits and an optional time zone ("Z", "+00:00", "+0000", "-05"); without one it
 * is taken as UTC (only differences matter). Rows are in send order (non-decreasing times);
 * request k is sent at row k's offset from the first row, with a seeded synthetic prompt of
 * ContextTokens tokens and max_tokens = GeneratedTokens (a count of 0 is sent as 1: a request
 * needs one token in and one out). Blank lines, CRLF and a UTF-8 BOM are accepted.
 */
#ifndef LAT_LLM_AZURE_H
#define LAT_LLM_AZURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm/replay.h"

/* True when data's first non-blank line (after a BOM) is a CSV header with a TIMESTAMP
 * column (any case), i.e. the file is an Azure-style trace rather than JSON lines. */
bool llm_azure_is_csv(const char *data, size_t len);

/* Parses the date and time at [s, s + n) (format above) into ns since 1970-01-01 UTC.
 * Years 1970..2200 (so any two differ by less than INT64_MAX ns). Returns 0, or -1 when it is not
 * such a time (or out of range). */
int llm_azure_time(const char *s, size_t n, int64_t *ns);

/*
 * Parses a whole trace held in [data, data + len) into *r; name prefixes messages
 * ("FILE:LINE: ..."); limit > 0 keeps only the first limit requests (rows after them are not
 * read). Returns 0, -ENOMEM, or LAT_E_USAGE with why naming the line and the problem. On error
 * *r is left empty. Free with llm_replay_fini.
 */
int llm_azure_parse(struct llm_replay *r, const char *data, size_t len, const char *name,
                    size_t limit, char *why, size_t whylen);

#endif
