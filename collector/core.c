/*
 * core.c - process-wide collector state (core.h).
 *
 * Signal handling: handlers are chained. When the previous disposition was
 * a function (Python's SIGINT handler, ASan's SIGSEGV handler), ours asks
 * the writer for a commit and calls it: the application decides what
 * happens. When it was SIG_DFL (the process is about to die), ours asks
 * the writer thread for its final round, waits for its acknowledgement on
 * a pipe for at most FINAL_WAIT_MS (poll() and write() are
 * async-signal-safe), then restores SIG_DFL and re-raises the signal. The
 * wait is long enough for a loaded machine to commit what was recorded,
 * and bounded, so that a stuck writer never keeps the process alive.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

void (*_Atomic dlc_extcorr_push)(uint64_t id);
void (*_Atomic dlc_extcorr_pop)(void);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t shutdown_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int active, notice_printed, shut_down;
static atomic_llong clock_offset, next_id;
static atomic_llong window_from, window_to;
static atomic_int range_mode, range_open;
static int64_t my_pid;
static int lock_fd = -1, ack_rd = -1, ack_wr = -1;
static dlc_writer *writer;
static dlc_strtab *names;
static void (*_Atomic nvtx_drain)(void *ctx, dlc_writer *w);
static void (*_Atomic cupti_final)(void);

#define FINAL_WAIT_MS 10000 /* the final round's acknowledgement, on a fatal signal */

static const int caught[] = {SIGINT, SIGTERM, SIGABRT, SIGSEGV, SIGBUS};
static struct sigaction previous[NSIG];

/* ---- Notices ------------------------------------------------------------ */

static void vprint(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void vprint(const char *fmt, va_list ap) {
  char line[512];
  int n = snprintf(line, sizeof line, "dlprof: ");
  vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  size_t len = strlen(line);
  line[len++] = '\n';
  ssize_t w = write(STDERR_FILENO, line, len);
  (void)w;
}

void dlc_core_fail(const char *fmt, ...) {
  atomic_store(&active, 0);
  if (atomic_exchange(&notice_printed, 1)) return;
  va_list ap;
  va_start(ap, fmt);
  vprint(fmt, ap);
  va_end(ap);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint(fmt, ap);
  va_end(ap);
}

void dlc_core_note(atomic_int *once, const char *fmt, ...) {
  if (atomic_exchange(once, 1)) return;
  va_list ap;
  va_start(ap, fmt);
  vprint(fmt, ap);
  va_end(ap);
}

void dlc_core_debug(const char *fmt, ...) {
  const char *v = getenv("DLPROF_COLLECTOR_VERBOSE");
  if (!v || strcmp(v, "1") != 0) return;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  say("collector: %s", msg);
}

/* ---- Clock, window, ids --------------------------------------------------- */

int64_t dlc_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec +
         atomic_load_explicit(&clock_offset, memory_order_relaxed);
}

void dlc_core_set_clock_offset(int64_t ns) { atomic_store(&clock_offset, ns); }

int dlc_core_active(void) { return atomic_load_explicit(&active, memory_order_relaxed); }

int dlc_core_recording(int64_t t) {
  if (!atomic_load_explicit(&active, memory_order_relaxed)) return 0;
  if (atomic_load_explicit(&range_mode, memory_order_relaxed) &&
      !atomic_load_explicit(&range_open, memory_order_relaxed))
    return 0;
  return t >= atomic_load_explicit(&window_from, memory_order_relaxed) &&
         t <= atomic_load_explicit(&window_to, memory_order_relaxed);
}

void dlc_core_window(int64_t *from, int64_t *to) {
  *from = atomic_load(&window_from);
  *to = atomic_load(&window_to);
}

int dlc_core_range_mode(void) { return atomic_load(&range_mode); }

void dlc_core_profiler_api(int start) {
  atomic_store(&range_open, start);
  if (!start) dlc_core_flush();
}

uint64_t dlc_core_next_id(void) {
  return (uint64_t)atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
}

int64_t dlc_core_pid(void) { return my_pid; }
dlc_writer *dlc_core_writer(void) { return dlc_core_active() ? writer : NULL; }
dlc_strtab *dlc_core_names(void) { return names; }

void dlc_core_set_nvtx_source(void (*drain)(void *ctx, dlc_writer *w)) {
  atomic_store(&nvtx_drain, drain);
}
void dlc_core_set_cupti_final(void (*flush)(void)) { atomic_store(&cupti_final, flush); }

void dlc_core_flush(void) {
  if (writer && dlc_core_active()) dlc_writer_signal(writer, 0, -1);
}

/* ---- Writer callbacks -------------------------------------------------- */

static void source(void *ctx, dlc_writer *w) {
  (void)ctx;
  void (*drain)(void *, dlc_writer *) = atomic_load(&nvtx_drain);
  if (drain) drain(NULL, w);
}

static void before_final(void *ctx) {
  (void)ctx;
  void (*flush)(void) = atomic_load(&cupti_final);
  if (flush) flush();
}

static void on_error(void *ctx, const char *msg) {
  (void)ctx;
  dlc_core_fail("recording stopped: %s; the application goes on without the profiler", msg);
}

/* ---- Signals, fork, exit --------------------------------------------------- */

static void on_signal(int sig, siginfo_t *si, void *uc) {
  int saved = errno;
  const struct sigaction *p = &previous[sig];
  if (getpid() != my_pid || !writer) goto chain;
  if ((p->sa_flags & SA_SIGINFO) || (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN)) {
    dlc_writer_signal(writer, 0, -1);
    goto chain;
  }
  if (p->sa_handler == SIG_IGN) goto out;
  if (!atomic_exchange(&shut_down, 1)) {
    struct pollfd pfd = {.fd = ack_rd, .events = POLLIN};
    dlc_writer_signal(writer, 1, ack_wr);
    poll(&pfd, 1, FINAL_WAIT_MS);
  }
chain:
  if (p->sa_flags & SA_SIGINFO) {
    p->sa_sigaction(sig, si, uc);
  } else if (p->sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when this handler returns */
  } else if (p->sa_handler != SIG_IGN) {
    p->sa_handler(sig);
  }
out:
  errno = saved;
}

static void install_signals(void) {
  for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(caught[i], &sa, &previous[caught[i]]);
  }
}

static void in_child(void) { atomic_store(&active, 0); }

static void at_exit(void) { dlc_core_shutdown(); }

static int64_t env_ms(const char *name) {
  const char *v = getenv(name);
  char *end;
  if (!v || !*v) return 0;
  long long n = strtoll(v, &end, 10);
  return *end || n < 0 ? -1 : (int64_t)n;
}

static void init(void) {
  char err[512], lock_path[4200];
  const char *store = getenv("DLPROF_COLLECTOR_STORE");
  my_pid = getpid();
  if (!store || !*store) {
    dlc_core_fail("DLPROF_COLLECTOR_STORE is not set: run the application through dlprof; "
                  "not recording");
    return;
  }
  int64_t delay = env_ms("DLPROF_COLLECTOR_DELAY_MS"), dur = env_ms("DLPROF_COLLECTOR_DURATION_MS");
  if (delay < 0 || dur < 0) {
    dlc_core_fail("bad DLPROF_COLLECTOR_DELAY_MS or DLPROF_COLLECTOR_DURATION_MS; not recording");
    return;
  }
  snprintf(lock_path, sizeof lock_path, "%s.lock", store);
  lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    dlc_core_fail("process %lld is not recorded: another process of this run holds the "
                  "profile (%s)",
                  (long long)my_pid, lock_fd < 0 ? strerror(errno) : "one process per profile");
    if (lock_fd >= 0) close(lock_fd);
    lock_fd = -1;
    return;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0 || !(names = dlc_strtab_new())) {
    dlc_core_fail("collector start-up failed: %s; not recording", strerror(errno));
    return;
  }
  ack_rd = fds[0];
  ack_wr = fds[1];
  uint64_t first = 1;
  dlc_writer_opts wo = {.pid = my_pid, .source = source, .before_final = before_final,
                        .on_error = on_error};
  if (dlc_writer_open(store, &wo, &writer, &first, err, sizeof err) != DL_OK ||
      dlc_writer_start(writer, err, sizeof err) != DL_OK) {
    dlc_writer_close(&writer, 0, NULL, NULL, 0);
    dlc_core_fail("cannot record into %s: %s; not recording", store, err);
    return;
  }
  atomic_store(&next_id, (long long)first);
  /* the window counts from the launch (dlprof's clock at fork) when known */
  int64_t now = dlc_now_ns();
  const char *launch = getenv("DLPROF_COLLECTOR_START_NS");
  int64_t base = launch && *launch ? strtoll(launch, NULL, 10) : 0;
  if (base <= 0 || base > now) base = now;
  atomic_store(&window_from, base + delay * 1000000);
  atomic_store(&window_to, dur ? base + (delay + dur) * 1000000 : INT64_MAX);
  const char *range = getenv("DLPROF_COLLECTOR_RANGE");
  atomic_store(&range_mode, range && strcmp(range, "cudaProfilerApi") == 0);
  atomic_store(&active, 1);
  dlc_core_debug("process %lld records into %s", (long long)my_pid, store);
  pthread_atfork(NULL, NULL, in_child);
  install_signals();
  atexit(at_exit);
}

int dlc_core_init(void) {
  pthread_once(&init_once, init);
  return dlc_core_active();
}

void dlc_core_shutdown(void) {
  dlc_writer_stats st = {0};
  char err[512] = "";
  pthread_mutex_lock(&shutdown_mu);
  if (getpid() != my_pid || !writer) {
    pthread_mutex_unlock(&shutdown_mu);
    return;
  }
  atomic_store(&shut_down, 1);
  int ok = dlc_core_active();
  int rc = dlc_writer_close(&writer, dlc_now_ns(), &st, err, sizeof err);
  atomic_store(&active, 0);
  if (ok && rc != DL_OK) dlc_core_fail("closing the profile: %s", err);
  if (ok && rc == DL_OK && st.dropped_records > 0)
    dlc_core_fail("%lld records were dropped (the writer could not keep up)",
                  (long long)st.dropped_records);
  /* names stays: a late CUPTI callback may still read it */
  if (lock_fd >= 0) close(lock_fd);
  lock_fd = -1;
  pthread_mutex_unlock(&shutdown_mu);
}
