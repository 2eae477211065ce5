/*
 * meta.h - the metadata `latscope trace` writes into its trace: latscope_version,
 * latscope_command (secret-looking arguments REDACTED through core/redact.h), latscope_env (the
 * CUDA/NCCL/torch-related variables, secret-named ones REDACTED), latscope_capture (what was
 * captured and the collection's counts and statuses), cupti_version and traceName.
 */
#ifndef LAT_CAPTURE_META_H
#define LAT_CAPTURE_META_H

#include <stdbool.h>

#include "capture/collect.h"
#include "core/clock.h"
#include "model/events.h"

struct capture_meta {
    char **cmd; /* the command line recorded, NULL-terminated (redacted when written) */
    char **env; /* the environment to pick latscope_env from (NULL: none) */
    const char *output;
    const char *note; /* why capture was off, or NULL */
    bool cuda, nvtx, cpu, driver;
    lat_ns wall_ns, delay_ns, duration_ns;
    int exit_status;
    const struct collect_stats *st;
};

/* True for a variable name latscope_env keeps (CUDA*, NCCL*, TORCH*, ..., LATSCOPE*). */
bool capture_meta_env_kept(const char *name, size_t len);

/* Adds the metadata entries of m to t. 0 or -ENOMEM. */
int capture_meta_add(struct lat_trace *t, const struct capture_meta *m);

#endif
