/*
 * demangle.c - kernel names as Kineto shows them (demangled), without linking C++.
 *
 * CUPTI gives mangled kernel names; Kineto, HTA and Perfetto users expect "void gemm<...>(...)".
 * latscope is C, so instead of linking libstdc++ the collector looks up __cxa_demangle in a
 * libstdc++ already in the process or loadable by name, once. Without one, names stay mangled
 * (still correct, only less readable). Single-threaded callers (the collector).
 */
#include "capture/demangle.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn demangler(void)
{
    static int tried;
    static cxa_demangle_fn fn;
    if (tried) return fn;
    tried = 1;
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (h) *(void **)&fn = dlsym(h, "__cxa_demangle");
    return fn;
}

char *lat_demangle(const char *s, size_t n)
{
    if (n < 3 || s[0] != '_' || s[1] != 'Z' || n > 65536) return NULL;
    cxa_demangle_fn fn = demangler();
    if (!fn) return NULL;
    char *z = malloc(n + 1);
    if (!z) return NULL;
    memcpy(z, s, n);
    z[n] = 0;
    int status = -1;
    char *out = fn(z, NULL, NULL, &status);
    free(z);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}
