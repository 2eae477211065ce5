/*
 * stacks.h - what the CPU stack-file readers share (folded.c, perfscript.c, speedscope.c).
 * Internal to src/ingest/.
 *
 * They fill the model exactly as `latscope trace --cpu` does (capture/cpuprof.h): one
 * LAT_EV_CPU_SAMPLE instant per sample on its thread's track, name = leaf frame, cat
 * "cpu_sample", arg "stack" (frames root-first, ';'-separated) and arg "state" = "on". Frame
 * names follow the capture's conventions, so analyze/cpu.c merges and colours them the same way:
 * Python frames "py:func (file:line)" (model/pyframe.h: the file shortened as py-spy raw does),
 * kernel frames "func_[k]", a native frame without a symbol
 * "[module]", an empty stack "[unknown]". Samples of one stack share their two args. A record
 * that stands for COUNT > 1 samples (a folded line's count, a speedscope weight of unit "none")
 * is ONE event with a third arg "weight" = COUNT (lat_sample_weight(), model/events.h): weights
 * are kept, never expanded, so `a;b 19999999` is one event of 19 999 999 samples.
 */
#ifndef LAT_INGEST_STACKS_H
#define LAT_INGEST_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "ingest/source.h"
#include "model/events.h"

/* At most this many sample events in one file (each costs ~80 bytes of model; fuzzing builds:
 * fewer, to stay inside the fuzzer's memory limit). */
#if defined(LAT_FUZZING) && LAT_FUZZING
#define STK_MAX_SAMPLES 1000000ull
#else
#define STK_MAX_SAMPLES 20000000ull
#endif
/* Events a reader makes that are not records of the file (a speedscope evented profile sampled on
 * its timeline) are bounded by its size: at most max(STK_CAP_FIXED, STK_CAP_PER_BYTE x its bytes
 * read so far) events (and never more than STK_MAX_SAMPLES). Weights cost nothing: one event
 * whatever the count. */
#define STK_CAP_FIXED    400000ull
#define STK_CAP_PER_BYTE 64ull
/* The most samples (the sum of the weights) of one file: 2^53, so that every count and share
 * computed from them in a double is exact. */
#define STK_MAX_WEIGHT (1ull << 53)
/* The longest line of a text stack file. */
#define STK_MAX_LINE (16u << 20)

struct stk_build {
    struct lat_trace *t;
    struct lat_cpu_ids ids;
    uint32_t unknown;
    uint64_t samples;     /* the samples (sum of the weights) */
    uint64_t events;      /* the sample events made */
    uint64_t in_bytes;    /* input bytes read so far, kept current by readers that make events
                           * of their own (speedscope): see stk_cap(); UINT64_MAX (stk_init): no
                           * cap but STK_MAX_SAMPLES */
    struct lat_buf stack; /* the stack being built, root-first */
    size_t nframes;
    uint32_t *arg_of; /* stack string id -> first arg index + 1 (shared args) */
    size_t arg_of_cap;
};

/* New trace with format `format`; 0 or -ENOMEM. */
/* The readers' error: "NM: WHAT, " then fmt into err (when err is not NULL); returns rc. */
int stk_fail(char *err, size_t errsz, const char *nm, const char *what, int rc, const char *fmt,
             ...) __attribute__((format(printf, 6, 7)));
int stk_init(struct stk_build *b, const struct lat_trace_format *format);
/* Frees what b holds, the trace too unless it was taken (b->t = NULL). */
void stk_fini(struct stk_build *b);
/* Track (pid, tid), labelled with label[0..n) when it has none (label may be NULL). */
int stk_track(struct stk_build *b, int64_t pid, int64_t tid, const char *label, size_t n,
              uint32_t *track);
void stk_reset(struct stk_build *b);
/* Appends one frame as it is (';', NUL and line breaks become ':'). */
int stk_push(struct stk_build *b, const char *f, size_t n);
/* Appends a frame written as py-spy does: "func (file.py:line)" -> "py:func (file.py:line)";
 * "0x7f.. (libc.so.6)" -> "[libc.so.6]"; "sym (libfoo.so)" -> "sym"; anything else as it is. */
int stk_push_pyspy(struct stk_build *b, const char *f, size_t n);
/* Appends a frame from a name and file (speedscope): Python files give lat_py_frame_name()'s
 * "py:name (file:line)" (line < 0: "py:name (file)"), native ones as stk_push_pyspy. */
int stk_push_named(struct stk_build *b, const char *name, size_t nn, const char *file, size_t fn,
                   int64_t line);
/* The most sample events a file of `in_bytes` bytes may hold: max(STK_CAP_FIXED,
 * STK_CAP_PER_BYTE x in_bytes), at most STK_MAX_SAMPLES. */
uint64_t stk_cap_of(uint64_t in_bytes);
uint64_t stk_cap(const struct stk_build *b);
/* Adds `count` samples of the current stack at ts on track: one event, of weight `count`.
 * LAT_E_OVERFLOW (nothing added) when the file's events would exceed stk_cap(b) or its samples
 * STK_MAX_WEIGHT. */
int stk_emit(struct stk_build *b, uint32_t track, lat_ns ts, uint64_t count);
/* Adds metadata key = raw JSON value. */
int stk_meta(struct stk_build *b, const char *key, const char *json);

/* Lines of a source, across chunks. */
struct stk_lines {
    struct ingest_src *src;
    const char *p, *end;
    struct lat_buf carry;
    uint64_t lineno, bytes;
    bool eof, unterminated; /* unterminated: the line returned last had no '\n' */
};
void stk_lines_init(struct stk_lines *L, struct ingest_src *src);
/* Next line without its "\n" / "\r\n": 1, 0 at the end, < 0 (error in err, "why" only). */
int stk_line(struct stk_lines *L, const char **line, size_t *len, char *err, size_t errsz);
void stk_lines_fini(struct stk_lines *L);

#endif
