/* asset.h - a file embedded at build time by dl_bin2c (tools/bin2c.c). */
#ifndef DL_ASSET_H
#define DL_ASSET_H
#include <stddef.h>

typedef struct dl_asset {
  const char *path;           /* URL path, e.g. "/js/app.js"; NULL ends a table */
  const unsigned char *data;  /* the file's bytes */
  size_t size;                /* bytes */
  const unsigned char *gzip;  /* the same bytes, gzip-compressed */
  size_t gzip_size;           /* bytes */
} dl_asset;

#endif
