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
#include <fcntl.h>
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
#include "hugepages.h"
#include "pttraces.h"

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

/* The child: the collector's environment, then exec. An exec failure's
 * errno goes up the close-on-exec pipe fd. */
static void exec_app(const dlprof_profile_opts *o, char **argv, const char *lib,
                     const char *store, int fd) {
  char num[32];
  dlprof_hugepages_restore_env();
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
  if (o->verbose >= 2) setenv("DLPROF_COLLECTOR_VERBOSE", "1", 1);
  execvp(argv[0], argv);
  int e = errno;
  if (write(fd, &e, sizeof e) != (ssize_t)sizeof e) {
  }
  _exit(127);
}

/* Starts argv with the collector's environment and waits for it: 0 with
 * its status (*status, *signaled), or 1 after one error line when it could
 * not be started. */
static int run_app(const dlprof_profile_opts *o, char **argv, const char *lib,
                   const char *store, int *status, int *signaled) {
  const char *nvtx = getenv("NVTX_INJECTION64_PATH"), *cuda = getenv("CUDA_INJECTION64_PATH");
  int fds[2], exec_errno = 0;
  if (nvtx && *nvtx && strcmp(nvtx, lib) != 0)
    fprintf(stderr, "dlprof: NVTX_INJECTION64_PATH was %s; replaced by the collector\n", nvtx);
  if (cuda && *cuda && strcmp(cuda, lib) != 0)
    fprintf(stderr, "dlprof: CUDA_INJECTION64_PATH was %s; replaced by the collector\n", cuda);
  if (pipe2(fds, O_CLOEXEC) != 0)
    return dlprof_error("cannot start %s: %s", argv[0], strerror(errno));
  struct sigaction sa, old_int, old_term, old_hup;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGINT, &sa, &old_int);
  sa.sa_handler = forward;
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    exec_app(o, argv, lib, store, fds[1]);
  }
  int fork_errno = errno;
  close(fds[1]);
  if (pid > 0) {
    child_pid = pid;
    ssize_t n;
    while ((n = read(fds[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
    if (n != (ssize_t)sizeof exec_errno) exec_errno = 0; /* closed by the exec: it runs */
  }
  close(fds[0]);
  int ws = 0;
  while (pid > 0 && waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  child_pid = 0;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  if (pid < 0) return dlprof_error("cannot start %s: %s", argv[0], strerror(fork_errno));
  if (exec_errno) {
    *status = 127;
    return dlprof_error("cannot run %s: %s", argv[0], strerror(exec_errno));
  }
  *signaled = WIFSIGNALED(ws);
  if (WIFEXITED(ws)) {
    *status = WEXITSTATUS(ws);
  } else if (WIFSIGNALED(ws)) {
    *status = 128 + WTERMSIG(ws);
    fprintf(stderr, "dlprof: %s was killed by signal %d (%s); keeping what was recorded\n",
            argv[0], WTERMSIG(ws), strsignal(WTERMSIG(ws)));
  }
  return 0;
}

/* Why nothing was recorded, by the options that narrow the recording. */
static void nothing_reason(const dlprof_profile_opts *o, const char *app, char *out, size_t len) {
  if (o->profiler_range)
    snprintf(out, len, "with --nsys_profile_range=true only what happens between "
             "cudaProfilerStart and cudaProfilerStop is recorded, and %s made no such calls on "
             "a GPU", app);
  else if (o->delay_s || o->duration_s)
    snprintf(out, len, "%s made no NVTX ranges or CUDA calls in the window of --delay=%llds "
             "--duration=%llds", app, (long long)o->delay_s, (long long)o->duration_s);
  else
    snprintf(out, len, "%s made no NVTX ranges and no CUDA calls", app);
}

/* The one line for an empty recording: why, the application's exit, where
 * its own PyTorch profiler traces are. */
static void say_nothing(const dlprof_profile_opts *o, const char *app, int status, int signaled,
                        const dlprof_pttraces *pt) {
  char why[512], exit_note[96] = "", traces[8400] = "";
  nothing_reason(o, app, why, sizeof why);
  if (status && !signaled) snprintf(exit_note, sizeof exit_note, "; %s exited with status %d",
                                    app, status);
  if (pt->files)
    snprintf(traces, sizeof traces, "; the app wrote PyTorch profiler traces in %s: import them "
             "with dlprof --database=%s", pt->where, pt->where);
  fprintf(stderr, "dlprof: nothing was recorded: %s, so no dldb was written%s%s\n", why,
          exit_note, traces);
}

/* What was recorded, on stderr (verbose), and what it lacks. */
static void say_recorded(const dlprof_profile_opts *o, const dldb_live_counts *c,
                         const dlprof_pttraces *pt) {
  if (o->verbose)
    fprintf(stderr,
            "dlprof: recorded %lld NVTX ranges (%lld domains, %lld threads), %lld kernels, "
            "%lld memcpys, %lld memsets, %lld CUDA API calls on %lld GPUs\n",
            (long long)c->nvtx_ranges, (long long)c->domains, (long long)c->threads,
            (long long)c->kernels, (long long)c->memcpys, (long long)c->memsets,
            (long long)c->api_calls, (long long)c->gpus);
  if (c->kernels + c->memcpys + c->memsets == 0)
    fprintf(stderr, "dlprof: no GPU activity was recorded (no kernels, copies or memsets: "
                    "there is no usable GPU, or the application did no GPU work); the profile "
                    "holds CPU-side NVTX ranges only\n");
  if (pt->files)
    fprintf(stderr, "dlprof: the app also wrote PyTorch profiler traces in %s: import them with "
                    "dlprof --database=%s\n", pt->where, pt->where);
}

/* The live store's files (SQLite's write-ahead log beside it). */
static const char *const store_files[] = {"", "-wal", "-shm"};

static int empty(const dldb_live_counts *c) {
  return c->nvtx_ranges + c->kernels + c->memcpys + c->memsets == 0;
}

int dlprof_profile_app(const dlprof_profile_opts *o, int argc, char **argv, char *dldb_path,
                       size_t len, int *app_status) {
  char lib[PATH_MAX], store[PATH_MAX + 64], lock[PATH_MAX + 80], err[1024], cpu[256];
  struct stat sb;
  int rc = DLPROF_PROFILE_FAILED, keep_store = 0, signaled = 0;
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
  /* what the recording finds: no GPU and no CUDA version until the collector sees them */
  dldb_sysconfig sc = {.num_gpus = 0, .cpu_model = cpu, .framework = "", .cuda_version = "",
                       .dlprof_version = DL_VERSION, .dlprof_build = "collector",
                       .profile_name = o->profile_name, .mode_string = o->mode,
                       .original_command = o->command};
  if (dldb_live_create(store, &wo, &sc, err, sizeof err) != DL_OK) return dlprof_error("%s", err);
  if (o->verbose) fprintf(stderr, "dlprof: profiling %s (collector %s)\n", argv[0], lib);
  struct timespec started;
  clock_gettime(CLOCK_REALTIME, &started);
  if (run_app(o, argv, lib, store, app_status, &signaled)) goto out;
  dlprof_pttraces pt;
  dlprof_pttraces_find(".", started, &pt);
  dldb_live_counts c;
  /* an empty recording leaves no dldb (nor replaces one with --force=true) */
  if (dldb_live_count(store, &c, err, sizeof err) == DL_OK && empty(&c)) {
    say_nothing(o, argv[0], *app_status, signaled, &pt);
    rc = DLPROF_PROFILE_EMPTY;
    goto out;
  }
  if (dldb_live_finish(store, dldb_path, o->force, err, sizeof err) != DL_OK) {
    dlprof_error("%s (the raw profile stays in %s)", err, store);
    keep_store = 1;
    goto out;
  }
  if (dldb_live_count(dldb_path, &c, err, sizeof err) != DL_OK) {
    dlprof_error("%s", err);
    goto out;
  }
  if (empty(&c)) { /* the store could not be counted before the move */
    say_nothing(o, argv[0], *app_status, signaled, &pt);
    unlink(dldb_path);
    rc = DLPROF_PROFILE_EMPTY;
    goto out;
  }
  say_recorded(o, &c, &pt);
  if (*app_status && !signaled)
    fprintf(stderr, "dlprof: %s exited with status %d; analysing what was recorded (dlprof "
                    "exits with %d)\n", argv[0], *app_status, *app_status);
  rc = DLPROF_PROFILE_OK;
out:
  unlink(lock);
  if (rc != DLPROF_PROFILE_OK && !keep_store) /* finish moved it when it succeeded */
    for (size_t i = 0; i < sizeof store_files / sizeof *store_files; i++) {
      snprintf(lock, sizeof lock, "%s%s", store, store_files[i]);
      unlink(lock);
    }
  return rc;
}
