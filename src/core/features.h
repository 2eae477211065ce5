/*
 * features.h - what this build of latscope has: its version (git describe, build/version.c)
 * and the optional features with the libraries behind them, as `latscope version` prints them
 * and every JSON output carries them (lat_build_json()).
 *
 * A feature is compiled in when the Makefile's probe found its library (LAT_HAVE_*: MPI, the
 * CUPTI headers, libdw, libdeflate, ISA-L, SQLite); zlib and OpenSSL are always there. The
 * version is the one the library reports at run time where it has a call for it (zlib, OpenSSL,
 * SQLite, libdw), else the one its headers had at build time (Open MPI, ISA-L, libdeflate,
 * CUPTI's API version); "" when neither says.
 */
#ifndef LAT_CORE_FEATURES_H
#define LAT_CORE_FEATURES_H

#include "core/jsonw.h"

#include <stdbool.h>
#include <stddef.h>

/* git describe of the source tree (generated build/version.c) */
extern const char lat_version[];

struct lat_feature {
    const char *name;    /* "mpi", "cuda-capture", ...: the JSON key */
    const char *library; /* "Open MPI" */
    const char *what;    /* what it gives: "mpirun ... analyze, bench --mpi" */
    bool compiled;
    char version[48]; /* "4.1.4"; "" when unknown or not compiled */
};

/* The features in a fixed order (*n of them); filled once, thread-safe. */
const struct lat_feature *lat_features(size_t *n);
/* Writes the key "latscope" and its value {"version": ..., "features": {NAME: {"compiled":
 * bool, "library": ..., "version": ... or null}, ...}} into the object w is in, on one line
 * (so the goldens' normaliser can replace it whole, tests/e2e/golden-norm.sh). */
void lat_build_json(struct jsonw *w);

#endif
