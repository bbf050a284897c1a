/*
 * outdir.h - the output folder: --output_path is created with its parents
 * when missing, as DLProf did ("If the folder does not exist, DLProf will
 * attempt to create it"). Owns nothing; the path is borrowed.
 */
#ifndef DLPROF_OUTDIR_H
#define DLPROF_OUTDIR_H

#include <stddef.h>

/* Creates path and its missing parents (mode 0777 & ~umask). A path that
 * exists as a directory is left as it is. Returns 0, or -1 with one line
 * in err naming the folder that could not be made and why. */
int dlprof_outdir_make(const char *path, char *err, size_t errlen);

#endif
