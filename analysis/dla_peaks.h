/*
 * dla_peaks.h - GPU peaks as data: dense throughput per data type (Tensor
 * Core / matrix cores and CUDA cores / vector units) and memory bandwidth
 * of the common training and inference GPUs, each row with the source of
 * its figures (the vendor's datasheet or whitepaper). Keyed by the device
 * name a profile records and its compute capability; an unknown GPU has no
 * row (NULL). Static data: nothing to free.
 */
#ifndef DLA_PEAKS_H
#define DLA_PEAKS_H

typedef struct dla_peak {
  const char *match;     /* a part of the device name ("H100 PCIe", "MI300X") */
  const char *name;      /* the GPU as the figures name it */
  int cc;                /* compute capability * 10 (-1: not an NVIDIA GPU) */
  /* dense TFLOP/s (10^12 FLOP/s); 0: not supported or not published */
  double fp64, fp64_tc, fp32, tf32, bf16, fp16, fp8;
  double mem_tbps;       /* memory bandwidth, TB/s (10^12 bytes/s) */
  const char *source;    /* where the figures come from */
} dla_peak;

/* The row of a device (name as recorded, e.g. "NVIDIA H100 80GB HBM3";
 * cc: compute capability * 10, or -1 unknown): the first row whose match
 * is part of the name and whose cc agrees when both are known. NULL: an
 * unknown GPU. */
const dla_peak *dla_peak_find(const char *device_name, int cc);

/* Peak FLOP/s (not TFLOP/s) of dtype ("float32", "bfloat16", "float16",
 * "float64", "float8", or PyTorch's names): on Tensor Cores when
 * tensor_core (float32 then means TF32), else on CUDA cores (bf16 and fp16
 * on CUDA cores are taken at the fp32 rate). 0: unknown. */
double dla_peak_flops(const dla_peak *p, const char *dtype, int tensor_core);

/* Memory bandwidth in bytes/s. */
double dla_peak_bytes_per_s(const dla_peak *p);

/* A GPU's link to its peers as data: the fastest a collective's bus
 * bandwidth can reach between GPUs of one machine. NVLink where the part
 * has it on the board (SXM, OAM), else its PCIe slot (NVLink bridges are
 * optional). */
typedef struct dla_link_peak {
  const char *match;     /* a part of the device name, as in dla_peak */
  const char *link;      /* "NVLink 4 (18 links)", "PCIe Gen4 x16" */
  double gbps;           /* one direction, GB/s (10^9 bytes/s): half the
                            datasheets' bidirectional figure */
  const char *source;
} dla_link_peak;

/* The link of a device (name as recorded): the first row whose match is
 * part of the name. NULL: unknown. */
const dla_link_peak *dla_link_find(const char *device_name);

#endif
