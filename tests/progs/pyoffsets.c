/*
 * pyoffsets.c - prints the CPython struct offsets latscope's remote Python reader uses, derived
 * from the headers of the Python it is compiled against (Py_BUILD_CORE internal headers). The
 * e2e test t356 compiles it for every installed CPython (3.11, 3.12, 3.13) and compares the
 * output with `latscope`'s hard-coded table (src/capture/cpu/pyread.c), so a wrong offset fails
 * a test instead of producing garbage stacks.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_runtime.h>
#include <stddef.h>
#include <stdio.h>

int main(void)
{
    printf("version %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
    printf("runtime_interp_head %zu\n", offsetof(_PyRuntimeState, interpreters.head));
    printf("interp_threads_head %zu\n", offsetof(PyInterpreterState, threads.head));
    printf("tstate_next %zu\n", offsetof(PyThreadState, next));
    printf("tstate_native_tid %zu\n", offsetof(PyThreadState, native_thread_id));
#if PY_MINOR_VERSION <= 12
    printf("tstate_cframe %zu\n", offsetof(PyThreadState, cframe));
    printf("cframe_current_frame %zu\n", offsetof(_PyCFrame, current_frame));
#else
    printf("tstate_current_frame %zu\n", offsetof(PyThreadState, current_frame));
#endif
#if PY_MINOR_VERSION <= 12
    printf("frame_code %zu\n", offsetof(_PyInterpreterFrame, f_code));
#else
    printf("frame_code %zu\n", offsetof(_PyInterpreterFrame, f_executable));
#endif
    printf("frame_previous %zu\n", offsetof(_PyInterpreterFrame, previous));
#if PY_MINOR_VERSION <= 12
    printf("frame_instr %zu\n", offsetof(_PyInterpreterFrame, prev_instr));
#else
    printf("frame_instr %zu\n", offsetof(_PyInterpreterFrame, instr_ptr));
#endif
    printf("frame_owner %zu\n", offsetof(_PyInterpreterFrame, owner));
#if PY_MINOR_VERSION == 11
    printf("frame_is_entry %zu\n", offsetof(_PyInterpreterFrame, is_entry));
#endif
    printf("code_filename %zu\n", offsetof(PyCodeObject, co_filename));
    printf("code_name %zu\n", offsetof(PyCodeObject, co_name));
    printf("code_qualname %zu\n", offsetof(PyCodeObject, co_qualname));
    printf("code_firstlineno %zu\n", offsetof(PyCodeObject, co_firstlineno));
    printf("code_linetable %zu\n", offsetof(PyCodeObject, co_linetable));
    printf("code_adaptive %zu\n", offsetof(PyCodeObject, co_code_adaptive));
    printf("object_type %zu\n", offsetof(PyObject, ob_type));
    printf("bytes_size %zu\n", offsetof(PyVarObject, ob_size));
    printf("bytes_data %zu\n", offsetof(PyBytesObject, ob_sval));
    printf("unicode_state %zu\n", offsetof(PyASCIIObject, state));
    printf("unicode_length %zu\n", offsetof(PyASCIIObject, length));
    printf("unicode_ascii_data %zu\n", sizeof(PyASCIIObject));
    printf("unicode_compact_data %zu\n", sizeof(PyCompactUnicodeObject));
    return 0;
}
