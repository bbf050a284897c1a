/* dldb_gorders.h - the Group Ops orders' chunks (db/schema.sql
 * aggr_dl_group_orders): written by dldb_gplaces.c, read by dldb_gopage.c.
 * Internal to db/. */
#ifndef DLDB_GORDERS_H
#define DLDB_GORDERS_H

/* Places a chunk row holds: chunk c has places c * DLDB_GO_CHUNK.. of its
 * order. db/schema.sql's view_dl_group_op_places states the same number. */
#define DLDB_GO_CHUNK 128

#endif
