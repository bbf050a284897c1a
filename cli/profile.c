/*
 * profile.c - `dlprof APP [ARGS...]` (profile.h).
 *
 * 1. Creates the live store `<out>_dldb.sqlite.live-<pid>` (db/dldb_write_live.h)
 *    with the system config and the time origin.
 * 2. Runs the application with the collector injected (environment below),
 *    ignoring SIGINT itself (the terminal's Ctrl-C reaches the application,
 *    whose collector flushes) and forwarding SIGTERM and SIGHUP.
 * 3. Moves the store onto `<out>_dldb.sqlite` (whatever the application's
 *    fate: a SIGKILL leaves every batch the collector committed) and reports
 *    what was recorded. cli/dlprof.c then aggregates it and writes the
 *    reports exactly as for `--database`.
 */
#include "profile.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dldb_write.h"
#include "dldb_write_live.h"
#include "errline.h"

static int is_file(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The collector library: $DLPROF_COLLECTOR_LIB, one relative to the dlprof
 * executable (found through /proc/self/exe: the installed layout,
 * <prefix>/bin/dlprof -> <prefix>/lib/dlprof/libdlprof_collector.so, then
 * bin/../lib, bin/../collector as in the build tree, bin/), or the build
 * tree's (a compile-time path). */
#ifndef DLPROF_COLLECTOR_RELDIR
#define DLPROF_COLLECTOR_RELDIR "../lib/dlprof" /* set by cli/CMakeLists.txt from the install dirs */
#endif
static int find_collector(char *out, size_t len) {
  const char *env = getenv("DLPROF_COLLECTOR_LIB");
  if (env && *env) {
    snprintf(out, len, "%s", env);
    return is_file(out) ? 0 : -1;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    static const char *const rel[] = {"/" DLPROF_COLLECTOR_RELDIR "/libdlprof_collector.so",
                                      "/../lib/libdlprof_collector.so",
                                      "/../collector/libdlprof_collector.so",
                                      "/libdlprof_collector.so"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
      char real[PATH_MAX];
      snprintf(out, len, "%s%s", exe, rel[i]);
      if (!is_file(out)) continue;
      if (realpath(out, real)) snprintf(out, len, "%s", real); /* no bin/.. in the paths */
      return 0;
    }
  }
#ifdef DLPROF_COLLECTOR_PATH
  snprintf(out, len, "%s", DLPROF_COLLECTOR_PATH);
  if (is_file(out)) return 0;
#endif
  return -1;
}

static void cpu_model(char *out, size_t len) {
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "re");
  snprintf(out, len, "unknown");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      snprintf(out, len, "%s", colon + 2);
      out[strcspn(out, "\n")] = '\0';
      break;
    }
  }
  fclose(f);
}

static int64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static volatile sig_atomic_t child_pid;

static void forward(int sig) {
  if (child_pid > 0) kill((pid_t)child_pid, sig);
}

/* Starts argv with the collector's environment; returns its status. */
static int run_app(const dlprof_profile_opts *o, char **argv, const char *lib,
                   const char *store, int *status) {
  char num[32];
  const char *nvtx = getenv("NVTX_INJECTION64_PATH"), *cuda = getenv("CUDA_INJECTION64_PATH");
  if (nvtx && *nvtx && strcmp(nvtx, lib) != 0)
    fprintf(stderr, "dlprof: NVTX_INJECTION64_PATH was %s; replaced by the collector\n", nvtx);
  if (cuda && *cuda && strcmp(cuda, lib) != 0)
    fprintf(stderr, "dlprof: CUDA_INJECTION64_PATH was %s; replaced by the collector\n", cuda);
  struct sigaction sa, old_int, old_term, old_hup;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGINT, &sa, &old_int);
  sa.sa_handler = forward;
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return dlprof_error("cannot start %s: %s", argv[0], strerror(errno));
  if (pid == 0) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    setenv("CUDA_INJECTION64_PATH", lib, 1);
    setenv("NVTX_INJECTION64_PATH", lib, 1);
    setenv("DLPROF_COLLECTOR_STORE", store, 1);
    snprintf(num, sizeof num, "%lld", (long long)o->delay_s * 1000);
    setenv("DLPROF_COLLECTOR_DELAY_MS", num, 1);
    snprintf(num, sizeof num, "%lld", (long long)o->duration_s * 1000);
    setenv("DLPROF_COLLECTOR_DURATION_MS", num, 1);
    /* the delay and duration count from the launch, not from the
     * collector's start-up (the first NVTX or CUDA call) */
    snprintf(num, sizeof num, "%lld", (long long)realtime_ns());
    setenv("DLPROF_COLLECTOR_START_NS", num, 1);
    if (o->profiler_range) setenv("DLPROF_COLLECTOR_RANGE", "cudaProfilerApi", 1);
    else unsetenv("DLPROF_COLLECTOR_RANGE");
    execvp(argv[0], argv);
    fprintf(stderr, "dlprof: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  child_pid = pid;
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  child_pid = 0;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  if (WIFEXITED(ws)) {
    *status = WEXITSTATUS(ws);
  } else if (WIFSIGNALED(ws)) {
    *status = 128 + WTERMSIG(ws);
    fprintf(stderr, "dlprof: %s was killed by signal %d (%s); keeping what was recorded\n",
            argv[0], WTERMSIG(ws), strsignal(WTERMSIG(ws)));
  }
  return 0;
}

int dlprof_profile_app(const dlprof_profile_opts *o, int argc, char **argv, char *dldb_path,
                       size_t len, int *app_status) {
  char lib[PATH_MAX], store[PATH_MAX + 64], lock[PATH_MAX + 80], err[1024], cpu[256];
  struct stat sb;
  int rc = 1, keep_store = 0;
  *app_status = 0;
  if (argc < 1) return dlprof_error("no application to profile");
  if (stat(o->output_path, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return dlprof_error("--output_path: %s is not a directory", o->output_path);
  if (find_collector(lib, sizeof lib))
    return dlprof_error("the collector library (libdlprof_collector.so) was not found: this "
                        "build has no CUPTI, or set DLPROF_COLLECTOR_LIB; record with Nsight "
                        "Systems and use --database=FILE instead");
  snprintf(dldb_path, len, "%s/%s_dldb.sqlite", o->output_path, o->profile_name);
  if (!o->force && access(dldb_path, F_OK) == 0)
    return dlprof_error("%s: exists; use --force=true to replace it", dldb_path);
  snprintf(store, sizeof store, "%s.live-%ld", dldb_path, (long)getpid());
  snprintf(lock, sizeof lock, "%s.lock", store);
  unlink(store);
  cpu_model(cpu, sizeof cpu);
  dldb_write_opts wo = {.producer = "dlprof " DL_VERSION " (collector)", .source = o->command,
                        .time_origin_ns = realtime_ns()};
  dldb_sysconfig sc = {.num_gpus = 0, .cpu_model = cpu, .framework = "", .cuda_version = "13",
                       .dlprof_version = DL_VERSION, .dlprof_build = "collector",
                       .profile_name = o->profile_name, .mode_string = o->mode,
                       .original_command = o->command};
  if (dldb_live_create(store, &wo, &sc, err, sizeof err) != DL_OK) return dlprof_error("%s", err);
  if (o->verbose) fprintf(stderr, "dlprof: profiling %s (collector %s)\n", argv[0], lib);
  if (run_app(o, argv, lib, store, app_status)) goto out;
  if (dldb_live_finish(store, dldb_path, o->force, err, sizeof err) != DL_OK) {
    dlprof_error("%s (the raw profile stays in %s)", err, store);
    keep_store = 1;
    goto out;
  }
  dldb_live_counts c;
  if (dldb_live_count(dldb_path, &c, err, sizeof err) != DL_OK) {
    dlprof_error("%s", err);
    goto out;
  }
  if (o->verbose)
    fprintf(stderr,
            "dlprof: recorded %lld NVTX ranges (%lld domains, %lld threads), %lld kernels, "
            "%lld memcpys, %lld memsets, %lld CUDA API calls on %lld GPUs\n",
            (long long)c.nvtx_ranges, (long long)c.domains, (long long)c.threads,
            (long long)c.kernels, (long long)c.memcpys, (long long)c.memsets,
            (long long)c.api_calls, (long long)c.gpus);
  if (c.kernels + c.memcpys + c.memsets == 0)
    fprintf(stderr, "dlprof: no GPU activity was recorded (no kernels, copies or memsets: "
                    "there is no usable GPU, or the application did no GPU work); the profile "
                    "holds CPU-side NVTX ranges only\n");
  if (c.nvtx_ranges == 0 && c.kernels == 0) {
    if (o->profiler_range)
      dlprof_error("nothing was recorded: with --nsys_profile_range=true only what happens between "
           "cudaProfilerStart and cudaProfilerStop is recorded, and the application made no "
           "such calls on a GPU");
    else if (o->delay_s || o->duration_s)
      dlprof_error("nothing was recorded in the window of --delay=%llds --duration=%llds",
           (long long)o->delay_s, (long long)o->duration_s);
    else
      dlprof_error("nothing was recorded: the application made no NVTX or CUDA calls");
    goto out;
  }
  rc = 0;
out:
  unlink(lock);
  if (rc && !keep_store) unlink(store); /* finish moved it when it succeeded */
  return rc;
}
