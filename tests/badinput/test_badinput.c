/*
 * test_badinput.c - the bad-input corpus (cases.txt) and safe outputs.
 *
 * Usage: test_badinput corpus  DLPROF DLPROFVIEWER SRCDIR WORKDIR
 *        test_badinput outputs DLPROF DLPROFVIEWER SRCDIR WORKDIR NSYS_GEN
 *
 * corpus: builds each input of cases.txt from its text fixture (SQL run
 * into SQLite, JSON with raw-byte and repeat markers, gzip, truncation,
 * garbling), runs the real dlprof (and, for dldb inputs, dlprofviewer) on
 * it and checks what cases.txt says: a failure is exit 1 with one line
 * naming the input and the problem and leaves nothing in the output folder;
 * a success leaves complete outputs and no temporary file, with the skipped
 * rows counted on stderr. A crash, a sanitizer report (ASan, UBSan, LSan in
 * the test build), a stray file or more than 1 GiB of memory fails the case.
 *
 * outputs: --force=true with an input that fails keeps the old outputs byte
 * for byte; a full disk (RLIMIT_FSIZE, with SIGXFSZ at its default so that
 * dlprof must ignore it itself) during an import, a new aggregation of an
 * existing dldb, and report writing gives one clear error line and leaves
 * the old outputs as they were, with no temporary or journal file; so does
 * SIGINT, SIGTERM or SIGHUP in the middle of an import (NSYS_GEN: the
 * bench/nsys_gen program, which makes an export big enough).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "test.h"

static const char *dlprof, *viewer, *srcdir, *workdir;
static char errtxt[1 << 16];
static long maxrss_kb; /* of the last run_argv child */

/* ---- Files ------------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  size_t k;
  while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) {
      char *nb = realloc(buf, (cap *= 2) + 1);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  if (!buf) return NULL;
  buf[n] = '\0';
  *len = n;
  return buf;
}

static int spit(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  size_t k = fwrite(data, 1, len, f);
  return (fclose(f) != 0) | (k != len);
}

/* Growing byte buffer. */
typedef struct buf { char *p; size_t n, cap; } buf;
static int put(buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->n + n + 1 > cap) cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) return 1;
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
  return 0;
}

/* Expands @@xHH@@ (a raw byte) and @@R:COUNT:TEXT@@ (TEXT COUNT times). */
static int expand_markers(const char *in, size_t len, buf *out) {
  for (size_t i = 0; i < len;) {
    const char *m = i + 2 < len ? strstr(in + i, "@@") : NULL;
    if (!m || m >= in + len) return put(out, in + i, len - i);
    if (put(out, in + i, (size_t)(m - (in + i)))) return 1;
    const char *end = strstr(m + 2, "@@");
    if (!end) return 1;
    if (m[2] == 'x') {
      char byte = (char)strtol(m + 3, NULL, 16);
      if (put(out, &byte, 1)) return 1;
    } else if (m[2] == 'R' && m[3] == ':') {
      char *colon;
      long count = strtol(m + 4, &colon, 10);
      if (*colon != ':') return 1;
      for (long k = 0; k < count; k++)
        if (put(out, colon + 1, (size_t)(end - (colon + 1)))) return 1;
    } else {
      return 1;
    }
    i = (size_t)(end + 2 - in);
  }
  return 0;
}

/* The SQL of a fixture with its "-- include: F" lines replaced by F. */
static int sql_text(const char *name, buf *out) {
  char path[4096];
  size_t len;
  snprintf(path, sizeof path, "%s/%s", srcdir, name);
  char *text = slurp(path, &len);
  if (!text) return 1;
  int rc = 0;
  for (char *line = text, *next; line && *line && !rc; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (strncmp(line, "-- include: ", 12) == 0) rc = sql_text(line + 12, out);
    else rc = put(out, line, strlen(line)) || put(out, "\n", 1);
  }
  free(text);
  return rc;
}

static int build_sql(const char *source, const char *dst) {
  buf sql = {0};
  unlink(dst);
  if (sql_text(source, &sql)) return 1;
  sqlite3 *db = NULL;
  int rc = sqlite3_open(dst, &db) != SQLITE_OK ||
           sqlite3_exec(db, "PRAGMA page_size=1024", NULL, NULL, NULL) != SQLITE_OK ||
           sqlite3_exec(db, sql.p, NULL, NULL, NULL) != SQLITE_OK;
  if (rc) fprintf(stderr, "%s: %s\n", source, sqlite3_errmsg(db));
  sqlite3_close(db);
  free(sql.p);
  return rc;
}

static int gzip_file(const char *path) {
  size_t len;
  char *data = slurp(path, &len), tmp[4200];
  if (!data) return 1;
  snprintf(tmp, sizeof tmp, "%s.gz-tmp", path);
  gzFile gz = gzopen(tmp, "wb9");
  int rc = !gz || (len && gzwrite(gz, data, (unsigned)len) != (int)len);
  if (gz && gzclose(gz) != Z_OK) rc = 1;
  free(data);
  return rc || rename(tmp, path) != 0;
}

/* Keeps the first pct% of the file, or overwrites 4 KiB at pct% of it. */
static int damage(const char *path, int pct, int garble) {
  size_t len;
  char *data = slurp(path, &len);
  if (!data) return 1;
  size_t at = len * (size_t)pct / 100;
  if (garble)
    for (size_t i = at; i < at + 4096 && i < len; i++) data[i] = (char)(0x5a ^ (i * 7));
  int rc = spit(path, data, garble ? len : at);
  free(data);
  return rc;
}

/* Builds the input of a case into path (a name under workdir). */
static int build_input(const char *source, const char *ops, char *path, size_t pathlen,
                       const char *casename) {
  const char *ext = strstr(source, ".json") ? (strstr(ops, "gz") ? ".json.gz" : ".json")
                                            : ".sqlite";
  snprintf(path, pathlen, "%s/in/%s%s", workdir, casename, ext);
  char src[4096];
  snprintf(src, sizeof src, "%s/%s", srcdir, source);
  if (strstr(ops, "sql")) {
    if (build_sql(source, path)) return 1;
  } else {
    size_t len;
    char *text = slurp(src, &len);
    if (!text) return 1;
    buf out = {0};
    int rc = strstr(source, ".json") ? expand_markers(text, len, &out) : put(&out, text, len);
    if (!rc) rc = spit(path, out.p ? out.p : "", out.n);
    free(text);
    free(out.p);
    if (rc) return 1;
  }
  if (strstr(ops, "gz") && gzip_file(path)) return 1;
  const char *t = strstr(ops, "trunc="), *g = strstr(ops, "garble=");
  if (t && damage(path, atoi(t + 6), 0)) return 1;
  if (g && damage(path, atoi(g + 7), 1)) return 1;
  return 0;
}

/* ---- Processes ---------------------------------------------------------------- */

/* Runs argv with stderr into errtxt (stdout discarded); fsize > 0 sets
 * RLIMIT_FSIZE (bytes) with SIGXFSZ at its default action. Returns the exit
 * status, or -1 when killed by a signal. */
static int run_argv(char *const argv[], long fsize) {
  char errfile[4200];
  snprintf(errfile, sizeof errfile, "%s/stderr.txt", workdir);
  pid_t pid = fork();
  if (pid < 0) return -2;
  if (pid == 0) {
    int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
    if (fd < 0 || nul < 0) _exit(126);
    dup2(fd, 2);
    dup2(nul, 1);
    if (fsize > 0) {
      struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
      signal(SIGXFSZ, SIG_DFL);
      if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
    }
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  struct rusage ru = {0};
  while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {}
  maxrss_kb = ru.ru_maxrss;
  size_t n;
  char *t = slurp(errfile, &n);
  snprintf(errtxt, sizeof errtxt, "%s", t ? t : "");
  free(t);
  if (WIFSIGNALED(st)) return -1;
  return WEXITSTATUS(st);
}

static int run_dlprof(const char *input, const char *out, const char *extra1, const char *extra2,
                      const char *extra3, long fsize) {
  char db[4200], op[4200];
  snprintf(db, sizeof db, "--database=%s", input);
  snprintf(op, sizeof op, "--output_path=%s", out);
  char *argv[] = {(char *)dlprof, db, op, "--reports=all", "--formats=csv,json",
                  (char *)extra1, (char *)extra2, (char *)extra3, NULL};
  return run_argv(argv, fsize);
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static int no_sanitizer_report(void) {
  ASSERT(strstr(errtxt, "Sanitizer") == NULL);
  ASSERT(strstr(errtxt, "runtime error") == NULL);
  return 0;
}

/* Files in dir whose names contain part (NULL: all). */
static int count_files(const char *dir, const char *part) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.' && (!part || strstr(e->d_name, part))) n++;
  if (d) closedir(d);
  return n;
}

static int fresh_dir(const char *dir) {
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  return system(cmd) != 0;
}

/* GET path from 127.0.0.1:port; returns the HTTP status or -1. */
static int http_get(int port, const char *path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  char req[1024], resp[64] = "";
  int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
  if (write(fd, req, (size_t)n) != n) {
    close(fd);
    return -1;
  }
  size_t got = 0;
  ssize_t k;
  while (got < sizeof resp - 1 && (k = read(fd, resp + got, sizeof resp - 1 - got)) > 0)
    got += (size_t)k;
  char drain[4096];
  while (read(fd, drain, sizeof drain) > 0) {}
  close(fd);
  resp[got] = '\0';
  int status;
  return sscanf(resp, "HTTP/1.%*d %d", &status) == 1 ? status : -1;
}

/* Starts dlprofviewer on input (port 0). A refusal: returns its exit status
 * with stderr in errtxt. Serving: asks a few endpoints (none may answer 5xx
 * or kill it), stops it with SIGTERM and returns its exit status. */
static int run_viewer(const char *input, int *served) {
  char errfile[4200];
  snprintf(errfile, sizeof errfile, "%s/viewer-stderr.txt", workdir);
  int out[2];
  *served = 0;
  if (pipe(out) != 0) return -2;
  pid_t pid = fork();
  if (pid < 0) return -2;
  if (pid == 0) {
    int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) _exit(126);
    dup2(fd, 2);
    dup2(out[1], 1);
    close(out[0]);
    execl(viewer, viewer, "--port", "0", input, (char *)NULL);
    _exit(127);
  }
  close(out[1]);
  char line[512] = "";
  size_t got = 0;
  struct pollfd pfd = {.fd = out[0], .events = POLLIN};
  while (got < sizeof line - 1 && !strchr(line, '\n') && poll(&pfd, 1, 20000) > 0) {
    ssize_t k = read(out[0], line + got, sizeof line - 1 - got);
    if (k <= 0) break;
    got += (size_t)k;
    line[got] = '\0';
  }
  int bad = 0;
  const char *colon = strrchr(line, ':');
  if (strstr(line, "running at") && colon) {
    int port = atoi(colon + 1);
    static const char *const paths[] = {
        "/api/v1/info", "/api/v1/aggregations", "/api/v1/domains", "/api/v1/system_config",
        "/api/v1/op_nodes?limit=5&sort=gpu_time&filter=a", "/api/v1/performance_summary",
        "/api/v1/op_nodes?aggr_id=9223372036854775807", "/api/v1/reports/summary.csv",
        "/api/v1/reports/detailed.json", "/", "/api/v1/op_nodes?flag&limit", NULL};
    *served = 1;
    for (int i = 0; paths[i]; i++) {
      int s = http_get(port, paths[i]);
      if (s < 200 || s >= 500) {
        fprintf(stderr, "viewer %s: GET %s -> %d\n", input, paths[i], s);
        bad = 1;
      }
    }
    kill(pid, SIGTERM);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  close(out[0]);
  size_t n;
  char *t = slurp(errfile, &n);
  snprintf(errtxt, sizeof errtxt, "%s", t ? t : "");
  free(t);
  if (bad) return -3;
  if (WIFSIGNALED(st)) return -1;
  return WEXITSTATUS(st);
}

/* ---- The corpus ------------------------------------------------------------- */

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

/* One dlprof run on input: checks exit, stderr and the output folder. */
static int check_dlprof(const char *name, const char *input, int expect_ok, const char *words) {
  char out[4200];
  snprintf(out, sizeof out, "%s/out/%s", workdir, name);
  ASSERT_OK(fresh_dir(out));
  const char *verbosity = expect_ok ? "--verbosity=normal" : "--verbosity=quiet";
  int st = run_dlprof(input, out, verbosity, NULL, NULL, 0);
  if (no_sanitizer_report() || st != (expect_ok ? 0 : 1)) {
    fprintf(stderr, "%s: dlprof exit %d, expected %d; stderr:\n%.4000s\n", name, st,
            expect_ok ? 0 : 1, errtxt);
    return 1;
  }
  ASSERT_EQ(count_files(out, ".tmp"), 0);
  ASSERT_EQ(count_files(out, "-journal"), 0);
  /* memory stays bounded whatever the input says (ASan's overhead included) */
  if (maxrss_kb > 1024 * 1024) {
    fprintf(stderr, "%s: dlprof used %ld MiB\n", name, maxrss_kb / 1024);
    return 1;
  }
  if (expect_ok) {
    char db[4300];
    snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", out);
    ASSERT_EQ(access(db, F_OK), 0);
    /* the dldb and 8 reports in 2 formats per NVTX domain aggregated (every
     * domain with ranges, at most 8) */
    int files = count_files(out, NULL);
    ASSERT(files >= 17 && files <= 1 + 16 * 8 && (files - 1) % 16 == 0);
  } else {
    ASSERT_EQ(count_files(out, NULL), 0);
    if (lines(errtxt) != 1) {
      fprintf(stderr, "%s: expected one line, got:\n%.4000s\n", name, errtxt);
      return 1;
    }
    ASSERT(strncmp(errtxt, "dlprof: ", 8) == 0);
    const char *base = strrchr(input, '/');
    ASSERT_CONTAINS(errtxt, base ? base + 1 : input);
  }
  if (*words) ASSERT_CONTAINS(errtxt, words);
  return 0;
}

/* dlprofviewer on a dldb input, and dlprof writing its reports. */
static int check_dldb(const char *name, const char *input, int expect_ok, const char *words) {
  int served, st = run_viewer(input, &served);
  if (no_sanitizer_report() || st != (expect_ok ? 0 : 1) || served != expect_ok) {
    fprintf(stderr, "%s: dlprofviewer exit %d (served %d); stderr:\n%.4000s\n", name, st, served,
            errtxt);
    return 1;
  }
  if (!expect_ok) {
    if (lines(errtxt) != 1) {
      fprintf(stderr, "%s: expected one line, got:\n%.4000s\n", name, errtxt);
      return 1;
    }
    const char *base = strrchr(input, '/');
    ASSERT_CONTAINS(errtxt, base ? base + 1 : input);
    if (*words) ASSERT_CONTAINS(errtxt, words);
  }
  /* dlprof --database=DLDB writes the reports of a dldb it did not write */
  char out[4200];
  snprintf(out, sizeof out, "%s/out/%s", workdir, name);
  ASSERT_OK(fresh_dir(out));
  st = run_dlprof(input, out, "--verbosity=quiet", NULL, NULL, 0);
  ASSERT_OK(no_sanitizer_report());
  ASSERT_EQ(count_files(out, ".tmp"), 0);
  if (st == 1) {
    ASSERT_EQ(lines(errtxt), 1);
    ASSERT_EQ(count_files(out, NULL), 0);
  } else {
    ASSERT_EQ(st, 0);
    ASSERT_EQ(expect_ok, 1);
  }
  return 0;
}

static int test_corpus(void) {
  char path[4200], in[4200];
  snprintf(path, sizeof path, "%s/cases.txt", srcdir);
  snprintf(in, sizeof in, "%s/in", workdir);
  ASSERT_OK(fresh_dir(in));
  FILE *f = fopen(path, "r");
  ASSERT_NOT_NULL(f);
  char line[1024];
  int n = 0, failed = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    char *field[5] = {0}, *save = NULL;
    int k = 0;
    for (char *t = strtok_r(line, "|", &save); t && k < 5; t = strtok_r(NULL, "|", &save))
      field[k++] = trim(t);
    if (k < 4) {
      fprintf(stderr, "cases.txt: bad line\n");
      failed++;
      continue;
    }
    const char *name = field[0], *source = field[1], *ops = field[2], *what = field[3];
    const char *words = k > 4 ? field[4] : "";
    int is_viewer = strncmp(what, "viewer:", 7) == 0, ok = strstr(what, ":ok") != NULL;
    n++;
    if (build_input(source, ops, in, sizeof in, name)) {
      fprintf(stderr, "FAIL %s: cannot build the input from %s\n", name, source);
      failed++;
      continue;
    }
    int rc = is_viewer ? check_dldb(name, in, ok, words) : check_dlprof(name, in, ok, words);
    fprintf(stderr, "%s %s\n", rc ? "FAIL" : "ok  ", name);
    failed += rc != 0;
  }
  fclose(f);
  fprintf(stderr, "%d cases, %d failed\n", n, failed);
  ASSERT(n >= 30);
  ASSERT_EQ(failed, 0);
  return 0;
}

/* ---- Safe outputs ----------------------------------------------------------- */

/* 1 if the two files have the same bytes. */
static int same_bytes(const char *a, const char *b) {
  size_t na, nb;
  char *x = slurp(a, &na), *y = slurp(b, &nb);
  int same = x && y && na == nb && memcmp(x, y, na) == 0;
  free(x);
  free(y);
  return same;
}

/* Copies every file of dir into dir.keep (replacing it). */
static int snapshot(const char *dir) {
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s.keep' && cp -a '%s' '%s.keep'", dir, dir, dir);
  return system(cmd) != 0;
}

/* dir holds exactly the files of dir.keep, byte for byte. */
static int unchanged(const char *dir) {
  char keep[4200], a[4600], b[4600];
  snprintf(keep, sizeof keep, "%s.keep", dir);
  ASSERT_EQ(count_files(dir, NULL), count_files(keep, NULL));
  DIR *d = opendir(keep);
  ASSERT_NOT_NULL(d);
  struct dirent *e;
  int bad = 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(a, sizeof a, "%s/%s", dir, e->d_name);
    snprintf(b, sizeof b, "%s/%s", keep, e->d_name);
    if (!same_bytes(a, b)) {
      fprintf(stderr, "%s changed\n", a);
      bad = 1;
    }
  }
  closedir(d);
  return bad;
}

static const char *good_input(void) {
  static char in[4200];
  snprintf(in, sizeof in, "%s/in/good.sqlite", workdir);
  return build_sql("nsys_nvtx_cycles.sql", in) ? NULL : in;
}

/* A failing import with --force=true keeps every old output. */
static int test_force_keeps_old(void) {
  const char *good = good_input();
  ASSERT_NOT_NULL(good);
  char out[4200], bad[4200];
  snprintf(out, sizeof out, "%s/out/force", workdir);
  ASSERT_OK(fresh_dir(out));
  ASSERT_EQ(run_dlprof(good, out, "--verbosity=quiet", NULL, NULL, 0), 0);
  ASSERT_OK(snapshot(out));
  ASSERT_EQ(run_dlprof(good, out, "--verbosity=quiet", NULL, NULL, 0), 1); /* exists, no --force */
  ASSERT_CONTAINS(errtxt, "--force=true");
  ASSERT_OK(unchanged(out));
  snprintf(bad, sizeof bad, "%s/in/bad.sqlite", workdir);
  ASSERT_OK(build_sql("nsys_missing_column.sql", bad));
  ASSERT_EQ(run_dlprof(bad, out, "--force=true", "--verbosity=quiet", NULL, 0), 1);
  ASSERT_EQ(lines(errtxt), 1);
  ASSERT_OK(unchanged(out));
  /* and a good one replaces them all */
  ASSERT_EQ(run_dlprof(good, out, "--force=true", "--verbosity=quiet", NULL, 0), 0);
  ASSERT_EQ(count_files(out, NULL), 17);
  ASSERT_EQ(count_files(out, ".tmp"), 0);
  return 0;
}

static off_t file_size(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 ? sb.st_size : -1;
}

/* The disk fills up while the dldb is written: one line, old outputs kept. */
static int test_full_disk_import(void) {
  const char *good = good_input();
  ASSERT_NOT_NULL(good);
  char out[4200], db[4300];
  snprintf(out, sizeof out, "%s/out/full", workdir);
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", out);
  ASSERT_OK(fresh_dir(out));
  ASSERT_EQ(run_dlprof(good, out, "--verbosity=quiet", NULL, NULL, 0), 0);
  ASSERT_OK(snapshot(out));
  off_t size = file_size(db);
  ASSERT(size > 65536);
  /* limits inside the schema, then every sixteenth of the file (the raw
   * rows, each aggregation table, the timeline), and its last pages */
  long limits[20];
  size_t nl = 0;
  limits[nl++] = 4096;
  for (int k = 1; k < 16; k++) limits[nl++] = (long)size * k / 16;
  limits[nl++] = (long)size - 8192;
  for (size_t i = 0; i < nl; i++) {
    int st = run_dlprof(good, out, "--force=true", "--verbosity=quiet", NULL, limits[i]);
    ASSERT_OK(no_sanitizer_report());
    if (st != 1 || lines(errtxt) != 1) {
      fprintf(stderr, "limit %ld: exit %d: %s\n", limits[i], st, errtxt);
      return 1;
    }
    ASSERT_CONTAINS(errtxt, "dlprof_dldb.sqlite");
    ASSERT_CONTAINS(errtxt, "fail");
    ASSERT_OK(unchanged(out));
  }
  return 0;
}

/* The disk fills up while a new aggregation is added to an existing dldb. */
static int test_full_disk_reaggregate(void) {
  const char *good = good_input();
  ASSERT_NOT_NULL(good);
  char out[4200], db[4300];
  snprintf(out, sizeof out, "%s/out/full_again", workdir);
  snprintf(db, sizeof db, "%s/dlprof_dldb.sqlite", out);
  ASSERT_OK(fresh_dir(out));
  ASSERT_EQ(run_dlprof(good, out, "--verbosity=quiet", NULL, NULL, 0), 0);
  ASSERT_OK(snapshot(out));
  off_t size = file_size(db);
  /* the copy of the file fails at its start, middle and end */
  const long limits[] = {4096, (long)size / 2, (long)size - 1024};
  for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
    int st = run_dlprof(db, out, "--force=true", "--key_op=ProfilerStep#1", "--verbosity=quiet",
                        limits[i]);
    ASSERT_OK(no_sanitizer_report());
    if (st != 1 || lines(errtxt) != 1 || strstr(errtxt, "dlprof_dldb.sqlite") == NULL) {
      fprintf(stderr, "limit %ld: exit %d: %s\n", limits[i], st, errtxt);
      return 1;
    }
    ASSERT_OK(unchanged(out));
  }
  /* without a limit it works, and the file then has a second aggregation */
  ASSERT_EQ(run_dlprof(db, out, "--force=true", "--key_op=ProfilerStep#1", NULL, 0), 0);
  ASSERT_EQ(count_files(out, NULL), 17);
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL;
  ASSERT_OK(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL));
  ASSERT_OK(sqlite3_prepare_v2(h, "SELECT count(*) FROM view_aggregations", -1, &q, NULL));
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  ASSERT_EQ(sqlite3_column_int(q, 0), 2);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return 0;
}

/* The disk fills up while reports are written (a small dldb of NVIDIA's,
 * of which only the reports are made): old reports kept, no temporary file.
 * Reports are all or nothing: one that fails (a view the file lacks) leaves
 * none of the others behind either. */
static int test_full_disk_reports(void) {
  char in[4200], out[4200];
  snprintf(in, sizeof in, "%s/in/nvidia.sqlite", workdir);
  ASSERT_OK(build_sql("dldb_base.inc.sql", in));
  snprintf(out, sizeof out, "%s/out/full_reports", workdir);
  ASSERT_OK(fresh_dir(out));
  ASSERT_EQ(run_dlprof(in, out, "--reports=summary,detail", "--verbosity=quiet", NULL, 0), 0);
  ASSERT_EQ(count_files(out, NULL), 4);
  ASSERT_OK(snapshot(out));
  int st =
      run_dlprof(in, out, "--reports=summary,detail", "--force=true", "--verbosity=quiet", 300);
  ASSERT_OK(no_sanitizer_report());
  if (st != 1 || lines(errtxt) != 1) {
    fprintf(stderr, "exit %d: %s\n", st, errtxt);
    return 1;
  }
  ASSERT_CONTAINS(errtxt, "write failed: File too large");
  ASSERT_OK(unchanged(out));
  /* all eight: the iteration report needs a view this file lacks */
  ASSERT_EQ(run_dlprof(in, out, "--force=true", "--verbosity=quiet", NULL, 0), 1);
  ASSERT_EQ(lines(errtxt), 1);
  ASSERT_CONTAINS(errtxt, "no view_");
  ASSERT_OK(unchanged(out));
  return 0;
}

/* Ctrl-C (SIGINT) and kill (SIGTERM, SIGHUP) while dlprof --force=true
 * writes a new dldb over old outputs: exit 128 + signal with one line, no
 * temporary file left, the old outputs byte for byte as they were. The
 * input is an export of nsys_gen (bench/nsys_gen.c) big enough that the
 * import is still running when the signal comes: dlprof is signalled as
 * soon as its temporary dldb appears. */
static const char *nsys_gen;

static int test_interrupted(void) {
  ASSERT_NOT_NULL(nsys_gen);
  const char *good = good_input();
  ASSERT_NOT_NULL(good);
  char big[4200], out[4200], db[4300], op[4300], errfile[4300];
  snprintf(big, sizeof big, "%s/in/big.sqlite", workdir);
  char *gen[] = {(char *)nsys_gen, "--kernels", "300000", big, NULL};
  ASSERT_EQ(run_argv(gen, 0), 0);
  snprintf(out, sizeof out, "%s/out/interrupted", workdir);
  ASSERT_OK(fresh_dir(out));
  ASSERT_EQ(run_dlprof(good, out, "--verbosity=quiet", NULL, NULL, 0), 0);
  ASSERT_OK(snapshot(out));
  snprintf(db, sizeof db, "--database=%s", big);
  snprintf(op, sizeof op, "--output_path=%s", out);
  snprintf(errfile, sizeof errfile, "%s/stderr.txt", workdir);
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
      int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0) _exit(126);
      dup2(fd, 2);
      execl(dlprof, dlprof, db, op, "--force=true", "--reports=all", "--verbosity=quiet", (char *)NULL);
      _exit(127);
    }
    int waited = 0;
    while (count_files(out, ".tmp-") == 0 && waited < 120000 && waitpid(pid, NULL, WNOHANG) == 0) {
      usleep(5000);
      waited += 5;
    }
    ASSERT(count_files(out, ".tmp-") > 0); /* still writing */
    ASSERT_OK(kill(pid, sigs[i]));
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    size_t n;
    char *t = slurp(errfile, &n);
    snprintf(errtxt, sizeof errtxt, "%s", t ? t : "");
    free(t);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 128 + sigs[i]) {
      fprintf(stderr, "signal %d: status %#x: %s\n", sigs[i], st, errtxt);
      return 1;
    }
    if (lines(errtxt) != 1) {
      fprintf(stderr, "signal %d: %d lines on stderr, not 1: %s\n", sigs[i], lines(errtxt), errtxt);
      return 1;
    }
    ASSERT_CONTAINS(errtxt, "dlprof: stopped by ");
    ASSERT_CONTAINS(errtxt, "existing outputs left as they were");
    ASSERT_OK(no_sanitizer_report());
    ASSERT_EQ(count_files(out, ".tmp"), 0);
    ASSERT_OK(unchanged(out));
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: test_badinput corpus|outputs DLPROF DLPROFVIEWER SRCDIR WORKDIR\n");
    return 2;
  }
  dlprof = argv[2];
  viewer = argv[3];
  srcdir = argv[4];
  workdir = argv[5];
  nsys_gen = argc > 6 ? argv[6] : NULL;
  if (access(dlprof, X_OK) != 0 || access(viewer, X_OK) != 0)
    SKIP("dlprof or dlprofviewer is not built");
  signal(SIGPIPE, SIG_IGN);
  char in[4200];
  snprintf(in, sizeof in, "%s/in", workdir);
  if (fresh_dir(in)) return 1;
  if (strcmp(argv[1], "corpus") == 0) {
    RUN(test_corpus);
  } else {
    RUN(test_force_keeps_old);
    RUN(test_full_disk_import);
    RUN(test_full_disk_reaggregate);
    RUN(test_full_disk_reports);
    RUN(test_interrupted);
  }
  TEST_DONE();
}
