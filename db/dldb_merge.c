/* dldb_merge.c - per-rank dldbs merged into one (dldb_merge.h). The source
 * is attached to the writer's connection; its strings are interned through
 * the writer (so that the analysis finds them as its own), and every other
 * table is copied by one INSERT ... SELECT through temporary maps of
 * strings, domains and devices. */
#include "dldb_merge.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dldb_write_internal.h"

/* Bound in every statement: ?1 the source's index, ?2 the time shift (ns),
 * ?3 the range id offset, ?4 the kernel id offset. */
#define PID(c) "((?1 << 22) | (" c " & 4194303))"
#define TID(c) "((?1 << 32) | (" c " & 4294967295))"
#define STR(c) "(SELECT dst FROM temp.merge_str WHERE src = " c ")"
#define DEV(c) "(SELECT dst FROM temp.merge_dev WHERE src = " c ")"

/* The copies, in order; a row whose source table is absent is skipped
 * (files of other versions), first: only for the first source. */
static const struct {
  const char *needs; /* a table of the source the statement reads */
  int first;
  const char *sql;
} copies[] = {
    {"gpus", 0,
     "INSERT INTO temp.merge_dev SELECT g.device_id, ?1 * 100 + g.device_id FROM src.gpus g"},
    {"dl_gpu_ranks", 0,
     "INSERT OR REPLACE INTO temp.merge_dev SELECT device_id, rank * 100 + local_device "
     "FROM src.dl_gpu_ranks"},
    {"kernels", 0,
     "INSERT OR IGNORE INTO temp.merge_dev SELECT DISTINCT device_id, ?1 * 100 + device_id "
     "FROM src.kernels"},
    {"memcpys", 0,
     "INSERT OR IGNORE INTO temp.merge_dev SELECT DISTINCT device_id, ?1 * 100 + device_id "
     "FROM src.memcpys"},
    {"memsets", 0,
     "INSERT OR IGNORE INTO temp.merge_dev SELECT DISTINCT device_id, ?1 * 100 + device_id "
     "FROM src.memsets"},
    {"domains", 0,
     "INSERT INTO domains(name_id) SELECT s.dst FROM src.domains d JOIN temp.merge_str s ON "
     "s.src = d.name_id WHERE s.dst NOT IN (SELECT name_id FROM main.domains)"},
    {"domains", 0,
     "INSERT INTO temp.merge_dom SELECT d.id, m.id FROM src.domains d JOIN temp.merge_str s "
     "ON s.src = d.name_id JOIN main.domains m ON m.name_id = s.dst"},
    {"gpus", 0,
     "INSERT OR REPLACE INTO gpus SELECT " DEV("device_id") ", gpu_name, cc_major, cc_minor, "
     "sm_count, memory_bytes FROM src.gpus"},
    {"dl_gpu_ranks", 0,
     "INSERT OR REPLACE INTO dl_gpu_ranks SELECT " DEV("device_id") ", rank, local_device, "
     "host, world_size FROM src.dl_gpu_ranks"},
    {"threads", 0,
     "INSERT OR IGNORE INTO threads SELECT " PID("pid") ", " TID("tid") ", " STR("name_id")
     " FROM src.threads"},
    {"nvtx_ranges", 0,
     "INSERT INTO nvtx_ranges SELECT id + ?3, kind, (SELECT dst FROM temp.merge_dom WHERE "
     "src = domain_id), " STR("name_id") ", start_ns + ?2, end_ns + ?2, " PID("pid") ", "
     TID("tid") ", " TID("end_tid") ", parent_id + ?3, category, color, payload_kind, "
     "payload_int, payload_real FROM src.nvtx_ranges ORDER BY id"},
    {"nvtx_range_stacks", 0,
     "INSERT INTO nvtx_range_stacks SELECT range_id + ?3, " STR("stack_id")
     " FROM src.nvtx_range_stacks"},
    {"dl_python_frames", 0,
     "INSERT INTO dl_python_frames(pid, tid, start_ns, end_ns, name_id, python_id, "
     "parent_python_id) SELECT " PID("pid") ", " TID("tid") ", start_ns + ?2, end_ns + ?2, "
     STR("name_id") ", python_id, parent_python_id FROM src.dl_python_frames ORDER BY id"},
    {"cuda_api_calls", 0,
     "INSERT INTO cuda_api_calls(api_kind, name_id, start_ns, end_ns, pid, tid, correlation_id, "
     "return_value) SELECT api_kind, " STR("name_id") ", start_ns + ?2, end_ns + ?2, "
     PID("pid") ", " TID("tid") ", correlation_id, return_value FROM src.cuda_api_calls "
     "ORDER BY id"},
    {"kernels", 0,
     "INSERT INTO kernels SELECT id + ?4, " STR("short_name_id") ", " STR("long_name_id") ", "
     DEV("device_id") ", context_id, stream_id, gpu_start_ns + ?2, gpu_end_ns + ?2, "
     "correlation_id, " PID("pid") ", grid_x, grid_y, grid_z, block_x, block_y, block_z, "
     "registers_per_thread, static_smem_bytes, dynamic_smem_bytes FROM src.kernels ORDER BY id"},
    {"kernel_occupancy", 0,
     "INSERT INTO kernel_occupancy SELECT kernel_id + ?4, blocks_per_sm, est_achieved_occupancy "
     "FROM src.kernel_occupancy"},
    {"dl_kernel_collectives", 0,
     "INSERT INTO dl_kernel_collectives SELECT kernel_id + ?4, collective, in_bytes, out_bytes, "
     "dtype, group_size FROM src.dl_kernel_collectives"},
    {"memcpys", 0,
     "INSERT INTO memcpys(copy_kind, src_kind, dst_kind, bytes, device_id, stream_id, "
     "gpu_start_ns, gpu_end_ns, correlation_id, pid) SELECT copy_kind, src_kind, dst_kind, "
     "bytes, " DEV("device_id") ", stream_id, gpu_start_ns + ?2, gpu_end_ns + ?2, "
     "correlation_id, " PID("pid") " FROM src.memcpys ORDER BY id"},
    {"memsets", 0,
     "INSERT INTO memsets(value, bytes, mem_kind, device_id, stream_id, gpu_start_ns, "
     "gpu_end_ns, correlation_id, pid) SELECT value, bytes, mem_kind, " DEV("device_id") ", "
     "stream_id, gpu_start_ns + ?2, gpu_end_ns + ?2, correlation_id, " PID("pid")
     " FROM src.memsets ORDER BY id"},
    {"syncs", 0,
     "INSERT INTO syncs(sync_type, device_id, stream_id, event_id, start_ns, end_ns, "
     "correlation_id, pid) SELECT sync_type, " DEV("device_id") ", stream_id, event_id, "
     "start_ns + ?2, end_ns + ?2, correlation_id, " PID("pid") " FROM src.syncs ORDER BY id"},
    {"read_only_system_config", 1,
     "INSERT INTO read_only_system_config SELECT * FROM src.read_only_system_config "
     "WHERE NOT EXISTS (SELECT 1 FROM main.read_only_system_config) LIMIT 1"},
    {"dl_meta", 1,
     "INSERT OR REPLACE INTO dl_meta SELECT key, value FROM src.dl_meta "
     "WHERE key = 'source_format' OR key LIKE 'kineto\\_%' ESCAPE '\\'"},
    {"read_only_system_config", 0,
     "UPDATE read_only_system_config SET num_gpus = (SELECT count(*) FROM gpus)"},
};

static const char *const temps[] = {
    "CREATE TEMP TABLE IF NOT EXISTS merge_str (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "CREATE TEMP TABLE IF NOT EXISTS merge_dev (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "CREATE TEMP TABLE IF NOT EXISTS merge_dom (src INTEGER PRIMARY KEY, dst INTEGER NOT NULL)",
    "DELETE FROM temp.merge_str",
    "DELETE FROM temp.merge_dev",
    "DELETE FROM temp.merge_dom",
};

static int sqlerr(sqlite3 *db, char *err, size_t errlen, const char *what) {
  return dl_err(err, errlen, DL_EDB, "%s: %s", what, sqlite3_errmsg(db));
}

int dldb_merge_origin(const char *path, int64_t *origin_ns, char *err, size_t errlen) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int rc = DL_OK;
  *origin_ns = 0;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    rc = dl_err(err, errlen, DL_EIO, "%s: cannot open: %s", path,
                db ? sqlite3_errmsg(db) : "out of memory");
    goto out;
  }
  if (sqlite3_prepare_v2(db,
                         "SELECT (SELECT value FROM dl_meta WHERE key = 'format'), "
                         "(SELECT value FROM dl_meta WHERE key = 'time_origin_ns')",
                         -1, &st, NULL) != SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW || !sqlite3_column_text(st, 0) ||
      strcmp((const char *)sqlite3_column_text(st, 0), "dlprof-dldb") != 0) {
    rc = dl_err(err, errlen, DL_EFORMAT, "%s: not a dldb written by dlprof (no raw records to "
                "merge)", path);
    goto out;
  }
  *origin_ns = sqlite3_column_int64(st, 1);
out:
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *what) {
  return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? DL_OK
                                                              : sqlerr(db, err, errlen, what);
}

static int64_t one_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  int64_t v = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

static int src_has(sqlite3 *db, const char *table) {
  sqlite3_stmt *st = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM src.sqlite_master WHERE type = 'table' AND name = ?1",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return found;
}

/* The source's strings, interned through the writer, into temp.merge_str. */
static int map_strings(dldb_writer *w, char *err, size_t errlen) {
  sqlite3_stmt *rd = NULL, *put = NULL;
  int rc = DL_OK, s;
  if (sqlite3_prepare_v2(w->db, "SELECT id, value FROM src.strings ORDER BY id", -1, &rd,
                         NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(w->db, "INSERT INTO temp.merge_str VALUES (?1, ?2)", -1, &put, NULL) !=
          SQLITE_OK) {
    rc = sqlerr(w->db, err, errlen, "dldb_merge_add: strings");
    goto out;
  }
  while (rc == DL_OK && (s = sqlite3_step(rd)) == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(rd, 1);
    int64_t id = 0;
    if ((rc = dldb_writer_intern(w, v ? v : "", &id, err, errlen))) break;
    sqlite3_bind_int64(put, 1, sqlite3_column_int64(rd, 0));
    sqlite3_bind_int64(put, 2, id);
    if (sqlite3_step(put) != SQLITE_DONE) rc = sqlerr(w->db, err, errlen, "dldb_merge_add: strings");
    sqlite3_reset(put);
  }
  if (rc == DL_OK && s != SQLITE_DONE) rc = sqlerr(w->db, err, errlen, "dldb_merge_add: strings");
out:
  sqlite3_finalize(rd);
  sqlite3_finalize(put);
  return rc;
}

/* A rank of the source that an earlier source gave: DL_EFORMAT. */
static int check_ranks(dldb_writer *w, const char *src, char *err, size_t errlen) {
  if (!src_has(w->db, "dl_gpu_ranks")) return DL_OK;
  sqlite3_stmt *st = NULL;
  int rc = DL_OK;
  if (sqlite3_prepare_v2(w->db,
                         "SELECT s.rank FROM src.dl_gpu_ranks s JOIN main.dl_gpu_ranks m "
                         "ON m.rank = s.rank LIMIT 1",
                         -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w->db, err, errlen, "dldb_merge_add: ranks");
  if (sqlite3_step(st) == SQLITE_ROW)
    rc = dl_err(err, errlen, DL_EFORMAT, "%s: rank %d is in an earlier dldb of the folder too",
                src, sqlite3_column_int(st, 0));
  sqlite3_finalize(st);
  return rc;
}

/* Runs the copies with their bindings. */
static int copy_tables(dldb_writer *w, int index, int64_t shift, char *err, size_t errlen) {
  const int64_t off_range = one_int(w->db, "SELECT ifnull(max(id), 0) FROM main.nvtx_ranges");
  const int64_t off_kernel = one_int(w->db, "SELECT ifnull(max(id), 0) FROM main.kernels");
  int rc = DL_OK;
  for (size_t i = 0; rc == DL_OK && i < sizeof copies / sizeof copies[0]; i++) {
    if ((copies[i].first && index != 0) || !src_has(w->db, copies[i].needs)) continue;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, copies[i].sql, -1, &st, NULL) != SQLITE_OK)
      return sqlerr(w->db, err, errlen, "dldb_merge_add");
    const int64_t v[] = {index, shift, off_range, off_kernel};
    int nb = sqlite3_bind_parameter_count(st);
    for (int j = 0; j < nb && j < 4; j++) sqlite3_bind_int64(st, j + 1, v[j]);
    if (sqlite3_step(st) != SQLITE_DONE) rc = sqlerr(w->db, err, errlen, "dldb_merge_add");
    sqlite3_finalize(st);
  }
  if (rc == DL_OK) {
    w->nvtx_max_id = one_int(w->db, "SELECT ifnull(max(id), 0) FROM main.nvtx_ranges");
    w->kernel_max_id = one_int(w->db, "SELECT ifnull(max(id), 0) FROM main.kernels");
  }
  return rc;
}

int dldb_merge_add(dldb_writer *w, const char *src, int index, char *err, size_t errlen) {
  int64_t origin = 0;
  int rc = dldb_merge_origin(src, &origin, err, errlen);
  if (rc == DL_OK) rc = dldb__tx_commit(w, err, errlen); /* ATTACH: outside a transaction */
  if (rc != DL_OK) return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(w->db, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) != SQLITE_OK)
    return sqlerr(w->db, err, errlen, "dldb_merge_add: attach");
  sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
  int s = sqlite3_step(st);
  sqlite3_finalize(st);
  if (s != SQLITE_DONE) return dl_err(err, errlen, DL_EIO, "%s: cannot attach: %s", src,
                                      sqlite3_errmsg(w->db));
  for (size_t i = 0; rc == DL_OK && i < sizeof temps / sizeof temps[0]; i++)
    rc = exec(w->db, temps[i], err, errlen, "dldb_merge_add: maps");
  if (rc == DL_OK) rc = check_ranks(w, src, err, errlen);
  if (rc == DL_OK) rc = dldb__tx_begin(w, err, errlen);
  if (rc == DL_OK) rc = map_strings(w, err, errlen);
  if (rc == DL_OK) rc = dldb__flush(w, err, errlen, "dldb_merge_add");
  if (rc == DL_OK) rc = copy_tables(w, index, origin - w->origin, err, errlen);
  if (rc == DL_OK) rc = dldb__tx_commit(w, err, errlen);
  if (rc != DL_OK && w->in_tx) {
    sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    w->in_tx = 0;
  }
  sqlite3_exec(w->db, "DETACH DATABASE src", NULL, NULL, NULL);
  return rc;
}

int dldb_merge_command(dldb_writer *w, const char *command, char *err, size_t errlen) {
  if (!command) return DL_OK;
  int rc = dldb__tx_begin(w, err, errlen);
  sqlite3_stmt *st = NULL;
  if (rc == DL_OK &&
      sqlite3_prepare_v2(w->db, "UPDATE read_only_system_config SET original_command = ?1", -1,
                         &st, NULL) != SQLITE_OK)
    rc = sqlerr(w->db, err, errlen, "dldb_merge_command");
  if (rc == DL_OK) {
    sqlite3_bind_text(st, 1, command, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) rc = sqlerr(w->db, err, errlen, "dldb_merge_command");
  }
  sqlite3_finalize(st);
  return rc;
}
