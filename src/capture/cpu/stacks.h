/*
 * stacks.h - interned frames and stacks for the CPU sampler, with their two text outputs:
 * folded stacks ("root;child;leaf COUNT" per line, the format flame-graph tools read) and a
 * self-contained SVG flame graph.
 *
 * A frame is a string id; a stack is a root-first sequence of frame ids with an on-CPU sample
 * count. Both are interned through open-addressing hash tables, so a sampler adds a stack per
 * sample without allocating once the tables have grown.
 */
#ifndef LAT_CAPTURE_CPU_STACKS_H
#define LAT_CAPTURE_CPU_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stackset {
    /* frames */
    char *pool;
    size_t pool_len, pool_cap;
    uint32_t *frame_off; /* frame id -> offset into pool */
    uint32_t nframes;
    size_t frames_cap;
    uint32_t *frame_hash; /* open addressing: frame id + 1, 0 = empty */
    uint32_t frame_hash_cap;
    /* stacks */
    uint32_t *seq; /* frame ids of all stacks, back to back */
    size_t seq_len, seq_cap;
    struct stack_ent {
        uint32_t off, len;
        uint64_t count;
    } * stacks;
    uint32_t nstacks;
    size_t stacks_cap;
    uint32_t *stack_hash;
    uint32_t stack_hash_cap;
};

void stackset_init(struct stackset *s);
void stackset_fini(struct stackset *s);
/* Interns frame name (n bytes); ';' and newlines are replaced so folded output stays valid. */
int stackset_frame(struct stackset *s, const char *name, size_t n, uint32_t *id);
const char *stackset_frame_name(const struct stackset *s, uint32_t id);
/* Interns a root-first stack of n frames. 0 or -ENOMEM. */
int stackset_intern(struct stackset *s, const uint32_t *frames, uint32_t n, uint32_t *id);
static inline const uint32_t *stackset_frames(const struct stackset *s, uint32_t id, uint32_t *n)
{
    *n = s->stacks[id].len;
    return s->seq + s->stacks[id].off;
}
/* Writes "a;b;c" for stack id into buf (truncated at a frame boundary when cap is short);
 * returns the length. */
size_t stackset_join(const struct stackset *s, uint32_t id, char *buf, size_t cap);
/* Folded stacks of every stack with a non-zero count, sorted, one per line. */
int stackset_write_folded(const struct stackset *s, FILE *f);
/* A self-contained SVG flame graph of the counts (title is escaped). */
int stackset_write_svg(const struct stackset *s, FILE *f, const char *title);

#endif
