/*
 * pyread.h - CPython frames read from outside the process (process_vm_readv), for the CPU
 * sampler: CPython 3.11, 3.12 and 3.13 on x86_64/aarch64 (64-bit layouts).
 */
#ifndef LAT_CAPTURE_CPU_PYREAD_H
#define LAT_CAPTURE_CPU_PYREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct pyreader;

struct pyframe {
    const char *func; /* qualified name; lives in the reader's cache */
    const char *file; /* co_filename */
    int line;         /* -1 when unknown */
    bool entry;       /* outermost frame of one _PyEval_EvalFrameDefault call */
};

/* The version table: offsets for major.minor, NULL when unsupported. */
const struct pyoffsets *pyread_offsets(unsigned minor);
/* Opens a reader for process pid whose interpreter lives in ELF file `path` (the python
 * executable or libpython) loaded with bias `bias` (runtime address minus link-time address).
 * Returns 0, LAT_E_NOT_FOUND (no _PyRuntime in that file), LAT_E_UNSUPPORTED (a Python
 * version without a table; *version gets PY_VERSION_HEX when known) or -errno.
 * Free with pyreader_free(). */
int pyreader_open(pid_t pid, const char *path, uint64_t bias, struct pyreader **out,
                  uint32_t *version);
void pyreader_free(struct pyreader *r);
/* Frames of thread tid, leaf first, at most max. Returns the count (0 when the thread has no
 * Python frames or is not a Python thread), -EAGAIN when the stack read was torn or
 * implausible (the thread moved on during the read, a code object that is not code, more code
 * objects than cache ways in one set), or another -errno when the process cannot be read. */
int pyreader_stack(struct pyreader *r, pid_t tid, struct pyframe *out, int max);
/* Remote reads done so far (for the cost report). */
uint64_t pyreader_reads(const struct pyreader *r);
/* Stack reads given up because one cache set could not hold the walk's code objects. */
uint64_t pyreader_collisions(const struct pyreader *r);
/* Decodes a 3.11+ location table (co_linetable): line of code unit `index` of a code object
 * starting at firstlineno; -1 when unknown. Exposed for the unit tests. */
int pyread_line(const uint8_t *tab, size_t len, int firstlineno, uint64_t index);
/* One line "name value" per offset, as tests/progs/pyoffsets.c prints them from the headers. */
int pyread_dump_offsets(unsigned minor, char *buf, size_t len);

#endif
