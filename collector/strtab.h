/*
 * strtab.h - a thread-safe string table: copies strings once and hands out
 * pointers that stay valid until the table is freed (CUPTI frees its
 * kernel names at module unload; records outlive that).
 *
 * Ownership: dlc_strtab_new returns a new table, freed with
 * dlc_strtab_free(&t) (sets it to NULL; every pointer it returned dies).
 * dlc_strtab_intern borrows s and returns a pointer owned by the table, or
 * NULL when out of memory.
 */
#ifndef DLC_STRTAB_H
#define DLC_STRTAB_H

#include <stddef.h>

typedef struct dlc_strtab dlc_strtab;

dlc_strtab *dlc_strtab_new(void);
void dlc_strtab_free(dlc_strtab **t);
const char *dlc_strtab_intern(dlc_strtab *t, const char *s);
/* Number of distinct strings held. */
size_t dlc_strtab_count(dlc_strtab *t);

#endif
