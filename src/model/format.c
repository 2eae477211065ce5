/*
 * format.c - the two format rows the model itself owns (format.h); every reader defines its own
 * row(s) in its file under src/ingest/.
 */
#include "model/format.h"

/* a trace made by hand (tests, tools): shaped as Chrome/PyTorch traces are */
const struct lat_trace_format lat_format_unknown = {
    .name = "unknown",
    .fw = LAT_FW_PYTORCH,
    .caps = LAT_FCAP_PROFILER_STEPS,
};

/* `latscope trace`: a PyTorch (or any CUDA) program captured with CUPTI */
const struct lat_trace_format lat_format_latscope = {
    .name = "latscope",
    .fw = LAT_FW_PYTORCH,
    .caps = LAT_FCAP_PROFILER_STEPS,
};
