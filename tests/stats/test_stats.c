/*
 * test_stats.c - the nsys-stats-style statistics, end to end: `dlprof --database` on
 * real Nsight Systems exports, then every number of the view_dl_stats_*
 * views that the export itself can tell (totals, counts, min, max, median)
 * compared with SQL run directly on the export (attached to the dldb), the
 * reports under nsys stats' names, and NVIDIA's no_relu database, which has
 * no such views. Also the est. SM efficiency of an export, which has no
 * occupancy rows: from the kernels' grids and the GPUs' SM counts, and the
 * GPU busy time (the union of a GPU's kernel intervals) of both sweeps.
 *
 * usage: test_stats DLPROF SHARED_DIR WORK_DIR. Skips (77) naming the path
 * when SHARED_DIR/traces is absent.
 */
#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test.h"

static int test__passed, test__failed;
static const char *dlprof_bin, *shared;
static char work[1024];

/* ---- helpers ---------------------------------------------------------------- */

/* Runs dlprof in dir (created) with args; returns its exit status, stderr in out. */
static int dlprof(const char *dir, const char *args, char *out, size_t outlen) {
  char cmd[4096], log[1200];
  mkdir(dir, 0755);
  snprintf(log, sizeof log, "%s/stderr.txt", dir);
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s -v quiet 2>'%s' >/dev/null", dir, dlprof_bin,
           args, log);
  int st = system(cmd);
  out[0] = '\0';
  FILE *f = fopen(log, "r");
  if (f) {
    size_t n = fread(out, 1, outlen - 1, f);
    out[n] = '\0';
    fclose(f);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Our dldb with the export attached as `x`, both read-only. */
static sqlite3 *open_pair(const char *dldb, const char *export_path) {
  sqlite3 *h = NULL;
  char uri[2400], sql[2600];
  snprintf(uri, sizeof uri, "file:%s?mode=ro", dldb);
  if (sqlite3_open_v2(uri, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
    sqlite3_close(h);
    return NULL;
  }
  snprintf(sql, sizeof sql, "ATTACH 'file:%s?mode=ro' AS x", export_path);
  if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK) {
    fprintf(stderr, "attach: %s\n", sqlite3_errmsg(h));
    sqlite3_close(h);
    return NULL;
  }
  return h;
}

/* The first column of the first row as an integer (-999 when none). */
static int64_t q_int(sqlite3 *h, const char *sql) {
  sqlite3_stmt *st = NULL;
  int64_t v = -999;
  if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
    fprintf(stderr, "sql error: %s: %s\n", sql, sqlite3_errmsg(h));
  else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* The first column of the first row as a real (NaN when none or NULL). */
static double q_real(sqlite3 *h, const char *sql) {
  sqlite3_stmt *st = NULL;
  double v = NAN;
  if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
    fprintf(stderr, "sql error: %s: %s\n", sql, sqlite3_errmsg(h));
  else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* Per name: total, count, min, max, median of `dur` over the rows of `src`
 * (a SELECT with columns name, dur). */
#define REF(src)                                                                                   \
  "WITH d AS (" src "), o AS (SELECT name, dur, row_number() OVER (PARTITION BY name ORDER BY "   \
  "dur) AS rn, count(*) OVER (PARTITION BY name) AS n FROM d) SELECT name, sum(dur), count(*), " \
  "min(dur), max(dur), avg(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN dur END) FROM o "      \
  "GROUP BY name"

#define NEWEST "(SELECT max(aggr_id) FROM main.view_aggregations)"

/* Rows of ref not in ours plus rows of ours not in ref (0: the same sets). */
static int64_t differences(sqlite3 *h, const char *ref, const char *ours) {
  char sql[8192];
  snprintf(sql, sizeof sql,
           "SELECT (SELECT count(*) FROM (SELECT * FROM (%s) EXCEPT SELECT * FROM (%s))) + "
           "(SELECT count(*) FROM (SELECT * FROM (%s) EXCEPT SELECT * FROM (%s)))",
           ref, ours, ours, ref);
  int64_t n = q_int(h, sql);
  if (n != 0) fprintf(stderr, "differences %lld between\n  %s\nand\n  %s\n", (long long)n, ref, ours);
  return n;
}

static char clover_db[1400], relu_db[1400], clover_x[1200], relu_x[1200];

/* ---- tests ------------------------------------------------------------------- */

static int test_clover_cuda_api(void) {
  sqlite3 *h = open_pair(clover_db, clover_x);
  ASSERT_NOT_NULL(h);
  const char *ref = REF("SELECT s.value AS name, r.\"end\" - r.start AS dur "
                        "FROM x.CUPTI_ACTIVITY_KIND_RUNTIME r JOIN x.StringIds s ON s.id = r.nameId "
                        "WHERE r.eventClass IN (0, 1)");
  ASSERT_EQ(differences(h, ref,
                        "SELECT name, total_time, num_calls, min, max, med FROM "
                        "main.view_dl_stats_cuda_api WHERE aggr_id = " NEWEST),
            0);
  ASSERT_EQ(q_int(h, "SELECT sum(num_calls) FROM view_dl_stats_cuda_api WHERE aggr_id = " NEWEST),
            q_int(h, "SELECT count(*) FROM x.CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IN (0, 1)"));
  /* nsys stats' order and time % */
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_stats_cuda_api a JOIN view_dl_stats_cuda_api b "
                     "ON a.aggr_id = b.aggr_id AND b.row_idx = a.row_idx + 1 "
                     "WHERE b.total_time > a.total_time"),
            0);
  ASSERT_EQ(q_int(h, "SELECT round(sum(time_pct)) FROM view_dl_stats_cuda_api WHERE aggr_id = " NEWEST),
            100);
  /* every call of an API name is one of an op's calls */
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_stats_cuda_api a WHERE aggr_id = " NEWEST
                     " AND num_calls != (SELECT sum(calls) FROM view_dl_stats_api_ops o WHERE "
                     "o.aggr_id = a.aggr_id AND o.name = a.name)"),
            0);
  sqlite3_close(h);
  return 0;
}

static int test_clover_kernels(void) {
  sqlite3 *h = open_pair(clover_db, clover_x);
  ASSERT_NOT_NULL(h);
  const char *ref = REF("SELECT s.value AS name, k.\"end\" - k.start AS dur "
                        "FROM x.CUPTI_ACTIVITY_KIND_KERNEL k JOIN x.StringIds s ON s.id = k.demangledName");
  ASSERT_EQ(differences(h, ref,
                        "SELECT name, total_time, instances, min, max, med FROM "
                        "main.view_dl_stats_kernels WHERE aggr_id = " NEWEST),
            0);
  ASSERT_EQ(q_int(h, "SELECT sum(instances) FROM view_dl_stats_kernels WHERE aggr_id = " NEWEST), 1312);
  /* per grid and block, as cuda_gpu_kern_gb_sum */
  const char *gb = REF("SELECT s.value || ' <' || gridX || ', ' || gridY || ', ' || gridZ || '> <' || "
                       "blockX || ', ' || blockY || ', ' || blockZ || '>' AS name, k.\"end\" - k.start AS dur "
                       "FROM x.CUPTI_ACTIVITY_KIND_KERNEL k JOIN x.StringIds s ON s.id = k.demangledName");
  ASSERT_EQ(differences(h, gb,
                        "SELECT name || ' <' || grid || '> <' || block || '>', total_time, instances, "
                        "min, max, med FROM main.view_dl_stats_kernel_configs WHERE aggr_id = " NEWEST),
            0);
  /* a kernel's grid/block columns name one of its configurations */
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_stats_kernels k WHERE aggr_id = " NEWEST
                     " AND NOT EXISTS (SELECT 1 FROM view_dl_stats_kernel_configs c WHERE "
                     "c.aggr_id = k.aggr_id AND c.name = k.name AND c.grid = k.grid AND c.block = k.block)"),
            0);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_stats_kernels k WHERE aggr_id = " NEWEST
                     " AND configs != (SELECT count(*) FROM view_dl_stats_kernel_configs c WHERE "
                     "c.aggr_id = k.aggr_id AND c.name = k.name)"),
            0);
  sqlite3_close(h);
  return 0;
}

static int test_clover_memory(void) {
  sqlite3 *h = open_pair(clover_db, clover_x);
  ASSERT_NOT_NULL(h);
  const char *time = REF("SELECT '[CUDA memcpy ' || e.label || ']' AS name, m.\"end\" - m.start AS dur "
                         "FROM x.CUPTI_ACTIVITY_KIND_MEMCPY m JOIN x.ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind");
  ASSERT_EQ(differences(h, time,
                        "SELECT name, total_time, count, min, max, med FROM main.view_dl_stats_memory "
                        "WHERE aggr_id = " NEWEST),
            0);
  const char *size = REF("SELECT '[CUDA memcpy ' || e.label || ']' AS name, m.bytes AS dur "
                         "FROM x.CUPTI_ACTIVITY_KIND_MEMCPY m JOIN x.ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind");
  ASSERT_EQ(differences(h, size,
                        "SELECT name, total_bytes, count, min_bytes, max_bytes, med_bytes FROM "
                        "main.view_dl_stats_memory WHERE aggr_id = " NEWEST),
            0);
  sqlite3_close(h);
  return 0;
}

static int test_clover_osrt(void) {
  sqlite3 *h = open_pair(clover_db, clover_x);
  ASSERT_NOT_NULL(h);
  ASSERT(q_int(h, "SELECT count(*) FROM view_dl_stats_osrt WHERE aggr_id = " NEWEST) > 0);
  const char *ref = REF("SELECT s.value AS name, o.\"end\" - o.start AS dur "
                        "FROM x.OSRT_API o JOIN x.StringIds s ON s.id = o.nameId WHERE o.eventClass = 27");
  ASSERT_EQ(differences(h, ref,
                        "SELECT name, total_time, num_calls, min, max, med FROM main.view_dl_stats_osrt "
                        "WHERE aggr_id = " NEWEST),
            0);
  sqlite3_close(h);
  return 0;
}

static int test_relu(void) {
  sqlite3 *h = open_pair(relu_db, relu_x);
  ASSERT_NOT_NULL(h);
  ASSERT_EQ(q_int(h, "SELECT sum(total_time) FROM view_dl_stats_memory WHERE aggr_id = " NEWEST), 66690);
  ASSERT_EQ(q_int(h, "SELECT total_time FROM view_dl_stats_memory WHERE aggr_id = " NEWEST
                     " AND name = '[CUDA memset]'"),
            8992);
  /* every NVTX range text with its count, as the export has them */
  ASSERT_EQ(differences(h,
                        "SELECT text, count(*) FROM x.NVTX_EVENTS WHERE eventType = 59 GROUP BY text",
                        "SELECT name, instances FROM main.view_dl_stats_nvtx WHERE aggr_id = " NEWEST),
            0);
  ASSERT_EQ(q_int(h, "SELECT instances FROM view_dl_stats_nvtx WHERE name = 'aten::clamp_min'"), 8);
  ASSERT_EQ(q_int(h, "SELECT instances FROM view_dl_stats_nvtx WHERE name = 'aten::resize_'"), 8);
  /* the GPU projection: every range with GPU work, and a range's projection
   * is no longer than the span of the whole profile's GPU work */
  ASSERT(q_int(h, "SELECT count(*) FROM view_dl_stats_nvtx_gpu_proj WHERE aggr_id = " NEWEST) > 0);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_stats_nvtx_gpu_proj WHERE total_gpu_ops <= 0 OR "
                     "proj_min <= 0 OR proj_max > (SELECT max(\"end\") - min(start) FROM "
                     "x.CUPTI_ACTIVITY_KIND_KERNEL)"),
            0);
  /* the outermost conv2d op range launched the conv kernels: its projection
   * spans them */
  ASSERT(q_int(h, "SELECT max(total_gpu_ops) FROM view_dl_stats_nvtx_gpu_proj WHERE name LIKE "
                  "'aten::conv2d%'") > 0);
  sqlite3_close(h);
  return 0;
}

static int file_starts(const char *path, const char *text) {
  char buf[512] = "";
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return strncmp(buf, text, strlen(text)) == 0;
}

static int test_reports(void) {
  char dir[1200], args[4096], out[4096], path[1400];
  snprintf(dir, sizeof dir, "%s/reports", work);
  snprintf(args, sizeof args, "--database='%s' --reports=stats,summary --formats=csv,json --force=true",
           clover_x);
  ASSERT_EQ(dlprof(dir, args, out, sizeof out), 0);
  static const char *const names[] = {"cuda_api_sum", "cuda_gpu_kern_sum", "cuda_gpu_kern_gb_sum",
                                      "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum", "osrt_sum",
                                      "nvtx_sum", "nvtx_gpu_proj_sum"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/dlprof_%s.csv", dir, names[i]);
    struct stat sb;
    ASSERT_EQ(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/dlprof_%s.json", dir, names[i]);
    ASSERT(file_starts(path, "{\"report\":\""));
  }
  snprintf(path, sizeof path, "%s/dlprof_cuda_api_sum.csv", dir);
  ASSERT(file_starts(path, "CUDA API Summary\r\nTime (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),"
                           "Min (ns),Max (ns),StdDev (ns),Name\r\n") ||
         file_starts(path, "CUDA API Summary\nTime (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),"
                           "Min (ns),Max (ns),StdDev (ns),Name\n"));
  snprintf(path, sizeof path, "%s/dlprof_cuda_gpu_mem_size_sum.csv", dir);
  ASSERT(file_starts(path, "CUDA GPU MemOps Summary (by Size)"));
  /* a single report by name, and a name that is none */
  snprintf(args, sizeof args, "--database='%s' --reports=osrt_sum --force=true", clover_x);
  ASSERT_EQ(dlprof(dir, args, out, sizeof out), 0);
  snprintf(args, sizeof args, "--database='%s' --reports=osrt --force=true", clover_x);
  ASSERT(dlprof(dir, args, out, sizeof out) != 0);
  return 0;
}

/* dlprof --database=db --iter_start=0 adds a second aggregation; *h: db
 * opened read-only. */
static int reaggregate(const char *dir, const char *db, sqlite3 **h);

/* GPU busy time is the union of the GPU's kernel intervals (intervals that
 * touch merge): computed here on the export with window functions, it must
 * equal the GPU timeline's kernel busy time and give the GPU utilization of
 * the time sweep, to the ns. w_Relu has kernels that overlap or touch. */
static int test_relu_gpu_busy(void) {
  sqlite3 *h = open_pair(relu_db, relu_x);
  ASSERT_NOT_NULL(h);
  const char *uni =
      "WITH k AS (SELECT start AS s, \"end\" AS e FROM x.CUPTI_ACTIVITY_KIND_KERNEL "
      "WHERE deviceId = 0 AND \"end\" > start), "
      "o AS (SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 "
      "PRECEDING) AS pe FROM k), "
      "g AS (SELECT s, e, sum(pe IS NULL OR s > pe) OVER (ORDER BY s, e) AS grp FROM o) "
      "SELECT sum(ge - gs) FROM (SELECT min(s) AS gs, max(e) AS ge FROM g GROUP BY grp)";
  int64_t busy = q_int(h, uni);
  ASSERT(busy > 0);
  /* some kernels overlap or touch: the union is less than their sum */
  ASSERT(q_int(h, "SELECT count(*) FROM x.CUPTI_ACTIVITY_KIND_KERNEL a JOIN "
                  "x.CUPTI_ACTIVITY_KIND_KERNEL b ON b.rowid != a.rowid AND b.start >= a.start "
                  "AND b.start <= a.\"end\" AND a.deviceId = b.deviceId") > 0);
  ASSERT(busy < q_int(h, "SELECT sum(\"end\" - start) FROM x.CUPTI_ACTIVITY_KIND_KERNEL "
                         "WHERE deviceId = 0"));
  ASSERT_EQ(q_int(h, "SELECT kernel_busy_time FROM view_dl_gpu_efficiency WHERE device_id = 0 "
                     "AND aggr_id = " NEWEST),
            busy);
  char sql[2048];
  snprintf(sql, sizeof sql,
           "SELECT abs(u.device_gpu_utilization - 100.0 * (%s) / c.wall_clock_time) < 1e-9 "
           "FROM view_gpu_devices u JOIN view_dl_communication c ON c.aggr_id = u.aggr_id AND "
           "c.device_id = u.device_id WHERE u.device_id = 0 AND u.aggr_id = " NEWEST,
           uni);
  ASSERT_EQ(q_int(h, sql), 1);
  sqlite3_close(h);
  return 0;
}

/* Est. SM efficiency without occupancy rows (an export has none), as
 * Kineto's traces define it: a kernel keeps min(blocks / SMs, 1) of its GPU
 * busy. Per kernel name: the duration-weighted means of blocks / SMs and of
 * that share, computed here on the export. Per GPU: known, at most the
 * kernel-busy share of the wall clock, 0 for a GPU that ran nothing.
 * Without SM counts it is unknown (NULL), not 0. */
static int test_sm_efficiency(void) {
  sqlite3 *h = open_pair(clover_db, clover_x);
  ASSERT_NOT_NULL(h);
  const char *ref =
      "SELECT s.value AS name, count(*) AS calls, "
      "sum(k.gridX * k.gridY * k.gridZ * 1.0 / g.smCount * (k.\"end\" - k.start)) / "
      "sum(k.\"end\" - k.start) AS bpsm, "
      "100.0 * sum(min(k.gridX * k.gridY * k.gridZ * 1.0 / g.smCount, 1.0) * (k.\"end\" - k.start)) / "
      "sum(k.\"end\" - k.start) AS eff "
      "FROM x.CUPTI_ACTIVITY_KIND_KERNEL k JOIN x.StringIds s ON s.id = k.shortName "
      "JOIN x.TARGET_INFO_GPU g ON g.id = k.deviceId GROUP BY s.value";
  char sql[4096];
  snprintf(sql, sizeof sql, "WITH r AS (%s) SELECT count(*) FROM r", ref);
  int64_t names = q_int(h, sql);
  ASSERT(names > 1);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE aggr_id = " NEWEST), names);
  snprintf(sql, sizeof sql,
           "WITH r AS (%s) SELECT count(*) FROM r JOIN main.view_dl_kernel_efficiency e ON "
           "e.kernel_name = r.name AND e.aggr_id = " NEWEST " WHERE e.calls = r.calls AND "
           "abs(e.mean_blocks_per_sm - r.bpsm) <= 1e-9 * r.bpsm AND "
           "abs(e.est_sm_efficiency - r.eff) <= 1e-9 * r.eff",
           ref);
  ASSERT_EQ(q_int(h, sql), names);
  /* both sides of the cap: kernels of fewer blocks than SMs, and of more */
  ASSERT(q_int(h, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE est_sm_efficiency < 100") > 0);
  ASSERT(q_int(h, "SELECT count(*) FROM view_dl_kernel_efficiency WHERE est_sm_efficiency = 100") > 0);
  double eff = q_real(h, "SELECT est_sm_efficiency FROM view_dl_gpu_efficiency WHERE device_id = 0");
  double busy = q_real(h, "SELECT 100.0 * kernel_busy_time / wall_clock_time FROM "
                          "view_dl_gpu_efficiency WHERE device_id = 0");
  ASSERT(eff > 1.0);
  ASSERT(eff <= busy + 1e-9);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_gpu_efficiency WHERE device_id != 0 AND "
                     "est_sm_efficiency = 0 AND kernel_busy_time = 0"),
            3);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_dl_iteration_efficiency WHERE est_sm_efficiency "
                     "IS NULL"),
            0);
  sqlite3_close(h);

  /* the same w_Relu dldb with its GPU's SM count unknown, aggregated again */
  char dir[1200], db[1400];
  snprintf(dir, sizeof dir, "%s/nosms", work);
  mkdir(dir, 0755);
  snprintf(db, sizeof db, "%s/nosms.sqlite", dir);
  ASSERT_OK(test_copy_file(relu_db, db));
  ASSERT_EQ(sqlite3_open(db, &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "UPDATE gpus SET sm_count = 0", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  h = NULL;
  ASSERT_OK(reaggregate(dir, db, &h));
  static const char *const views[] = {"view_dl_gpu_efficiency", "view_dl_iteration_efficiency",
                                      "view_dl_kernel_efficiency"};
  for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE aggr_id = 1 AND est_sm_efficiency IS NULL",
             views[i]);
    ASSERT_EQ(q_int(h, sql), 0); /* with the SM count (40) */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE aggr_id = 2 AND est_sm_efficiency IS NULL",
             views[i]);
    int64_t unknown = q_int(h, sql);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE aggr_id = 2", views[i]);
    ASSERT(unknown > 0);
    ASSERT_EQ(unknown, q_int(h, sql));
  }
  sqlite3_close(h);
  return 0;
}

/* Rows of the NVTX tables of aggregation a not in those of b, both ways. */
static int64_t nvtx_differences(sqlite3 *h, int a, int b) {
  char x[512], y[512];
  int64_t n = 0;
  static const char *const q[] = {
      "SELECT row_idx, name, style, instances, total_time, avg, med, min, max, stddev, time_pct "
      "FROM view_dl_stats_nvtx",
      "SELECT row_idx, name, style, total_proj_time, total_range_time, range_instances, proj_avg, "
      "proj_med, proj_min, proj_max, proj_stddev, total_gpu_ops, avg_range_level, avg_num_child "
      "FROM view_dl_stats_nvtx_gpu_proj"};
  for (int i = 0; i < 2; i++) {
    snprintf(x, sizeof x, "%s WHERE aggr_id = %d", q[i], a);
    snprintf(y, sizeof y, "%s WHERE aggr_id = %d", q[i], b);
    n += differences(h, x, y);
  }
  return n;
}

/* No temporary file is left in dir. */
static int no_scratch(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int clean = 1;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".tmp-")) clean = 0;
  closedir(d);
  return clean;
}

/* A schema 3 file made a schema 2 one: the NVTX statistics as the views
 * read them, in aggr_nvtx_stats' 17 columns, and schema 2's views. */
static const char V2_SQL[] =
    "CREATE TABLE aggr_nvtx_stats (aggr_id INTEGER NOT NULL, kind INTEGER NOT NULL, row_idx "
    " INTEGER NOT NULL, name_id INTEGER NOT NULL, style TEXT NOT NULL, instances INTEGER NOT "
    " NULL, total INTEGER NOT NULL, avg REAL NOT NULL, med REAL NOT NULL, min INTEGER NOT NULL, "
    " max INTEGER NOT NULL, stddev REAL NOT NULL, time_pct REAL NOT NULL, range_time INTEGER NOT "
    " NULL DEFAULT 0, gpu_ops INTEGER NOT NULL DEFAULT 0, avg_level REAL NOT NULL DEFAULT 0, "
    " avg_children REAL NOT NULL DEFAULT 0, PRIMARY KEY (aggr_id, kind, row_idx)) WITHOUT ROWID;"
    "INSERT INTO aggr_nvtx_stats SELECT x.aggr_id, 6, x.row_idx, x.key >> 1, v.style, "
    " v.instances, v.total_time, v.avg, v.med, v.min, v.max, v.stddev, v.time_pct, 0, 0, 0, 0 "
    " FROM aggr_nvtx_runs x JOIN view_dl_stats_nvtx v ON v.aggr_id = x.aggr_id AND v.row_idx = "
    " x.row_idx WHERE x.kind = 6;"
    "INSERT INTO aggr_nvtx_stats SELECT x.aggr_id, 7, x.row_idx, x.key >> 1, v.style, "
    " v.range_instances, v.total_proj_time, v.proj_avg, v.proj_med, v.proj_min, v.proj_max, "
    " v.proj_stddev, 0, v.total_range_time, v.total_gpu_ops, v.avg_range_level, v.avg_num_child "
    " FROM aggr_nvtx_runs x JOIN view_dl_stats_nvtx_gpu_proj v ON v.aggr_id = x.aggr_id AND "
    " v.row_idx = x.row_idx WHERE x.kind = 7;"
    "DROP VIEW view_dl_stats_nvtx; DROP VIEW view_dl_stats_nvtx_gpu_proj;"
    "DROP TABLE aggr_nvtx_runs; DROP TABLE aggr_nvtx_totals;"
    "CREATE VIEW view_dl_stats_nvtx AS SELECT x.aggr_id AS aggr_id, s.value AS domain_name, "
    " x.row_idx, x.time_pct, x.total AS total_time, x.instances, x.avg, x.med, x.min, x.max, "
    " x.stddev, x.style, (SELECT n.value FROM strings n WHERE n.id = x.name_id) AS name FROM "
    " aggregations a CROSS JOIN aggr_nvtx_stats x ON x.aggr_id = a.aggr_id AND x.kind = 6 JOIN "
    " domains d ON d.id = a.domain_id JOIN strings s ON s.id = d.name_id;"
    "CREATE VIEW view_dl_stats_nvtx_gpu_proj AS SELECT x.aggr_id AS aggr_id, s.value AS "
    " domain_name, x.row_idx, (SELECT n.value FROM strings n WHERE n.id = x.name_id) AS name, "
    " x.style, x.total AS total_proj_time, x.range_time AS total_range_time, x.instances AS "
    " range_instances, x.avg AS proj_avg, x.med AS proj_med, x.min AS proj_min, x.max AS "
    " proj_max, x.stddev AS proj_stddev, x.gpu_ops AS total_gpu_ops, CASE WHEN x.instances > 0 "
    " THEN 1.0 * x.gpu_ops / x.instances ELSE 0.0 END AS avg_gpu_ops, x.avg_level AS "
    " avg_range_level, x.avg_children AS avg_num_child FROM aggregations a CROSS JOIN "
    " aggr_nvtx_stats x ON x.aggr_id = a.aggr_id AND x.kind = 7 JOIN domains d ON d.id = "
    " a.domain_id JOIN strings s ON s.id = d.name_id;"
    "UPDATE dl_meta SET value = '2' WHERE key = 'schema_version';"
    "PRAGMA user_version = 2;";

/* Copies relu_db to db and makes it a schema 2 (or 1) file by SQL. */
static int older_copy(const char *db, int schema);

static int reaggregate(const char *dir, const char *db, sqlite3 **h) {
  char args[4096], out[4096];
  /* an option that shapes an aggregation (here the default iteration
   * start): without one, dlprof writes the newest one's reports only */
  snprintf(args, sizeof args, "--database='%s' --iter_start=0 --force=true", db);
  ASSERT_EQ(dlprof(dir, args, out, sizeof out), 0);
  ASSERT(no_scratch(dir));
  ASSERT_EQ(sqlite3_open_v2(db, h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT_EQ(q_int(*h, "SELECT count(*) FROM view_aggregations"), 2);
  return 0;
}

/* Re-aggregation adds NVTX tables equal to the first aggregation's: into
 * this schema's file (aggr_nvtx_runs, rows of one range mostly NULLs), into
 * a schema 2 file (aggr_nvtx_stats: its first aggregation's rows are what
 * schema 3's views derived, the second's what the writer computed, and
 * they must be equal) and into a schema 1 file (kinds 6 and 7 in
 * aggr_stats, read by that file's own views). */
static int test_reaggregation(void) {
  char dir[1200], db[1400], q[256];
  snprintf(dir, sizeof dir, "%s/reagg", work);
  mkdir(dir, 0755);
  snprintf(db, sizeof db, "%s/v3.sqlite", dir);
  ASSERT_OK(test_copy_file(relu_db, db));
  sqlite3 *h = NULL;
  ASSERT_OK(reaggregate(dir, db, &h));
  ASSERT(q_int(h, "SELECT count(*) FROM aggr_nvtx_runs WHERE aggr_id = 2") > 100);
  /* both forms of row: one instance (NULLs) and several */
  ASSERT(q_int(h, "SELECT count(*) FROM aggr_nvtx_runs WHERE instances = 1 AND med IS NULL") > 0);
  ASSERT(q_int(h, "SELECT count(*) FROM aggr_nvtx_runs WHERE instances > 1 AND "
                  "med IS NOT NULL") > 0);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM aggr_nvtx_runs WHERE (instances = 1) <> (med IS NULL)"),
            0);
  ASSERT_EQ(nvtx_differences(h, 1, 2), 0);
  sqlite3_close(h);

  /* older files: the rows go to their own table, which their views read */
  static const struct {
    int schema;
    const char *file, *absent, *rows;
  } older[] = {
      {2, "v2.sqlite", "aggr_nvtx_runs", "SELECT count(*) FROM aggr_nvtx_stats WHERE aggr_id = 2"},
      {1, "v1.sqlite", "aggr_nvtx_stats",
       "SELECT count(*) FROM aggr_stats WHERE aggr_id = 2 AND kind = 6"},
  };
  for (size_t i = 0; i < sizeof older / sizeof older[0]; i++) {
    snprintf(db, sizeof db, "%s/%s", dir, older[i].file);
    ASSERT_OK(older_copy(db, older[i].schema));
    ASSERT_OK(reaggregate(dir, db, &h));
    snprintf(q, sizeof q, "SELECT count(*) FROM sqlite_master WHERE name = '%s'", older[i].absent);
    ASSERT_EQ(q_int(h, q), 0);
    ASSERT(q_int(h, older[i].rows) > 100);
    ASSERT_EQ(nvtx_differences(h, 1, 2), 0);
    sqlite3_close(h);
  }
  return 0;
}

static int older_copy(const char *db, int schema) {
  ASSERT_OK(test_copy_file(relu_db, db));
  sqlite3 *h = NULL;
  ASSERT_EQ(sqlite3_open(db, &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, V2_SQL, NULL, NULL, NULL), SQLITE_OK);
  if (schema == 2) {
    sqlite3_close(h);
    return 0;
  }
  ASSERT_EQ(sqlite3_exec(
                h,
                "INSERT INTO aggr_stats(aggr_id, kind, row_idx, name_id, label, instances, total, "
                " avg, med, min, max, stddev, time_pct, range_time, gpu_ops, avg_level, "
                " avg_children) SELECT aggr_id, kind, row_idx, name_id, style, instances, total, "
                " avg, med, min, max, stddev, time_pct, range_time, gpu_ops, avg_level, "
                " avg_children FROM aggr_nvtx_stats;"
                "DROP VIEW view_dl_stats_nvtx; DROP VIEW view_dl_stats_nvtx_gpu_proj;"
                "DROP TABLE aggr_nvtx_stats;"
                "CREATE VIEW view_dl_stats_nvtx AS SELECT x.aggr_id AS aggr_id, s.value AS "
                " domain_name, x.row_idx, x.time_pct, x.total AS total_time, x.instances, x.avg, "
                " x.med, x.min, x.max, x.stddev, x.label AS style, (SELECT n.value FROM strings n "
                " WHERE n.id = x.name_id) AS name FROM aggregations a CROSS JOIN aggr_stats x ON "
                " x.aggr_id = a.aggr_id AND x.kind = 6 JOIN domains d ON d.id = a.domain_id JOIN "
                " strings s ON s.id = d.name_id;"
                "CREATE VIEW view_dl_stats_nvtx_gpu_proj AS SELECT x.aggr_id AS aggr_id, s.value "
                " AS domain_name, x.row_idx, (SELECT n.value FROM strings n WHERE n.id = "
                " x.name_id) AS name, x.label AS style, x.total AS total_proj_time, x.range_time "
                " AS total_range_time, x.instances AS range_instances, x.avg AS proj_avg, x.med AS "
                " proj_med, x.min AS proj_min, x.max AS proj_max, x.stddev AS proj_stddev, "
                " x.gpu_ops AS total_gpu_ops, CASE WHEN x.instances > 0 THEN 1.0 * x.gpu_ops / "
                " x.instances ELSE 0.0 END AS avg_gpu_ops, x.avg_level AS avg_range_level, "
                " x.avg_children AS avg_num_child FROM aggregations a CROSS JOIN aggr_stats x ON "
                " x.aggr_id = a.aggr_id AND x.kind = 7 JOIN domains d ON d.id = a.domain_id JOIN "
                " strings s ON s.id = d.name_id;"
                "UPDATE dl_meta SET value = '1' WHERE key = 'schema_version';"
                "PRAGMA user_version = 1;",
                NULL, NULL, NULL),
            SQLITE_OK);
  sqlite3_close(h);
  return 0;
}

/* NVIDIA's database has no statistics views: the report says which. */
static int test_nvidia_db(void) {
  char dir[1200], args[4096], out[4096], db[1200];
  snprintf(db, sizeof db, "%s/traces/dlprof/no_relu/dlprof_dldb.sqlite", shared);
  snprintf(dir, sizeof dir, "%s/nvidia", work);
  snprintf(args, sizeof args, "--database='%s' --reports=cuda_api_sum --force=true --output_path='%s'",
           db, dir);
  ASSERT(dlprof(dir, args, out, sizeof out) != 0);
  ASSERT_CONTAINS(out, "view_dl_stats_cuda_api");
  return 0;
}

/* An op that runs a tensor-core kernel is TC eligible: on the CUTLASS export
 * every GEMM kernel uses tensor cores and is launched outside every op, and
 * TC utilization read 0.0 % (no op of an eligible type) beside 162 ms of TC
 * kernels and an empty tensor-core report. */
static int test_cutlass_tc(void) {
  char x[1200], dir[1200], args[4096], out[4096], db[1400];
  snprintf(x, sizeof x, "%s/traces/nsys/nsys2023.2_cutlass_sgemm.sqlite", shared);
  snprintf(dir, sizeof dir, "%s/cutlass", work);
  snprintf(args, sizeof args, "--database='%s' --force=true --reports=tensor", x);
  ASSERT_EQ(dlprof(dir, args, out, sizeof out), 0);
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", dir);
  sqlite3 *h = open_pair(db, x);
  ASSERT_NOT_NULL(h);
  ASSERT(q_int(h, "SELECT count(*) FROM view_op_nodes WHERE using_tc = 1") >= 1);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_op_nodes WHERE using_tc = 1 AND tc_eligible = 0"), 0);
  /* every kernel time of eligible ops is TC time here */
  ASSERT(fabs(q_real(h, "SELECT tc_utilization FROM view_tc_utilization") - 100.0) < 1e-9);
  ASSERT_EQ(q_int(h, "SELECT nodes_tc_eligible_gpu_time FROM view_op_summary"),
            q_int(h, "SELECT nodes_using_tc_gpu_time FROM view_op_summary"));
  /* Nsight's shortName of every kernel here is its wrapper's, "Kernel": the
   * tables name it for the type it launches, cutlass::gemm::kernel::Gemm
   * (common/dl_kname.h), and keep the demangled name as the long one */
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM x.CUPTI_ACTIVITY_KIND_KERNEL k JOIN x.StringIds s "
                     "ON s.id = k.shortName WHERE s.value <> 'Kernel'"),
            0);
  ASSERT(q_int(h, "SELECT count(*) FROM view_kernel_summaries WHERE kernel_name = 'Gemm'") >= 1);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_kernel_summaries WHERE kernel_name <> 'Gemm'"), 0);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_iteration_kernels WHERE kernel_name = 'Gemm'"),
            q_int(h, "SELECT count(*) FROM x.CUPTI_ACTIVITY_KIND_KERNEL"));
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM view_iteration_kernels WHERE kernel_name <> 'Gemm'"), 0);
  ASSERT_EQ(q_int(h, "SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.long_name_id "
                     "WHERE s.value NOT LIKE 'void cutlass::Kernel<cutlass::gemm::kernel::Gemm<%'"),
            0);
  sqlite3_close(h);
  char rep[1500];
  snprintf(rep, sizeof rep, "%s/dlprof_tensor_core.csv", dir);
  FILE *f = fopen(rep, "r");
  ASSERT_NOT_NULL(f);
  int lines = 0;
  for (int ch; (ch = fgetc(f)) != EOF;) lines += ch == '\n';
  fclose(f);
  ASSERT(lines > 2); /* the title, the headers, then op rows */
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_stats DLPROF SHARED_DIR WORK_DIR\n");
    return 2;
  }
  dlprof_bin = argv[1];
  shared = argv[2];
  snprintf(work, sizeof work, "%s/stats-work", argv[3]);
  mkdir(work, 0755);
  snprintf(clover_x, sizeof clover_x, "%s/traces/nsys/nsys2024.5_a100x4_cloverleaf.sqlite", shared);
  snprintf(relu_x, sizeof relu_x, "%s/traces/dlprof/w_Relu/nsys_profile.sqlite", shared);
  struct stat sb;
  if (stat(clover_x, &sb) != 0 || stat(relu_x, &sb) != 0) {
    printf("SKIP: the shared traces are missing: %s, %s\n", clover_x, relu_x);
    return 77;
  }
  char dir[1200], args[4096], out[4096];
  snprintf(dir, sizeof dir, "%s/clover", work);
  snprintf(args, sizeof args, "--database='%s' --force=true", clover_x);
  if (dlprof(dir, args, out, sizeof out) != 0) {
    fprintf(stderr, "dlprof failed on %s: %s\n", clover_x, out);
    return 1;
  }
  snprintf(clover_db, sizeof clover_db, "%s/dlprof_dldb.sqlite", dir);
  snprintf(dir, sizeof dir, "%s/relu", work);
  snprintf(args, sizeof args, "--database='%s' --force=true", relu_x);
  if (dlprof(dir, args, out, sizeof out) != 0) {
    fprintf(stderr, "dlprof failed on %s: %s\n", relu_x, out);
    return 1;
  }
  snprintf(relu_db, sizeof relu_db, "%s/dlprof_dldb.sqlite", dir);
  RUN(test_clover_cuda_api);
  RUN(test_clover_kernels);
  RUN(test_clover_memory);
  RUN(test_clover_osrt);
  RUN(test_relu);
  RUN(test_sm_efficiency);
  RUN(test_relu_gpu_busy);
  RUN(test_reports);
  RUN(test_reaggregation);
  RUN(test_nvidia_db);
  RUN(test_cutlass_tc);
  TEST_DONE();
}
