/*
 * dl_kname.h - a kernel's short name from its demangled name, shared by the
 * live collector (collector/kname.c) and the Nsight Systems importer
 * (import/nsys.c), so that both give the same names.
 *
 * The short name is the bare function name, as Nsight Systems' shortName:
 * "void at::native::vectorized_elementwise_kernel<4, F>(int, F)" gives
 * "vectorized_elementwise_kernel" (no return type, scopes, template
 * arguments or parameter list). One exception: CUTLASS launches every
 * kernel through a generic wrapper (cutlass::Kernel, cutlass::Kernel2,
 * cutlass::device_kernel), whose bare name would fold every CUTLASS kernel
 * of a run into one row; for those the short name is the bare name of the
 * wrapper's first template argument, the kernel's own type:
 * "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<...>>(...)" gives "Gemm".
 *
 * Ownership: every function borrows its input; dl_kname_short returns a new
 * string (free it). Malformed input (unbalanced brackets) never reads
 * outside the string: it falls back to the plain rule, or to the whole name.
 */
#ifndef DL_KNAME_H
#define DL_KNAME_H

#include <stddef.h>

/* The short name of a demangled name, as the span name[*off, *off + *len).
 * Never fails; "" gives an empty span. Borrows name. */
void dl_kname_short_span(const char *name, size_t *off, size_t *len);

/* The short name of a demangled name as a new string (free it), or NULL
 * when out of memory. */
char *dl_kname_short(const char *name);

/* 1 if name is a CUTLASS wrapper kernel ("[ret ]cutlass::Kernel<T, ...>(...)",
 * Kernel2 or device_kernel) whose first template argument has a usable bare
 * name, with that name's span in name[*off, *off + *len); else 0 and the
 * outputs untouched. */
int dl_kname_cutlass_span(const char *name, size_t *off, size_t *len);

/* 1 if short_name is exactly one of the wrappers' bare names ("Kernel",
 * "Kernel2", "device_kernel"), the short names that Nsight Systems gives
 * every CUTLASS kernel; else 0. A cheap test before dl_kname_cutlass_span. */
int dl_kname_is_wrapper(const char *short_name);

#endif
