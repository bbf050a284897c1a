/*
 * nvtx_test_app - a real NVTX program (nvtx3 headers, no CUDA) for the
 * collector tests; it knows nothing of dlprof.
 *
 *   nvtx_test_app single      nested push/pop, marks, registered strings,
 *                             categories, payloads, a thread name
 *   nvtx_test_app threads     4 threads x 50 nested push/pop pairs
 *   nvtx_test_app domains     two domains interleaved with the default one
 *   nvtx_test_app startend    ranges started on one thread, ended on another
 *   nvtx_test_app all [CODE]  all of the above, then exits with CODE
 *   nvtx_test_app timed       "before" at once, "inside" 2.9 s later, "after"
 *                             5 s after the start (for -y/--delay, -d/--duration)
 *   nvtx_test_app hang READY N  N ranges, writes READY, holds a range open
 *                             and sleeps (for the SIGKILL/SIGTERM tests)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

static void single(void) {
  nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "main-thread");
  nvtxNameCategoryA(7, "compute");
  nvtxRangePushA("outer");
  nvtxRangePushA("middle");
  nvtxMarkA("a-mark");
  nvtxEventAttributes_t a = {0};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.category = 7;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFF00FF00u;
  a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  a.payload.llValue = 42;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "inner-ex";
  nvtxRangePushEx(&a);
  nvtxRangePop();
  nvtxRangePushW(L"wide-\u00e9");
  nvtxRangePop();
  nvtxRangePop();
  nvtxRangePop();
  int extra = nvtxRangePop(); /* nothing open: -1 (a tool), -2 (no tool) */
  if (extra != -1 && extra != -2) exit(10);
}

static void *worker(void *arg) {
  int k = (int)(intptr_t)arg;
  char name[32];
  snprintf(name, sizeof name, "worker-%d", k);
  nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), name);
  for (int i = 0; i < 50; i++) {
    nvtxRangePushA("step");
    nvtxRangePushA("op");
    nvtxRangePop();
    nvtxRangePop();
  }
  return NULL;
}

static void threads(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
}

static void domains(void) {
  nvtxDomainHandle_t d1 = nvtxDomainCreateA("dom-one"), d2 = nvtxDomainCreateA("dom-two");
  nvtxStringHandle_t reg = nvtxDomainRegisterStringA(d1, "registered-name");
  nvtxDomainNameCategoryA(d2, 3, "io");
  nvtxEventAttributes_t a = {0};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = reg;
  nvtxDomainRangePushEx(d1, &a);          /* dom-one: registered-name */
  nvtxRangePushA("default-in-between");   /* default domain, not nested in dom-one */
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "two-outer";
  a.category = 3;
  nvtxDomainRangePushEx(d2, &a);
  a.message.ascii = "two-inner";
  a.category = 0;
  nvtxDomainRangePushEx(d2, &a);
  nvtxDomainRangePop(d2);
  nvtxDomainRangePop(d2);
  nvtxRangePop();
  nvtxDomainRangePop(d1);
  a.message.ascii = "dom-mark";
  nvtxDomainMarkEx(d1, &a);
}

static nvtxRangeId_t shared_id;

static void *ender(void *arg) {
  (void)arg;
  nvtxRangeEnd(shared_id);
  return NULL;
}

static void startend(void) {
  shared_id = nvtxRangeStartA("cross-thread");
  nvtxRangeId_t local = nvtxRangeStartA("same-thread");
  pthread_t t;
  pthread_create(&t, NULL, ender, NULL);
  pthread_join(t, NULL);
  nvtxRangeEnd(local);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  if (!strcmp(mode, "single")) single();
  else if (!strcmp(mode, "threads")) threads();
  else if (!strcmp(mode, "domains")) domains();
  else if (!strcmp(mode, "startend")) startend();
  else if (!strcmp(mode, "all")) {
    single();
    threads();
    domains();
    startend();
    return argc > 2 ? atoi(argv[2]) : 0;
  } else if (!strcmp(mode, "timed")) {
    for (int i = 0; i < 3; i++) nvtxRangePushA("before"), nvtxRangePop();
    sleep_ms(2900);
    for (int i = 0; i < 5; i++) nvtxRangePushA("inside"), nvtxRangePop();
    sleep_ms(2100);
    for (int i = 0; i < 7; i++) nvtxRangePushA("after"), nvtxRangePop();
  } else if (!strcmp(mode, "hang") && argc > 3) {
    int n = atoi(argv[3]);
    for (int i = 0; i < n; i++) {
      nvtxRangePushA("done-range");
      nvtxRangePop();
    }
    nvtxRangePushA("open-range");
    FILE *f = fopen(argv[2], "w");
    if (f) fclose(f);
    for (;;) sleep_ms(100);
  } else {
    fprintf(stderr, "usage: nvtx_test_app single|threads|domains|startend|all [CODE]|timed|"
                    "hang READY N\n");
    return 2;
  }
  return 0;
}
