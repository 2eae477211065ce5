/*
 * format.h - what a trace format is and holds: its row (struct lat_trace_format), for every
 * consumer (analyze, doctor, diff, report) to ask instead of comparing format names.
 *
 * Each reader defines its row(s) in its own file (src/ingest/<fmt>.c) and sets it on the trace
 * it makes with lat_trace_set_format(), which also sets trace->format to the row's name (the
 * spelling shown in outputs). A trace made by hand (lat_trace_new) has lat_format_unknown, a
 * Chrome/PyTorch-shaped timeline; latscope's own capture has lat_format_latscope.
 *
 * Consumers read the capability bits (LAT_FCAP_*), the framework (for advice that names a
 * framework's APIs) and the wording fields; none compares trace->format.
 */
#ifndef LAT_MODEL_FORMAT_H
#define LAT_MODEL_FORMAT_H

#include <stdbool.h>

/* The framework a format's traces come from: doctor's advice names its APIs. LAT_FW_NONE: no
 * framework (a kernel report, CPU stack samples): advice stays generic. */
enum lat_framework {
    LAT_FW_NONE,
    LAT_FW_PYTORCH,
    LAT_FW_ORT,
    LAT_FW_TF,
    LAT_FW_TENSORRT,
};

enum lat_format_cap {
    /* a PyTorch-shaped timeline: steps are ProfilerStep#N and every analyze section applies
     * (a CPU-only trace's "no GPU activity" is a finding, not "not applicable") */
    LAT_FCAP_PROFILER_STEPS = 1u << 0,
    /* each file is one session's runs: in a directory, separate runs, never ranks of a job */
    LAT_FCAP_RUNS = 1u << 1,
    /* the files of a profile directory are hosts (processes), not ranks */
    LAT_FCAP_HOSTS = 1u << 2,
    /* the framework's own step markers, numbered already (tf.profiler Trace(step_num=N)) */
    LAT_FCAP_MARKER_STEPS = 1u << 3,
    /* format sections (analyze/sections.h) and the rules that read them */
    LAT_FCAP_ORT_NODES = 1u << 4,    /* ONNX Runtime model_run and node events */
    LAT_FCAP_TRT_LAYERS = 1u << 5,   /* TensorRT layers and query times */
    LAT_FCAP_NCU_METRICS = 1u << 6,  /* Nsight Compute kernel metrics */
    LAT_FCAP_NSYS_SUMMARY = 1u << 7, /* `nsys stats` summary rows */
    LAT_FCAP_TF_OPS = 1u << 8,       /* TensorFlow graph/eager ops (its own CPU rules) */
    /* no Python runs between the operators (doctor's cpu-python rule does not apply) */
    LAT_FCAP_NO_PYTHON = 1u << 9,
    /* the first run does one-time work in the same operators (a cold start, not contention) */
    LAT_FCAP_COLD_FIRST_RUN = 1u << 10,
};

struct lat_trace_format {
    const char *name;            /* trace->format: "kineto", "ort", ... */
    const char *what;            /* for people: "an ONNX Runtime profile"; NULL: "<name> trace" */
    enum lat_framework fw;       /* whose APIs advice names */
    unsigned caps;               /* LAT_FCAP_* */
    const char *file_noun;       /* analyze's heading for one file: NULL "rank" ("profile") */
    const char *na_gpu_timeline; /* analyze: why the GPU timeline does not apply (NULL: generic) */
    const char *na_steps;        /* analyze: why there are no steps (NULL: generic) */
};

/* The model's default (a trace made by hand; Chrome/PyTorch-shaped) and latscope's capture. */
extern const struct lat_trace_format lat_format_unknown;
extern const struct lat_trace_format lat_format_latscope;

#endif
