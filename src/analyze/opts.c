/*
 * opts.c - analyze's default options (analysis.h), in their own file: the analyses that read
 * them (perfmodel.c) sit below analysis.c, which calls them.
 */
#include "analyze/analysis.h"

#include <string.h>

void analysis_opts_default(struct analysis_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->ns_rounding = true;
    o->only_rank = -1;
    o->top_n = 10;
    o->consecutive_kernel_delay_ns = 30 * LAT_NS_PER_US;
    o->runtime_cutoff_ns = 50 * LAT_NS_PER_US;
    o->launch_delay_cutoff_ns = 100 * LAT_NS_PER_US;
    o->max_queue_length = 1024;
    o->duration_ratio = 0.8;
    o->num_kernels = 10;
    o->include_memory_kernels = true;
    o->kseq_min_len = 3;
}
