/* views.c - the table of views the API serves (see views.h). */
#include "views.h"

#include <string.h>

#define AD (DLV_PER_AGGR | DLV_PER_DOMAIN)
#define A DLV_PER_AGGR
#define AI DLV_PER_AGGREGATION_ID
#define ADT (DLV_PER_AGGR | DLV_PER_DOMAIN | DLV_TREE)

/* clang-format off */
const dlv_view dlv_views[DLV_VIEW_COUNT] = {
  /* name                          view                                 shape       scope sort                desc tiebreak                                  feature */
  {"db_version",                   "view_db_version",                   DLV_OBJECT, 0,  NULL,               0, {NULL},                                    "the database version"},
  {"system_config",                "view_system_config",                DLV_OBJECT, 0,  NULL,               0, {NULL},                                    "the System Config panel"},
  {"gpu_names",                    "view_gpu_names",                    DLV_LIST,   0,  NULL,               0, {"gpu_name", NULL},                        "the GPU names of the System Config panel"},
  {"aggregations",                 "view_aggregations",                 DLV_LIST,   0,  NULL,               0, {"aggr_id", NULL},                         "the aggregation selector"},
  {"domains",                      "view_domains",                      DLV_LIST,   0,  NULL,               0, {"domain_name", NULL},                     "the domain selector"},
  {"performance_summary",          "view_performance_summary",          DLV_OBJECT, AD, NULL,               0, {NULL},                                    "the Performance Summary panel"},
  {"domain_model_gpu_utilization", "view_domain_model_gpu_utilization", DLV_OBJECT, AD, NULL,               0, {NULL},                                    "the GPU Utilization panel"},
  {"tc_utilization",               "view_tc_utilization",               DLV_OBJECT, AD, NULL,               0, {NULL},                                    "the Tensor Core Kernel Efficiency panel"},
  {"resource_usage_breakdown",     "view_resource_usage_breakdown",     DLV_OBJECT, AD, NULL,               0, {NULL},                                    "the Resource Usage Breakdown panel (DLProf 1.2 or newer)"},
  {"kernel_summary",               "view_kernel_summary",               DLV_OBJECT, AD, NULL,               0, {NULL},                                    "the Total Kernel GPU Time panel"},
  {"op_summary",                   "view_op_summary",                   DLV_OBJECT, AD, NULL,               0, {NULL},                                    "the op summary (legacy)"},
  {"key_op_name",                  "view_key_op_name",                  DLV_OBJECT, A,  NULL,               0, {NULL},                                    "the key op of the aggregation"},
  {"gpu_devices",                  "view_gpu_devices",                  DLV_LIST,   AD, NULL,               0, {"device_id", NULL},                       "the GPUs view"},
  {"expert_systems",               "view_expert_systems",               DLV_LIST,   A,  NULL,               0, {NULL},                                    "the Expert Systems panel"},
  {"iterations_all",               "view_iterations_all",               DLV_LIST,   A,  "iter_value",       0, {NULL},                                    "the Iterations view"},
  {"iterations_profiled",          "view_iterations_profiled",          DLV_LIST,   AD, "iter_value",       0, {NULL},                                    "the Iteration Summary chart"},
  {"op_nodes",                     "view_op_nodes",                     DLV_LIST,   AD, "gpu_time",         1, {"op_node_id", NULL},                      "the Ops and Kernels view"},
  {"kernel_summaries",             "view_kernel_summaries",             DLV_LIST,   AD, "gpu_time",         1, {"op_node_id", "kernel_name", NULL},       "the kernels of the Ops and Kernels view"},
  {"op_type_summary",              "view_op_type_summary",              DLV_LIST,   AD, "gpu_time_sum",     1, {"op_node_type", NULL},                    "the Op Type Summary view"},
  {"iteration_ops",                "view_iteration_ops",                DLV_LIST,   AD, "total_gpu_time",   1, {"iter_value", "op_node_id", NULL},        "the Kernels by Op view"},
  {"iteration_kernels",            "view_iteration_kernels",            DLV_LIST,   AD, "kernel_timestamp", 0, {"device_id", "kernel_name", NULL},        "the Kernels by Iteration view"},
  {"iteration_op_kernels",         "view_iteration_op_kernels",         DLV_LIST,   AD, "kernel_timestamp", 0, {"device_id", "kernel_name", NULL},        "the kernels of the Kernels by Op view"},
  {"group_ops",                    "view_group_ops",                    DLV_LIST,   ADT,"row_full_name",    0, {"row_full_id", NULL},                     "the Group Ops view (DLProf 1.7 or newer)"},
  /* our own extensions (db/schema.sql "dl extensions"): optional, absent from DLProf's files */
  {"dl_communication",             "view_dl_communication",             DLV_LIST,   AD, "device_id",        0, {"device_id", NULL},                       "the Communication panel"},
  {"dl_gpu_efficiency",            "view_dl_gpu_efficiency",            DLV_LIST,   AD, "device_id",        0, {"device_id", NULL},                       "est. SM efficiency and occupancy per GPU"},
  {"dl_iteration_efficiency",      "view_dl_iteration_efficiency",      DLV_LIST,   AD, "iter_value",       0, {"device_id", NULL},                       "est. SM efficiency per iteration"},
  {"dl_iteration_names",           "view_dl_iteration_names",           DLV_LIST,   A,  "iter_value",       0, {NULL},                                    "iteration names (ProfilerStep#N of PyTorch profiler traces)"},
  {"dl_op_shapes",                 "view_dl_op_shapes",                 DLV_LIST,   AD, "gpu_time",         1, {"op_node_id", "row_idx", NULL},           "FLOPs, bytes and roofline per op and input shapes"},
  {"dl_iteration_flops",           "view_dl_iteration_flops",           DLV_LIST,   AD, "iter_value",       0, {NULL},                                    "model FLOPs and FLOP utilization per iteration"},
  {"dl_op_type_flops",             "view_dl_op_type_flops",             DLV_LIST,   AD, "gpu_time",         1, {"op_node_type", "model", NULL},           "model FLOPs and bytes per op type"},
  {"dl_kernel_efficiency",         "view_dl_kernel_efficiency",         DLV_LIST,   AD, "gpu_time",         1, {"kernel_name", NULL},                     "est. SM efficiency and occupancy per kernel"},
  {"dl_ranks",                     "view_dl_ranks",                     DLV_LIST,   AD, "rank",             0, {"rank", "device_id", NULL},               "the Ranks page: per rank of a distributed job"},
  {"dl_rank_iterations",           "view_dl_rank_iterations",           DLV_LIST,   AD, "iter_value",       0, {"rank", "device_id", NULL},               "the Ranks page's heatmap: per rank and iteration"},
  {"dl_collectives",               "view_dl_collectives",               DLV_LIST,   AD, "total_time",       1, {"kernel_name", NULL},                     "collectives across ranks: time, start skew, last rank"},
  {"dl_rank_sources",              "view_dl_rank_sources",              DLV_LIST,   0,  "rank",             0, {"rank", "device_id", NULL},               "a merge of per-rank dldbs: each rank's dldb, and whether its raw records are here"},
  {"dl_timeline_tracks",           "view_dl_timeline_tracks",           DLV_LIST,   0,  "track_id",         0, {"track_id", NULL},                        "the Timeline page's tracks"},
  {"dl_findings",                  "view_dl_findings",                  DLV_LIST,   A,  "seq",              0, {"seq", NULL},                             "the rule of each expert finding (the Timeline's evidence links)"},
  /* nsys-stats-style statistics, in nsys stats' order (row_idx) */
  {"dl_stats_cuda_api",            "view_dl_stats_cuda_api",            DLV_LIST,   AD, "row_idx",          0, {"row_idx", NULL},                         "the CUDA API table of the Statistics view"},
  {"dl_stats_kernels",             "view_dl_stats_kernels",             DLV_LIST,   AD, "row_idx",          0, {"row_idx", NULL},                         "the GPU kernel table of the Statistics view"},
  {"dl_stats_kernel_configs",      "view_dl_stats_kernel_configs",      DLV_LIST,   AD, "row_idx",          0, {"row_idx", NULL},                         "the kernel grid/block table of the Statistics view"},
  {"dl_stats_memory",              "view_dl_stats_memory",              DLV_LIST,   AD, "row_idx",          0, {"row_idx", NULL},                         "the memory tables of the Statistics view"},
  {"dl_stats_osrt",                "view_dl_stats_osrt",                DLV_LIST,   AD, "row_idx",          0, {"row_idx", NULL},                         "the OS runtime table of the Statistics view"},
  {"dl_stats_nvtx",                "view_dl_stats_nvtx",                DLV_LIST,   AD, "row_idx",          0, {"row_idx", NULL},                         "the NVTX range table of the Statistics view"},
  {"dl_stats_nvtx_gpu_proj",       "view_dl_stats_nvtx_gpu_proj",       DLV_LIST,   AD, "row_idx",          0, {"row_idx", NULL},                         "the NVTX GPU projection table of the Statistics view"},
  {"dl_stats_api_ops",             "view_dl_stats_api_ops",             DLV_LIST,   AD, "total_time",       1, {"op_node_id", NULL},                      "the ops that called a CUDA API"},
  /* per op total and self CPU time (ns), written by dlprof's analysis */
  {"op_cpu_times",                 "view_op_cpu_times",                 DLV_LIST,   AI, "self_cpu_time",    1, {"op_id", NULL},                           "the Top CPU Ops panel"},
};
/* clang-format on */

const char *const dlv_filter_columns[DLDB_MAX_FILTER_COLS] = {
    "op_node_name", "op_node_type", "op_node_id", "kernel_name",
    "gpu_name",     "row_full_name", "problem",   "key_node_name",
    "name", /* our view_dl_stats_* */
    "row_full_id", /* view_group_ops: an op's id */
};

const dlv_view *dlv_view_find(const char *name) {
  for (int i = 0; i < DLV_VIEW_COUNT; i++)
    if (strcmp(dlv_views[i].name, name) == 0) return &dlv_views[i];
  return NULL;
}

/* Our extensions named without the view_dl_ prefix. */
static const char *const unprefixed_extensions[] = {"view_op_cpu_times"};

int dlv_view_optional(const dlv_view *v) {
  if (strncmp(v->sql_view, "view_dl_", 8) == 0) return 1;
  for (size_t i = 0; i < sizeof unprefixed_extensions / sizeof *unprefixed_extensions; i++)
    if (strcmp(v->sql_view, unprefixed_extensions[i]) == 0) return 1;
  return 0;
}
