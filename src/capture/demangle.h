/*
 * demangle.h - C++ symbol demangling for kernel names (CUPTI reports them mangled).
 */
#ifndef LAT_CAPTURE_DEMANGLE_H
#define LAT_CAPTURE_DEMANGLE_H

#include <stddef.h>

/*
 * Demangles an Itanium C++ name ("_Z5k_addPfi" -> "k_add(float*, int)") with the C++ runtime's
 * __cxa_demangle, loaded at run time (libstdc++.so.6). Returns a malloc()ed string the caller
 * frees, or NULL when s is not a mangled name or no demangler is available.
 */
char *lat_demangle(const char *s, size_t n);

#endif
