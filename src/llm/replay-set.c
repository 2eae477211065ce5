/*
 * replay-set.c - freeing a loaded --replay trace (replay.h): below both parsers (replay.c for
 * JSON lines, azure.c for Azure CSV), which free what they half-built with it.
 */
#include "llm/replay.h"

#include <stdlib.h>
#include <string.h>

void llm_replay_fini(struct llm_replay *r)
{
    free(r->e);
    free(r->offsets);
    free(r->arena);
    free(r->hash);
    memset(r, 0, sizeof(*r));
}
