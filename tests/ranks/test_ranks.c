/*
 * test_ranks - ranks of a distributed job end to end: synthetic jobs of 8
 * and 1,024 ranks (ranks_gen.h) through dlprof --database=DIR, whose per-rank
 * figures must equal the generated ones, whose planted straggler must be
 * named without "communication is exposed" advice for the waiting it
 * causes, and whose planted collective skew must be found; per-rank dldbs
 * merged (every rank's raw records, or the summaries of all and the raw
 * records of the slowest, the median and the fastest) with the same
 * figures as the folder of traces; then HTA's two
 * sampled ranks and its NCCL trace, whose ranks must be as recorded.
 *
 * Usage: test_ranks DLPROF SHARED_DIR WORK_DIR
 * The real traces are skipped (77, naming the path) when SHARED_DIR lacks
 * them; the synthetic jobs run either way.
 */
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ranks_gen.h"
#include "test.h"

static const char *dlprof_bin, *work, *shared;
static int case_no;

/* dlprof --database=input into a fresh folder; db gets the dldb's path.
 * Returns dlprof's exit status. */
static int run(const char *input, char *db, size_t n) {
  char dir[1100], cmd[4096];
  snprintf(dir, sizeof dir, "%s/out%d", work, ++case_no);
  mkdir(dir, 0755);
  snprintf(db, n, "%s/dlprof_dldb.sqlite", dir);
  unlink(db);
  snprintf(cmd, sizeof cmd,
           "'%s' --database='%s' --output_path='%s' --force=true >'%s/log.txt' 2>&1",
           dlprof_bin, input, dir, dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A fresh folder holding the job p. */
static int generate(const rg_params *p, char *dir, size_t n) {
  snprintf(dir, n, "%s/job%d", work, ++case_no);
  mkdir(dir, 0755);
  return rg_write(p, dir);
}

static int64_t q_int(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  int64_t v = -999;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_int64(st, 0);
  else if (!st)
    fprintf(stderr, "sql error: %s: %s\n", sql, h ? sqlite3_errmsg(h) : "?");
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

/* The first column of the first row as text ("" none). */
static void q_text(const char *db, const char *sql, char *out, size_t n) {
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0))
    snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
}

/* Every rank's row equals the generated figures (one query: a row per rank). */
static int check_ranks(const char *db, const rg_params *p) {
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_ranks"), p->ranks);
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(h,
                               "SELECT rank, compute_time, communication_time, "
                               "exposed_communication_time, idle_time, iter_avg, iterations, "
                               "world_size, local_device FROM view_dl_ranks ORDER BY rank",
                               -1, &st, NULL),
            SQLITE_OK);
  int r = 0, bad = 0;
  for (; !bad && sqlite3_step(st) == SQLITE_ROW; r++) {
    rg_expect e = rg_expected(p, r);
    const int64_t want[] = {r,         e.compute_ns, e.comm_ns, e.exposed_ns, e.idle_ns,
                            e.iter_ns, p->iters,     p->ranks,  r % 8};
    for (int i = 0; !bad && i < (int)(sizeof want / sizeof want[0]); i++)
      if (sqlite3_column_int64(st, i) != want[i]) {
        fprintf(stderr, "rank %d, %s: %lld, want %lld\n", r, sqlite3_column_name(st, i),
                (long long)sqlite3_column_int64(st, i), (long long)want[i]);
        bad = 1;
      }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  ASSERT_EQ(bad, 0);
  ASSERT_EQ(r, p->ranks);
  char name[256];
  q_text(db, "SELECT gpu_name FROM view_dl_ranks WHERE rank = 3", name, sizeof name);
  ASSERT_STR_EQ(name, "rank 3, GPU 3 (NVIDIA H100 80GB HBM3)");
  return 0;
}

/* The planted straggler and skew found; no exposed-communication finding
 * for the waiting they cause. */
static int check_findings(const char *db, const rg_params *p) {
  char txt[1024], sql[256];
  q_text(db, "SELECT problem FROM aggr_findings WHERE rule_id = 'straggler_detector'", txt,
         sizeof txt);
  snprintf(sql, sizeof sql, "rank %d is a straggler: its compute is %.3f ms per iteration",
           p->straggler, (double)p->straggler_us / 1e3);
  ASSERT_CONTAINS(txt, sql);
  snprintf(sql, sizeof sql, "the other %d ranks lose", p->ranks - 1);
  ASSERT_CONTAINS(txt, sql);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings "
                      "WHERE rule_id = 'exposed_communication_detector'"), 0);
  q_text(db, "SELECT problem FROM aggr_findings WHERE rule_id = 'collective_skew_detector'", txt,
         sizeof txt);
  ASSERT_CONTAINS(txt, "ncclDevKernel_AllGather_RING_LL");
  snprintf(sql, sizeof sql, "starts on average %.3f ms apart across its %d ranks",
           (double)p->skew_us / 1e3, p->ranks);
  ASSERT_CONTAINS(txt, sql);
  snprintf(sql, sizeof sql, "rank %d starts last in %d of %d instances", p->skew_rank, p->iters,
           p->iters);
  ASSERT_CONTAINS(txt, sql);
  /* the waiting, above the least waiting rank's (the straggler's, which
   * waits for the skewed rank as every other rank does) */
  snprintf(sql, sizeof sql,
           "SELECT wait_time FROM view_dl_ranks WHERE rank = %d",
           p->straggler == 0 ? 1 : 0);
  ASSERT_EQ(q_int(db, sql), p->straggler_us * 1000 * p->iters);
  return 0;
}

static double q_real(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  double v = -999;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

/* a equals b to 1 part in 10^9 (bandwidths: a quotient of integers). */
static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b); }

/* The generated collectives' NCCL-tests figures: S the full buffer, its
 * transfer time the generated one, bus bandwidth 2(n-1)/n of the algorithm
 * bandwidth for the all-reduce, (n-1)/n for the all-gather; the H100 SXM's
 * NVLink 4 is 450 GB/s in one direction. */
static double alg_bw(int64_t bytes, int64_t us) { return (double)bytes / ((double)us * 1e-6); }

static int check_bandwidth(const char *db, const rg_params *p) {
  static const char *ar = "FROM view_dl_collectives WHERE kernel_name LIKE 'ncclDevKernel_AllReduce%'";
  static const char *ag = "FROM view_dl_collectives WHERE kernel_name LIKE 'ncclDevKernel_AllGather%'";
  char sql[512], txt[64];
  int n = p->ranks;
  double ar_alg = alg_bw(p->allreduce_bytes, p->allreduce_us);
  double ag_alg = alg_bw(p->allgather_bytes, p->allgather_us);
  snprintf(sql, sizeof sql, "SELECT bytes %s", ar);
  ASSERT_EQ(q_int(db, sql), p->allreduce_bytes * p->iters);
  snprintf(sql, sizeof sql, "SELECT bytes %s", ag);
  ASSERT_EQ(q_int(db, sql), p->allgather_bytes * p->iters);
  snprintf(sql, sizeof sql, "SELECT collective %s", ar);
  q_text(db, sql, txt, sizeof txt);
  ASSERT_STR_EQ(txt, "allreduce");
  snprintf(sql, sizeof sql, "SELECT collective %s", ag);
  q_text(db, sql, txt, sizeof txt);
  ASSERT_STR_EQ(txt, "allgather");
  snprintf(sql, sizeof sql, "SELECT group_size %s", ar);
  ASSERT_EQ(q_int(db, sql), n);
  snprintf(sql, sizeof sql, "SELECT alg_bandwidth %s", ar);
  ASSERT(near(q_real(db, sql), ar_alg));
  snprintf(sql, sizeof sql, "SELECT bus_bandwidth %s", ar);
  ASSERT(near(q_real(db, sql), ar_alg * 2 * (n - 1) / n));
  snprintf(sql, sizeof sql, "SELECT alg_bandwidth %s", ag);
  ASSERT(near(q_real(db, sql), ag_alg));
  snprintf(sql, sizeof sql, "SELECT bus_bandwidth %s", ag);
  ASSERT(near(q_real(db, sql), ag_alg * (n - 1) / n));
  snprintf(sql, sizeof sql, "SELECT link_bandwidth %s", ar);
  ASSERT(near(q_real(db, sql), 450e9));
  return 0;
}

/* The all-reduce's bus bandwidth, far below the link's, is found. */
static int check_bandwidth_finding(const char *db, const rg_params *p) {
  char txt[1024], want[512];
  int n = p->ranks;
  double bus = alg_bw(p->allreduce_bytes, p->allreduce_us) * 2 * (n - 1) / n;
  q_text(db, "SELECT problem FROM aggr_findings WHERE rule_id = 'collective_bandwidth_detector'",
         txt, sizeof txt);
  snprintf(want, sizeof want,
           "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*) "
           "(allreduce of %.1f MiB on average, %d ranks, %d instances) reaches a bus bandwidth "
           "of %.1f GB/s (algorithm bandwidth %.1f GB/s), %.1f%% of its GPU's link (450.0 GB/s",
           (double)p->allreduce_bytes / (1 << 20), n, p->iters, bus / 1e9,
           alg_bw(p->allreduce_bytes, p->allreduce_us) / 1e9, 100.0 * bus / 450e9);
  ASSERT_CONTAINS(txt, want);
  return 0;
}

/* The collectives: matched on every rank, their transfer time and skew. */
static int check_collectives(const char *db, const rg_params *p) {
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_collectives"), 2);
  ASSERT_EQ(q_int(db, "SELECT instances FROM view_dl_collectives "
                      "WHERE kernel_name LIKE 'ncclDevKernel_AllReduce%'"), p->iters);
  ASSERT_EQ(q_int(db, "SELECT transfer_time FROM view_dl_collectives "
                      "WHERE kernel_name LIKE 'ncclDevKernel_AllReduce%'"),
            p->allreduce_us * 1000 * p->iters);
  ASSERT_EQ(q_int(db, "SELECT start_skew_max FROM view_dl_collectives "
                      "WHERE kernel_name LIKE 'ncclDevKernel_AllReduce%'"),
            p->straggler_us * 1000);
  ASSERT_EQ(q_int(db, "SELECT last_rank FROM view_dl_collectives "
                      "WHERE kernel_name LIKE 'ncclDevKernel_AllReduce%'"), p->straggler);
  return 0;
}

static int job(const rg_params *p) {
  char dir[1100], db[1200];
  ASSERT_OK(generate(p, dir, sizeof dir));
  ASSERT_OK(run(dir, db, sizeof db));
  if (check_ranks(db, p) || check_findings(db, p) || check_collectives(db, p) ||
      check_bandwidth(db, p) || check_bandwidth_finding(db, p))
    return 1;
  return 0;
}

/* Collectives near their link's bandwidth, or of messages too small to be
 * bound by it, are not found slow. */
static int test_bandwidth_at_link(void) {
  rg_params p;
  rg_defaults(&p);
  p.allreduce_bytes = 400 << 20; /* 367 GB/s of bus bandwidth: 82 % of NVLink 4 */
  p.allgather_bytes = 512 << 10; /* 0.9 GB/s, but 512 KiB: bound by latency */
  char dir[1100], db[1200];
  ASSERT_OK(generate(&p, dir, sizeof dir));
  ASSERT_OK(run(dir, db, sizeof db));
  if (check_bandwidth(db, &p)) return 1;
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings "
                      "WHERE rule_id = 'collective_bandwidth_detector'"), 0);
  return 0;
}

static int test_job_8(void) {
  rg_params p;
  rg_defaults(&p);
  return job(&p);
}

/* 1,024 ranks: device ids up to 102,307 (rank x 100 + device). */
static int test_job_1024(void) {
  rg_params p;
  rg_defaults(&p);
  p.ranks = 1024;
  p.iters = 2;
  p.straggler = 1001;
  p.skew_rank = 77;
  return job(&p);
}

/* Without a straggler, exposed transfer time is advised on, and no rank is
 * called a straggler (the rules can fail both ways). */
static int test_exposed_no_straggler(void) {
  rg_params p;
  rg_defaults(&p);
  p.straggler = p.skew_rank = -1;
  p.allreduce_us = 8000;
  char dir[1100], db[1200];
  ASSERT_OK(generate(&p, dir, sizeof dir));
  ASSERT_OK(run(dir, db, sizeof db));
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings WHERE rule_id = 'straggler_detector'"),
            0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings "
                      "WHERE rule_id IN ('exposed_communication_detector')"), 1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings "
                      "WHERE rule_id = 'collective_skew_detector'"), 0);
  ASSERT_EQ(q_int(db, "SELECT max(wait_time) FROM view_dl_ranks"), 0);
  return 0;
}

/* A rank that loads data before its compute is the straggler, for its
 * data loading, which its row shows (its process's DataLoader op). */
static int test_rank_data_loading(void) {
  rg_params p;
  rg_defaults(&p);
  p.straggler = -1;
  p.loader_rank = 2;
  p.loader_us = 5000;
  char dir[1100], db[1200], sql[256], txt[1024];
  ASSERT_OK(generate(&p, dir, sizeof dir));
  ASSERT_OK(run(dir, db, sizeof db));
  for (int r = 0; r < p.ranks; r++) {
    snprintf(sql, sizeof sql, "SELECT dataloader_time FROM view_dl_ranks WHERE rank = %d", r);
    ASSERT_EQ(q_int(db, sql), rg_expected(&p, r).loader_ns);
  }
  ASSERT_EQ(rg_expected(&p, 2).loader_ns, 5000 * 1000 * p.iters);
  q_text(db, "SELECT problem FROM aggr_findings WHERE rule_id = 'straggler_detector'", txt,
         sizeof txt);
  ASSERT_CONTAINS(txt, "rank 2 is a straggler: its data loading is 5.000 ms per iteration");
  return 0;
}

/* The rows of query sql as one text (rows joined by newlines). */
static void q_rows(const char *db, const char *sql, char *out, size_t n) {
  char wrapped[1024];
  snprintf(wrapped, sizeof wrapped, "SELECT group_concat(r, char(10)) FROM (%s)", sql);
  q_text(db, wrapped, out, n);
}

/* dlprof --database=input with one more option into a fresh folder, as run(). */
static int run_opt(const char *input, const char *opt, char *db, size_t n) {
  char dir[1100], cmd[4096];
  snprintf(dir, sizeof dir, "%s/out%d", work, ++case_no);
  mkdir(dir, 0755);
  snprintf(db, n, "%s/dlprof_dldb.sqlite", dir);
  unlink(db);
  snprintf(cmd, sizeof cmd,
           "'%s' --database='%s' --output_path='%s' --force=true %s >'%s/log.txt' 2>&1",
           dlprof_bin, input, dir, opt, dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The figures a merge must give as the folder of traces imported at once:
 * per rank, per rank and iteration, per collective, and the findings on
 * ranks (the others are of the whole profile: a merge of summaries has the
 * raw records of a few ranks only). */
static const char *const merge_queries[] = {
    "SELECT rank || '|' || device_id || '|' || local_device || '|' || gpu_name || '|' || "
    "world_size || '|' || iterations || '|' || iter_avg || '|' || wall_clock_time || '|' || "
    "compute_time || '|' || communication_time || '|' || exposed_communication_time || '|' || "
    "idle_time || '|' || dataloader_time || '|' || wait_time AS r FROM view_dl_ranks "
    "ORDER BY rank",
    "SELECT rank || '|' || iter_value || '|' || duration || '|' || kernel_busy_time || '|' || "
    "communication_time || '|' || exposed_communication_time AS r "
    "FROM view_dl_rank_iterations ORDER BY rank, iter_value",
    "SELECT kernel_name || '|' || ranks || '|' || instances || '|' || total_time || '|' || "
    "start_skew_avg || '|' || start_skew_max || '|' || last_rank || '|' || transfer_time || "
    "'|' || bytes || '|' || bus_bandwidth AS r FROM view_dl_collectives ORDER BY kernel_name",
    "SELECT rule_id || '|' || problem AS r FROM aggr_findings WHERE rule_id IN "
    "('straggler_detector', 'collective_skew_detector', 'exposed_communication_detector', "
    "'collective_bandwidth_detector') ORDER BY rule_id",
};

static int same_figures(const char *all, const char *merged, size_t nq) {
  static char a[65536], b[65536];
  for (size_t i = 0; i < nq; i++) {
    q_rows(all, merge_queries[i], a, sizeof a);
    q_rows(merged, merge_queries[i], b, sizeof b);
    ASSERT(a[0] != '\0');
    ASSERT_STR_EQ(b, a);
  }
  return 0;
}

/* Job p imported as a folder of traces into *all, and one rank at a time
 * into dldbs linked into the fresh folder dldbs. */
static int rank_dldbs(const rg_params *p, char *all, size_t na, char *dldbs, size_t nd) {
  char job[1100], trace[1300], one[1200], link[1300];
  ASSERT_OK(generate(p, job, sizeof job));
  ASSERT_OK(run(job, all, na));
  snprintf(dldbs, nd, "%s/dldbs%d", work, ++case_no);
  mkdir(dldbs, 0755);
  for (int r = 0; r < p->ranks; r++) {
    snprintf(trace, sizeof trace, "%s/rank-%d.pt.trace.json", job, r);
    ASSERT_OK(run(trace, one, sizeof one));
    snprintf(link, sizeof link, "%s/rank-%d.sqlite", dldbs, r);
    unlink(link);
    ASSERT_OK(symlink(one, link));
  }
  return 0;
}

/* Per-rank dldbs, each imported from its rank's trace alone, merged by
 * dlprof --database=DIR --detail_ranks=all (every rank's raw records): the
 * same per-rank figures, collectives and every finding as the folder of
 * traces imported at once. */
static int test_merge_rank_dldbs(void) {
  rg_params p;
  rg_defaults(&p);
  char all[1200], merged[1200], dldbs[1100], one[1200], link[1300];
  if (rank_dldbs(&p, all, sizeof all, dldbs, sizeof dldbs)) return 1;
  ASSERT_OK(run_opt(dldbs, "--detail_ranks=all", merged, sizeof merged));
  if (same_figures(all, merged, sizeof merge_queries / sizeof merge_queries[0])) return 1;
  static char a[65536], b[65536];
  const char *every = "SELECT rule_id || '|' || problem AS r FROM aggr_findings ORDER BY rule_id";
  q_rows(all, every, a, sizeof a);
  q_rows(merged, every, b, sizeof b);
  ASSERT_STR_EQ(b, a);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM view_dl_ranks"), p.ranks);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM dl_rank_sources WHERE detail = 1"), p.ranks);
  q_text(merged, "SELECT problem FROM aggr_findings WHERE rule_id = 'straggler_detector'", a,
         sizeof a);
  ASSERT_CONTAINS(a, "rank 3 is a straggler");
  /* a rank in two of the dldbs (the merged one beside its sources) is refused */
  snprintf(link, sizeof link, "%s/merged.sqlite", dldbs);
  unlink(link);
  ASSERT_OK(symlink(merged, link));
  ASSERT(run(dldbs, one, sizeof one) != 0);
  /* and so is a rank's dldb given twice, as summaries */
  unlink(link);
  snprintf(a, sizeof a, "%s/rank-2.sqlite", dldbs);
  snprintf(link, sizeof link, "%s/rank-2-again.sqlite", dldbs);
  ASSERT_OK(symlink(a, link));
  ASSERT(run(dldbs, one, sizeof one) != 0);
  unlink(link);
  return 0;
}

/* The ranks, slowest first, by their own time (wall less exposed
 * communication), from the folder of traces' import: "R,S,..." of the
 * fastest, the median and the slowest (ranks sorted). */
static void expected_detail(const char *all, int n, char *out, size_t len) {
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT group_concat(rank) FROM (SELECT rank FROM (SELECT rank, row_number() OVER "
           "(ORDER BY wall_clock_time - exposed_communication_time, rank) - 1 AS i "
           "FROM view_dl_ranks) WHERE i IN (0, %d, %d) ORDER BY rank)",
           (n - 1) / 2, n - 1);
  q_text(all, sql, out, len);
}

/* The default merge keeps every rank's summary and the raw records of the
 * slowest, the median and the fastest rank only (and of those asked for):
 * the per-rank figures, the heatmap, the collectives (their skew from
 * every rank's collective kernels) and the findings on ranks equal the
 * folder of traces'; the other ranks have no raw record in the file. */
static int test_merge_rank_summaries(void) {
  rg_params p;
  rg_defaults(&p);
  /* own times: the straggler 3 slowest, then the skewed 5 (it waits less),
   * the other six equal (the median among them by rank) */
  char all[1200], merged[1200], dldbs[1100], want[256], got[256];
  if (rank_dldbs(&p, all, sizeof all, dldbs, sizeof dldbs)) return 1;
  ASSERT_OK(run(dldbs, merged, sizeof merged));
  if (same_figures(all, merged, sizeof merge_queries / sizeof merge_queries[0])) return 1;
  expected_detail(all, p.ranks, want, sizeof want);
  ASSERT_CONTAINS(want, "3"); /* the straggler is the slowest */
  q_text(merged, "SELECT group_concat(rank) FROM (SELECT rank FROM view_dl_rank_sources "
                 "WHERE detail = 1 ORDER BY rank)", got, sizeof got);
  ASSERT_STR_EQ(got, want);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM view_dl_rank_sources"), p.ranks);
  ASSERT_EQ(q_int(merged, "SELECT count(DISTINCT device_id) FROM kernels"), 3);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM kernels WHERE device_id IN "
                          "(SELECT device_id FROM dl_rank_sources WHERE detail = 0)"), 0);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM kernels WHERE device_id NOT IN "
                          "(SELECT device_id FROM dl_rank_sources WHERE detail = 1)"), 0);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM dl_rank_source_iters i JOIN dl_rank_sources m "
                          "ON m.device_id = i.device_id WHERE m.detail = 0"),
            (int64_t)(p.ranks - 3) * p.iters);
  q_text(merged, "SELECT source FROM view_dl_rank_sources WHERE rank = 5", got, sizeof got);
  ASSERT_STR_EQ(got, "rank-5.sqlite");
  /* ranks asked for keep their raw records too */
  ASSERT_OK(run_opt(dldbs, "--detail_ranks=5,7", merged, sizeof merged));
  if (same_figures(all, merged, sizeof merge_queries / sizeof merge_queries[0])) return 1;
  q_text(merged, "SELECT group_concat(rank) FROM (SELECT rank FROM view_dl_rank_sources "
                 "WHERE detail = 1 ORDER BY rank)", got, sizeof got);
  ASSERT_CONTAINS(got, "5");
  ASSERT_CONTAINS(got, "7");
  ASSERT_EQ(q_int(merged, "SELECT count(DISTINCT device_id) FROM kernels"),
            q_int(merged, "SELECT count(*) FROM dl_rank_sources WHERE detail = 1"));
  ASSERT(run_opt(dldbs, "--detail_ranks=x", merged, sizeof merged) != 0);
  return 0;
}

/* Files named as tensorboard_trace_handler names them
 * ("<host>_<pid>.<time>.pt.trace.json") give each rank its host; other
 * names give none. Merged from per-rank dldbs, the hosts stay. */
static int test_rank_hosts(void) {
  rg_params p;
  rg_defaults(&p);
  char job[1100], named[1100], from[1300], to[1300], db[1200], sql[256], txt[256];
  ASSERT_OK(generate(&p, job, sizeof job));
  snprintf(named, sizeof named, "%s/named%d", work, ++case_no);
  snprintf(to, sizeof to, "rm -rf '%s'", named); /* a folder of an earlier run */
  ASSERT_EQ(system(to), 0);
  mkdir(named, 0755);
  for (int r = 0; r < p.ranks; r++) {
    snprintf(from, sizeof from, "%s/rank-%d.pt.trace.json", job, r);
    if (r == 7) snprintf(to, sizeof to, "%s/worker7.1700000000000.pt.trace.json", named);
    else snprintf(to, sizeof to, "%s/gpu-node%d_%d.1700000000000.pt.trace.json", named, r / 4,
                  4000 + r);
    ASSERT_OK(rename(from, to)); /* a link would be read by its target's name */
  }
  ASSERT_OK(run(named, db, sizeof db));
  for (int r = 0; r < p.ranks; r++) {
    snprintf(sql, sizeof sql, "SELECT ifnull(host, 'NULL') FROM view_dl_ranks WHERE rank = %d", r);
    q_text(db, sql, txt, sizeof txt);
    if (r == 7) ASSERT_STR_EQ(txt, "NULL");
    else ASSERT_STR_EQ(txt, r < 4 ? "gpu-node0" : "gpu-node1");
  }
  /* per-rank dldbs merged (three with raw records, four as summaries): the
   * hosts are kept */
  char dldbs[1100], one[1200], link[1300], merged[1200];
  snprintf(dldbs, sizeof dldbs, "%s/hostdldbs%d", work, ++case_no);
  mkdir(dldbs, 0755);
  for (int r = 0; r < 7; r++) {
    snprintf(from, sizeof from, "%s/gpu-node%d_%d.1700000000000.pt.trace.json", named, r / 4,
             4000 + r);
    ASSERT_OK(run(from, one, sizeof one));
    snprintf(link, sizeof link, "%s/r%d.sqlite", dldbs, r);
    unlink(link);
    ASSERT_OK(symlink(one, link));
  }
  ASSERT_OK(run(dldbs, merged, sizeof merged));
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM view_dl_ranks WHERE host = 'gpu-node0'"), 4);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM view_dl_ranks WHERE host = 'gpu-node1'"), 3);
  ASSERT_EQ(q_int(merged, "SELECT count(*) FROM dl_rank_sources WHERE detail = 0"), 4);
  return 0;
}

/* The heatmap: one cell per rank and iteration, the rank's own step (its
 * duration, its kernels' busy time, its collectives' time, all exposed:
 * the generated kernels do not overlap), whatever the other ranks' steps. */
static int check_heatmap(const char *db, const rg_params *p) {
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_rank_iterations"),
            (int64_t)p->ranks * p->iters);
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  ASSERT_EQ(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ASSERT_EQ(sqlite3_prepare_v2(h,
                               "SELECT rank, iter_value, duration, kernel_busy_time, "
                               "communication_time, exposed_communication_time "
                               "FROM view_dl_rank_iterations ORDER BY rank, iter_value",
                               -1, &st, NULL),
            SQLITE_OK);
  int n = 0, bad = 0;
  for (; !bad && sqlite3_step(st) == SQLITE_ROW; n++) {
    int r = n / p->iters, i = n % p->iters;
    rg_expect e = rg_expected(p, r);
    const int64_t want[] = {r, i, e.iter_ns, (e.compute_ns + e.comm_ns) / p->iters,
                            e.comm_ns / p->iters, e.exposed_ns / p->iters};
    for (int k = 0; !bad && k < (int)(sizeof want / sizeof want[0]); k++)
      if (sqlite3_column_int64(st, k) != want[k]) {
        fprintf(stderr, "heatmap rank %d, iteration %d, %s: %lld, want %lld\n", r, i,
                sqlite3_column_name(st, k), (long long)sqlite3_column_int64(st, k),
                (long long)want[k]);
        bad = 1;
      }
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  ASSERT_EQ(bad, 0);
  ASSERT_EQ(n, p->ranks * p->iters);
  return 0;
}

/* Each rank's iteration time and heatmap cells are its own steps': a rank
 * whose steps are longer (its steps drift from the others') shows it; the
 * heatmap is the same in the folder of traces and in the merge of per-rank
 * dldbs (the rank rows are not: a folder's are over the job's one window). */
static int test_rank_iter_avg(void) {
  rg_params p;
  rg_defaults(&p);
  p.straggler = p.skew_rank = -1;
  p.tail_rank = 4;
  p.tail_us = 3000;
  char all[1200], merged[1200], dldbs[1100], sql[256];
  if (rank_dldbs(&p, all, sizeof all, dldbs, sizeof dldbs)) return 1;
  for (int r = 0; r < p.ranks; r++) {
    snprintf(sql, sizeof sql, "SELECT iter_avg FROM view_dl_ranks WHERE rank = %d", r);
    ASSERT_EQ(q_int(all, sql), rg_expected(&p, r).iter_ns);
  }
  ASSERT_EQ(rg_expected(&p, 4).iter_ns - rg_expected(&p, 0).iter_ns, 3000 * 1000);
  if (check_heatmap(all, &p)) return 1;
  ASSERT_OK(run(dldbs, merged, sizeof merged));
  return check_heatmap(merged, &p);
}

static int test_hta_sampled_ranks(void) {
  char dir[1100], src[1200], dst[1200], db[1200];
  snprintf(dir, sizeof dir, "%s/hta_sampled", work);
  mkdir(dir, 0755);
  for (int r = 0; r < 2; r++) {
    snprintf(src, sizeof src, "%s/traces/kineto/hta/trace_filter_sampled_rank-%d.json.gz", shared, r);
    snprintf(dst, sizeof dst, "%s/trace_filter_sampled_rank-%d.json.gz", dir, r);
    unlink(dst);
    ASSERT_OK(symlink(src, dst));
  }
  ASSERT_OK(run(dir, db, sizeof db));
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_ranks"), 2);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM dl_gpu_ranks WHERE world_size = 128"), 2);
  ASSERT_EQ(q_int(db, "SELECT group_concat(rank) = '0,1' FROM view_dl_ranks"), 1);
  ASSERT_EQ(q_int(db, "SELECT local_device FROM view_dl_ranks WHERE rank = 1"), 1);
  char name[256];
  q_text(db, "SELECT gpu_name FROM view_dl_ranks WHERE rank = 1", name, sizeof name);
  ASSERT_STR_EQ(name, "rank 1, GPU 1");
  /* 10 SendRecv kernels on each rank: matched in order */
  ASSERT_EQ(q_int(db, "SELECT instances FROM view_dl_collectives "
                      "WHERE kernel_name LIKE 'ncclKernel_SendRecv%'"), 10);
  ASSERT_EQ(q_int(db, "SELECT ranks FROM view_dl_collectives "
                      "WHERE kernel_name LIKE 'ncclKernel_SendRecv%'"), 2);
  return 0;
}

static int test_hta_nccl(void) {
  char src[1200], db[1200];
  snprintf(src, sizeof src, "%s/traces/kineto/hta/nccl_parser_config_nccl_data.json.gz", shared);
  ASSERT_OK(run(src, db, sizeof db));
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM dl_gpu_ranks"), 1);
  ASSERT_EQ(q_int(db, "SELECT rank FROM dl_gpu_ranks"), 0);
  ASSERT_EQ(q_int(db, "SELECT world_size FROM dl_gpu_ranks"), 2);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_ranks"), 1);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM gpus WHERE gpu_name LIKE 'rank 0, GPU %'"), 1);
  /* one rank: no straggler; its collectives with the sizes recorded on
   * their kernels, by hand from the trace: 15 all-reduce kernels of
   * "In msg nelems" Float elements (4 bytes), 306,684,384 bytes in all, in
   * 46,762,159 ns of kernel time (the one rank waits in no other); 3
   * broadcasts of 53,120 Float and 3 of 53 Long (8 bytes): 638,712 bytes in
   * 114,334 ns. "Group size" 2: the all-reduce's bus bandwidth is
   * 2(2-1)/2 = 1 times its algorithm bandwidth; an A100 SXM4's NVLink 3 is
   * 300 GB/s in one direction. */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM view_dl_collectives"), 2);
  static const char *ar =
      "FROM view_dl_collectives WHERE kernel_name LIKE 'ncclKernel_AllReduce_RING_LL%'";
  static const char *bc =
      "FROM view_dl_collectives WHERE kernel_name LIKE 'ncclKernel_Broadcast_RING_LL%'";
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT bytes %s", ar);
  ASSERT_EQ(q_int(db, sql), 306684384);
  snprintf(sql, sizeof sql, "SELECT transfer_time %s", ar);
  ASSERT_EQ(q_int(db, sql), 46762159);
  snprintf(sql, sizeof sql, "SELECT group_size %s", ar);
  ASSERT_EQ(q_int(db, sql), 2);
  snprintf(sql, sizeof sql, "SELECT alg_bandwidth %s", ar);
  ASSERT(near(q_real(db, sql), 306684384e9 / 46762159));
  snprintf(sql, sizeof sql, "SELECT bus_bandwidth %s", ar);
  ASSERT(near(q_real(db, sql), 306684384e9 / 46762159));
  snprintf(sql, sizeof sql, "SELECT link_bandwidth %s", ar);
  ASSERT(near(q_real(db, sql), 300e9));
  snprintf(sql, sizeof sql, "SELECT bytes %s", bc);
  ASSERT_EQ(q_int(db, sql), 638712);
  snprintf(sql, sizeof sql, "SELECT bus_bandwidth %s", bc);
  ASSERT(near(q_real(db, sql), 638712e9 / 114334));
  /* one rank's kernel time holds its waiting: no bandwidth finding */
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings "
                      "WHERE rule_id = 'collective_bandwidth_detector'"), 0);
  ASSERT_EQ(q_int(db, "SELECT count(*) FROM aggr_findings WHERE rule_id = 'straggler_detector'"),
            0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_ranks DLPROF SHARED_DIR WORK_DIR\n");
    return 2;
  }
  dlprof_bin = argv[1];
  shared = argv[2];
  static char wbuf[1024];
  snprintf(wbuf, sizeof wbuf, "%s/ranks-work", argv[3]);
  work = wbuf;
  mkdir(work, 0755);
  RUN(test_job_8);
  RUN(test_job_1024);
  RUN(test_exposed_no_straggler);
  RUN(test_bandwidth_at_link);
  RUN(test_merge_rank_dldbs);
  RUN(test_merge_rank_summaries);
  RUN(test_rank_hosts);
  RUN(test_rank_data_loading);
  RUN(test_rank_iter_avg);
  char hta[1100];
  snprintf(hta, sizeof hta, "%s/traces/kineto/hta", shared);
  struct stat sb;
  if (stat(hta, &sb) != 0) {
    fprintf(stderr, "SKIP real traces: %s not found\n", hta);
    if (test__failed) TEST_DONE();
    return 77;
  }
  RUN(test_hta_sampled_ranks);
  RUN(test_hta_nccl);
  TEST_DONE();
}
