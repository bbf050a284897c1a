/*
 * dlr_stats.h - our nsys-stats-style reports: Nsight Systems'
 * `nsys stats` tables under its report names, with its column headers, each
 * built from one of our view_dl_stats_* views (docs/dldb.md). dlr_write()
 * and dlr_report_file() accept these names like DLProf's (files
 * "dlprof_<name>.csv" / ".json"); dlr_report_count() still counts DLProf's
 * reports only. A database without the view (NVIDIA's, or ours of a schema
 * without the statistics) answers DL_ENOTFOUND, naming the view. Static data; no ownership.
 */
#ifndef DLR_STATS_H
#define DLR_STATS_H

#include <stdint.h>

#include "dlr.h"

/* Number of these reports and their names, in order: "cuda_api_sum",
 * "cuda_gpu_kern_sum", "cuda_gpu_kern_gb_sum", "cuda_gpu_mem_time_sum",
 * "cuda_gpu_mem_size_sum", "osrt_sum", "nvtx_sum", "nvtx_gpu_proj_sum". */
int dlr_stats_count(void);
const char *dlr_stats_name(int i);

/* The view report `name` reads ("view_dl_stats_cuda_api"...), NULL when it
 * is not one of these. */
const char *dlr_stats_view(const char *name);

/* "dlprof_<name>.csv" / ".json", NULL when name is not one of these. */
const char *dlr_stats_file(const char *name, dlr_format fmt);

#endif
