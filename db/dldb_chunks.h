/* dldb_chunks.h - the stored orders kept a chunk of places a row, as JSON
 * arrays (db/schema.sql aggr_dl_group_orders, aggr_dl_kernel_dur_chunks):
 * written by dldb_gplaces.c and dldb_kdchunks.c, read by dldb_gopage.c
 * and dldb_kdpage.c. Internal to db/. */
#ifndef DLDB_CHUNKS_H
#define DLDB_CHUNKS_H

/* Places a chunk row holds: chunk c has places c * 128.. of its order.
 * db/schema.sql's views over the chunks (json_each) state the same
 * number. */
#define DLDB_GO_CHUNK 128
#define DLDB_KD_CHUNK 128

#endif
