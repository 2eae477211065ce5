/*
 * pyframe.h - the one spelling of a Python frame in a CPU sample's stack, for every producer
 * (`trace --cpu`'s frame reader, the py-spy speedscope/raw and `perf script` readers), so that
 * the same function has the same name whatever recorded it and `diff` matches them by name
 * (docs/format-cpu-stacks.md, "Frame names").
 *
 *   py:FUNC (FILE:LINE)
 *
 * FUNC as the source gives it (CPython 3.11+ and py-spy: the qualified name, `Enc.forward`);
 * FILE the source file as py-spy's raw output shortens it: an absolute path under an import
 * root (site-packages/, dist-packages/, the standard library's lib/python3.N/) from there on
 * (`/opt/venv/lib/python3.11/site-packages/numpy/linalg/__init__.py` -> `numpy/linalg/__init__.py`,
 * `/usr/lib/python3.11/json/encoder.py` -> `json/encoder.py`), any other absolute path (the
 * program's own files) its basename; a relative path (py-spy raw writes them so) and a
 * pseudo-file (`<frozen importlib._bootstrap>`, `<string>`) are kept whole. ":LINE" is left out
 * when the line is not known (line < 0).
 */
#ifndef LAT_MODEL_PYFRAME_H
#define LAT_MODEL_PYFRAME_H

#include <stddef.h>
#include <stdint.h>

/* Narrows file[0..*n) to the part frames spell (above). */
void lat_py_file_base(const char **file, size_t *n);
/* Writes the frame's name into buf (at most cap - 1 bytes and a NUL; cap may be 0) and returns
 * the length it needs without the NUL (as snprintf does): a result >= cap was cut short. */
size_t lat_py_frame_name(char *buf, size_t cap, const char *func, size_t fn, const char *file,
                         size_t fl, int64_t line);

#endif
