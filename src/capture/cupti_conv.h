/*
 * cupti_conv.h - CUPTI activity record -> capture record (capfile.h) conversion.
 *
 * Compiled into the injection library, the CLI and the unit tests; it reads the CUDA 13.0
 * record structs (cupti_activity.h) but calls no CUPTI function, so tests build records in
 * memory and convert them without a GPU. Without the toolkit (LAT_HAVE_CUPTI == 0) it converts
 * nothing and cupti_conv_available() is false.
 */
#ifndef LAT_CAPTURE_CUPTI_CONV_H
#define LAT_CAPTURE_CUPTI_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/capfile.h"

/* Name lookups the converter needs; each returns a string id (0 = none) of the caller's table. */
struct cupti_conv_ops {
    /* Copies s (a pointer that is only valid during the callback) and returns its id. */
    uint32_t (*intern)(void *ctx, const char *s);
    /* Name of API call cbid in domain (enum lcap_api_domain). */
    uint32_t (*api_name)(void *ctx, uint32_t domain, uint32_t cbid);
    void *ctx;
};

union lcap_any {
    struct lcap_api api;
    struct lcap_kernel kernel;
    struct lcap_memcpy memcpy;
    struct lcap_memset memset;
    struct lcap_cudasync sync;
    struct lcap_overhead overhead;
    struct lcap_device device;
    struct lcap_context context;
    struct lcap_extcorr extcorr;
    struct lcap_cudaevent cudaevent;
};

/* True when this build knows the CUPTI record types (LAT_HAVE_CUPTI). */
bool cupti_conv_available(void);

/*
 * Converts one activity record (a `const CUpti_Activity *`, typed void here so callers need not
 * include CUPTI). Fills *out and returns its enum lcap_type and payload size through *size;
 * returns 0 for kinds latscope does not keep.
 */
int cupti_conv_record(const void *record, const struct cupti_conv_ops *ops, union lcap_any *out,
                      uint32_t *size);

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (length of the name without the suffix). */
size_t cupti_conv_strip_version(const char *name);

#endif
