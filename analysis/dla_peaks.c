/*
 * dla_peaks.c - the GPU peaks table (see dla_peaks.h). Dense figures: the
 * datasheets' Tensor Core figures "with sparsity" are halved. Rows that
 * share a family are ordered most specific first (H100 PCIe before H100).
 */
#include "dla_peaks.h"

#include <string.h>

#define NV_H100 "NVIDIA H100 Tensor Core GPU datasheet"
#define NV_H200 "NVIDIA H200 Tensor Core GPU datasheet"
#define NV_B200 "NVIDIA HGX B200 datasheet (8-GPU figures divided by 8)"
#define NV_A100 "NVIDIA A100 Tensor Core GPU datasheet"
#define NV_V100 "NVIDIA Tesla V100 GPU datasheet"
#define NV_L40S "NVIDIA L40S GPU datasheet"
#define NV_L40 "NVIDIA L40 GPU datasheet"
#define NV_L4 "NVIDIA L4 Tensor Core GPU datasheet"
#define NV_ADA "NVIDIA Ada Lovelace GPU architecture whitepaper (appendix)"
#define NV_AMPERE "NVIDIA Ampere GA102 GPU architecture whitepaper (appendix)"
#define NV_TURING "NVIDIA Turing GPU architecture whitepaper (appendix)"
#define NV_BLACKWELL "NVIDIA RTX Blackwell GPU architecture whitepaper (appendix)"
#define AMD_MI250 "AMD Instinct MI250 / MI250X accelerator datasheets"
#define AMD_MI300 "AMD Instinct MI300X accelerator datasheet"

/* clang-format off */
static const dla_peak peaks[] = {
  /* match          name                 cc   fp64  fp64tc fp32   tf32    bf16    fp16    fp8     TB/s    source */
  {"H100 PCIe",    "H100 PCIe",          90,  25.6, 51.2,  51.2,  378.0,  756.0,  756.0,  1513.0, 2.0,    NV_H100},
  {"H100 NVL",     "H100 NVL",           90,  30.0, 60.0,  60.0,  417.5,  835.5,  835.5,  1670.5, 3.9,    NV_H100},
  {"H100",         "H100 SXM5",          90,  34.0, 67.0,  67.0,  494.7,  989.4,  989.4,  1978.9, 3.35,   NV_H100},
  {"H200",         "H200 SXM",           90,  34.0, 67.0,  67.0,  494.7,  989.4,  989.4,  1978.9, 4.8,    NV_H200},
  {"B200",         "B200 (HGX)",         100, 37.0, 37.0,  75.0,  1125.0, 2250.0, 2250.0, 4500.0, 8.0,    NV_B200},
  {"A100-PCIE-40GB", "A100 PCIe 40GB",   80,  9.7,  19.5,  19.5,  156.0,  312.0,  312.0,  0,      1.555,  NV_A100},
  {"A100-SXM4-40GB", "A100 SXM4 40GB",   80,  9.7,  19.5,  19.5,  156.0,  312.0,  312.0,  0,      1.555,  NV_A100},
  {"A100 80GB PCIe", "A100 PCIe 80GB",   80,  9.7,  19.5,  19.5,  156.0,  312.0,  312.0,  0,      1.935,  NV_A100},
  {"A100",         "A100 SXM4 80GB",     80,  9.7,  19.5,  19.5,  156.0,  312.0,  312.0,  0,      2.039,  NV_A100},
  {"V100-PCIE",    "V100 PCIe",          70,  7.0,  0,     14.0,  0,      0,      112.0,  0,      0.9,    NV_V100},
  {"V100",         "V100 SXM2",          70,  7.8,  0,     15.7,  0,      0,      125.0,  0,      0.9,    NV_V100},
  {"L40S",         "L40S",               89,  0,    0,     91.6,  183.0,  362.05, 362.05, 733.0,  0.864,  NV_L40S},
  {"L40",          "L40",                89,  0,    0,     90.5,  90.5,   181.0,  181.0,  362.0,  0.864,  NV_L40},
  {"L4",           "L4",                 89,  0,    0,     30.3,  60.0,   121.0,  121.0,  242.5,  0.3,    NV_L4},
  {"RTX 6000 Ada", "RTX 6000 Ada",       89,  0,    0,     91.1,  182.1,  364.2,  364.2,  728.5,  0.96,   NV_ADA},
  {"RTX 4090",     "GeForce RTX 4090",   89,  0,    0,     82.6,  82.6,   165.2,  165.2,  330.3,  1.008,  NV_ADA},
  {"RTX 5090",     "GeForce RTX 5090",   120, 0,    0,     104.8, 104.8,  209.5,  209.5,  419.0,  1.792,  NV_BLACKWELL},
  {"RTX A6000",    "RTX A6000",          86,  0,    0,     38.7,  77.4,   154.8,  154.8,  0,      0.768,  NV_AMPERE},
  {"RTX 3090",     "GeForce RTX 3090",   86,  0,    0,     35.6,  35.6,   71.0,   71.0,   0,      0.936,  NV_AMPERE},
  {"RTX 2080 Ti",  "GeForce RTX 2080 Ti", 75, 0,    0,     13.4,  0,      0,      53.8,   0,      0.616,  NV_TURING},
  {"MI250X",       "Instinct MI250X",    -1,  47.9, 95.7,  47.9,  0,      383.0,  383.0,  0,      3.2768, AMD_MI250},
  {"MI250",        "Instinct MI250",     -1,  45.3, 90.5,  45.3,  0,      362.1,  362.1,  0,      3.2768, AMD_MI250},
  {"MI300X",       "Instinct MI300X",    -1,  81.7, 163.4, 163.4, 653.7,  1307.4, 1307.4, 2614.9, 5.3,    AMD_MI300},
};
/* clang-format on */

const dla_peak *dla_peak_find(const char *device_name, int cc) {
  if (!device_name) return NULL;
  for (size_t i = 0; i < sizeof peaks / sizeof peaks[0]; i++) {
    const dla_peak *p = &peaks[i];
    if (!strstr(device_name, p->match)) continue;
    if (cc > 0 && p->cc > 0 && cc != p->cc) continue;
    return p;
  }
  return NULL;
}

double dla_peak_flops(const dla_peak *p, const char *t, int tc) {
  static const struct { const char *name; int kind; } kinds[] = {
      {"float64", 64}, {"double", 64}, {"float32", 32}, {"float", 32}, {"bfloat16", 16},
      {"c10::BFloat16", 16}, {"float16", 15}, {"c10::Half", 15}, {"float8", 8},
      {"c10::Float8_e4m3fn", 8}, {"c10::Float8_e5m2", 8},
  };
  if (!p || !t) return 0;
  int kind = 0;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(t, kinds[i].name) == 0) kind = kinds[i].kind;
  double v = 0;
  switch (kind) {
  case 64: v = tc && p->fp64_tc > 0 ? p->fp64_tc : p->fp64; break;
  case 32: v = tc ? p->tf32 : p->fp32; break;
  case 16: v = tc ? p->bf16 : p->fp32; break;
  case 15: v = tc ? p->fp16 : p->fp32; break;
  case 8: v = tc ? p->fp8 : 0; break;
  default: break;
  }
  return v * 1e12;
}

double dla_peak_bytes_per_s(const dla_peak *p) { return p ? p->mem_tbps * 1e12 : 0; }

#define PCIE_SPEC "PCI-SIG PCI Express Base Specification (x16 lanes)"

/* clang-format off */
static const dla_link_peak links[] = {
  /* match          link                         GB/s  source (bidirectional figure) */
  {"H100 PCIe",    "PCIe Gen5 x16",              64.0,  NV_H100 " (PCIe Gen5 128 GB/s)"},
  {"H100 NVL",     "NVLink 4 (bridge)",          300.0, NV_H100 " (NVLink 600 GB/s)"},
  {"H100",         "NVLink 4 (18 links)",        450.0, NV_H100 " (NVLink 900 GB/s)"},
  {"H200",         "NVLink 4 (18 links)",        450.0, NV_H200 " (NVLink 900 GB/s)"},
  {"B200",         "NVLink 5 (18 links)",        900.0, NV_B200 " (NVLink 1.8 TB/s per GPU)"},
  {"A100-PCIE",    "PCIe Gen4 x16",              32.0,  NV_A100 " (PCIe Gen4 64 GB/s)"},
  {"A100 80GB PCIe", "PCIe Gen4 x16",            32.0,  NV_A100 " (PCIe Gen4 64 GB/s)"},
  {"A100",         "NVLink 3 (12 links)",        300.0, NV_A100 " (NVLink 600 GB/s)"},
  {"V100-PCIE",    "PCIe Gen3 x16",              16.0,  NV_V100 " (PCIe 32 GB/s)"},
  {"V100",         "NVLink 2 (6 links)",         150.0, NV_V100 " (NVLink 300 GB/s)"},
  {"L40S",         "PCIe Gen4 x16",              32.0,  NV_L40S " (PCIe Gen4 x16 64 GB/s)"},
  {"L40",          "PCIe Gen4 x16",              32.0,  NV_L40 " (PCIe Gen4 x16 64 GB/s)"},
  {"L4",           "PCIe Gen4 x16",              32.0,  NV_L4 " (PCIe Gen4 x16 64 GB/s)"},
  {"RTX 6000 Ada", "PCIe Gen4 x16",              32.0,  PCIE_SPEC " (Gen4: 64 GB/s)"},
  {"RTX 4090",     "PCIe Gen4 x16",              32.0,  PCIE_SPEC " (Gen4: 64 GB/s)"},
  {"RTX 5090",     "PCIe Gen5 x16",              64.0,  PCIE_SPEC " (Gen5: 128 GB/s)"},
  {"RTX A6000",    "PCIe Gen4 x16",              32.0,  PCIE_SPEC " (Gen4: 64 GB/s)"},
  {"RTX 3090",     "PCIe Gen4 x16",              32.0,  PCIE_SPEC " (Gen4: 64 GB/s)"},
  {"RTX 2080 Ti",  "PCIe Gen3 x16",              16.0,  PCIE_SPEC " (Gen3: 32 GB/s)"},
  {"MI250",        "Infinity Fabric (8 links)",  400.0, AMD_MI250 " (Infinity Fabric 800 GB/s)"},
  {"MI300X",       "Infinity Fabric (7 links)",  448.0, AMD_MI300 " (Infinity Fabric 896 GB/s)"},
};
/* clang-format on */

const dla_link_peak *dla_link_find(const char *device_name) {
  if (!device_name) return NULL;
  for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
    if (strstr(device_name, links[i].match)) return &links[i];
  return NULL;
}
