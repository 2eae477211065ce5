/*
 * features.c - the build's version and compiled features (features.h).
 */
#include "core/features.h"

#include <openssl/crypto.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#if LAT_HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif
#if LAT_HAVE_SQLITE3
#include <sqlite3.h>
#endif
#if LAT_HAVE_MPI
#include <mpi.h>
#endif
#if LAT_HAVE_ISAL
#include <isa-l.h>
#endif
#if LAT_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#if LAT_HAVE_CUPTI
#include <cupti_version.h>
#endif
#if LAT_HAVE_NGHTTP2
#include <nghttp2/nghttp2.h>
#endif

enum { F_ZLIB, F_OPENSSL, F_ISAL, F_LIBDEFLATE, F_SQLITE, F_LIBDW, F_MPI, F_CUPTI, F_NGHTTP2, F_N };

static struct lat_feature feats[F_N] = {
    [F_ZLIB] = {"zlib", "zlib", "gzip input and output", true, ""},
    [F_OPENSSL] = {"openssl", "OpenSSL", "TLS: bench and serve-test with https://", true, ""},
    [F_ISAL] = {"isa-l", "ISA-L (igzip)", "gzip traces inflated about 2x faster than by zlib",
                LAT_HAVE_ISAL, ""},
    [F_LIBDEFLATE] = {"libdeflate", "libdeflate",
                      "found at build time; no reader uses it (no streaming inflate)",
                      LAT_HAVE_LIBDEFLATE, ""},
    [F_SQLITE] = {"sqlite", "SQLite", "Nsight Systems `nsys export --type sqlite` input",
                  LAT_HAVE_SQLITE3, ""},
    [F_LIBDW] = {"libdw", "libdw (elfutils)", "trace --cpu: DWARF unwinding of native stacks",
                 LAT_HAVE_LIBDW, ""},
    [F_MPI] = {"mpi", "Open MPI", "mpirun -n N latscope analyze, bench --mpi", LAT_HAVE_MPI, ""},
    [F_CUPTI] = {"cuda-capture", "CUPTI",
                 "latscope trace: CUDA capture (liblatscope-cupti.so; CUPTI loaded at run time)",
                 LAT_HAVE_CUPTI, ""},
    [F_NGHTTP2] = {"nghttp2", "nghttp2", "bench grpc://: KServe v2 / Triton over gRPC (HTTP/2)",
                   LAT_HAVE_NGHTTP2, ""},
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void put(size_t i, const char *v)
{
    snprintf(feats[i].version, sizeof(feats[i].version), "%s", v ? v : "");
}

static void fill(void)
{
    put(F_ZLIB, zlibVersion());
    /* "OpenSSL 3.0.19 27 Jan 2026": the second word */
    const char *o = OpenSSL_version(OPENSSL_VERSION);
    const char *sp = o ? strchr(o, ' ') : NULL;
    if (sp) {
        char v[48];
        snprintf(v, sizeof(v), "%s", sp + 1);
        char *e = strchr(v, ' ');
        if (e) *e = 0;
        put(F_OPENSSL, v);
    }
    char b[48];
    (void)b;
#if LAT_HAVE_ISAL
    snprintf(b, sizeof(b), "%d.%d.%d", ISAL_MAJOR_VERSION, ISAL_MINOR_VERSION, ISAL_PATCH_VERSION);
    put(F_ISAL, b);
#endif
#if LAT_HAVE_LIBDEFLATE
    put(F_LIBDEFLATE, LIBDEFLATE_VERSION_STRING);
#endif
#if LAT_HAVE_SQLITE3
    put(F_SQLITE, sqlite3_libversion());
#endif
#if LAT_HAVE_LIBDW
    put(F_LIBDW, dwfl_version(NULL));
#endif
#if LAT_HAVE_MPI && defined(OMPI_MAJOR_VERSION)
    snprintf(b, sizeof(b), "%d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
             OMPI_RELEASE_VERSION);
    put(F_MPI, b);
#endif
#if LAT_HAVE_CUPTI && defined(CUPTI_API_VERSION)
    snprintf(b, sizeof(b), "API %d", (int)CUPTI_API_VERSION);
    put(F_CUPTI, b);
#endif
#if LAT_HAVE_NGHTTP2
    put(F_NGHTTP2, nghttp2_version(0)->version_str);
#endif
}

const struct lat_feature *lat_features(size_t *n)
{
    pthread_once(&once, fill);
    *n = F_N;
    return feats;
}

void lat_build_json(struct jsonw *w)
{
    size_t n;
    const struct lat_feature *f = lat_features(&n);
    struct jsonw o; /* compact, whatever w's style: one line */
    jsonw_init(&o, NULL, false);
    jsonw_obj_begin(&o);
    jsonw_key(&o, "version");
    jsonw_str(&o, lat_version);
    jsonw_key(&o, "features");
    jsonw_obj_begin(&o);
    for (size_t i = 0; i < n; i++) {
        jsonw_key(&o, f[i].name);
        jsonw_obj_begin(&o);
        jsonw_key(&o, "compiled");
        jsonw_bool(&o, f[i].compiled);
        jsonw_key(&o, "library");
        jsonw_str(&o, f[i].library);
        jsonw_key(&o, "version");
        if (f[i].version[0])
            jsonw_str(&o, f[i].version);
        else
            jsonw_null(&o);
        jsonw_obj_end(&o);
    }
    jsonw_obj_end(&o);
    jsonw_obj_end(&o);
    jsonw_key(w, "latscope");
    if (jsonw_finish(&o) == 0 && o.buf.data)
        jsonw_raw(w, o.buf.data, o.buf.len);
    else
        jsonw_null(w);
    jsonw_fini(&o);
}
