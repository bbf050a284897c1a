/*
 * kname.h - kernel names: CUPTI's mangled name -> DLProf's long (demangled)
 * and short (bare function; dl_kname.h) names.
 *
 * Demangling uses libstdc++'s __cxa_demangle when the process has it
 * (looked up with dlsym, so the collector needs no C++ runtime); names
 * that are not mangled, or a process without it, keep the raw name.
 * Ownership: dlc_kname returns DL_OK and two new strings in *long_name and
 * *short_name (free both), or DL_ENOMEM with both NULL.
 */
#ifndef DLC_KNAME_H
#define DLC_KNAME_H

int dlc_kname(const char *mangled, char **long_name, char **short_name);

#endif
