/*
 * translate.h - one CUPTI activity record -> one dlc_record.
 *
 * Reads only the CUDA 13.0 prefix of each record (formats.md D: later 13.x
 * versions only append fields). Kernel names, which CUPTI owns and frees at
 * module unload, are interned at once; device names, which CUPTI malloc()s
 * for the client, are copied and free()d. API names come from
 * cuptiGetCallbackName (static strings) and are cached per callback id.
 *
 * Ownership: dlc_decoder_new borrows names (it must outlive the decoder)
 * and returns a new decoder, freed with dlc_decoder_free(&d). A decoder
 * is used by one thread at a time (buffers.c holds a lock per buffer).
 */
#ifndef DLC_TRANSLATE_H
#define DLC_TRANSLATE_H

#include <cupti.h>

#include "record.h"
#include "strtab.h"

typedef struct dlc_decoder dlc_decoder;

dlc_decoder *dlc_decoder_new(dlc_strtab *names);
void dlc_decoder_free(dlc_decoder **d);

/* Translates a; returns 1 when *out was filled, 0 for a record that is not
 * collected (other kinds, or start = end = 0: "not collected"), -1 when out
 * of memory. */
int dlc_translate(dlc_decoder *d, const CUpti_Activity *a, dlc_record *out);

/* The CUDA 13.0 struct size this decoder reads for a kind, 0 if it does not
 * translate that kind. */
size_t dlc_translate_struct_size(CUpti_ActivityKind kind);

#endif
