/*
 * main.c - dlprofviewer: serve dldbs as a web page and a JSON API.
 *
 *   dlprofviewer [-b|--bind ADDR] [-p|--port PORT] [--token T | --no-token]
 *                [--cache-mb MB] [--version] [-h|--help] DLDB|DIR...
 *
 * One database: opens and validates it (dldb_open_ro) and reads its
 * catalog before it serves, as it always did. Several, or a folder (every
 * dldb under it, new ones found when the runs list is asked for): each is
 * opened on first use (runs.h), so start-up costs a scan of the folders.
 * Then it starts the server, prints exactly one line to stdout,
 * "dlprofviewer running at http://HOST:PORT/" (with "?token=T" when a token
 * is required: always for a non-loopback bind unless --no-token, and with
 * --token), and serves until SIGINT or SIGTERM. Bound to 0.0.0.0, HOST is
 * the machine's host name, so the URL works for teammates.
 * DLPROFVIEWER_REQUEST_TIMEOUT_MS (100..600000) overrides the request
 * timeout (tests use a short one). Exit status: 0 after a signal, 1 when the database or the
 * address cannot be used, 2 for bad usage. Messages go to stderr.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assets.h"
#include "auth.h"
#include "catalog.h"
#include "dldb.h"
#include "runs.h"
#include "server.h"

static const char USAGE[] =
    "usage: dlprofviewer [-b|--bind ADDR] [-p|--port PORT] [--token T | --no-token]\n"
    "                    [--cache-mb MB] [--version] [-h|--help] DLDB\n"
    "       dlprofviewer [OPTIONS] DLDB... | DIR...\n"
    "Serves dldbs (written by dlprof or by NVIDIA DLProf 1.x) as a web page: one\n"
    "database, several, or every dldb under a folder (new ones appear without a\n"
    "restart), each with its dashboard, and any two compared.\n"
    "  -b, --bind ADDR  IPv4 address to listen on (default 127.0.0.1); use 0.0.0.0\n"
    "                   to serve to the entire local network\n"
    "  -p, --port PORT  TCP port (default 8000; 0 picks a free port)\n"
    "      --token T    require access token T (8-128 characters of A-Z a-z 0-9 . _ ~ -);\n"
    "                   without it, a non-loopback ADDR gets a random token, printed\n"
    "                   inside the URL to share\n"
    "      --no-token   serve a non-loopback ADDR without a token (anyone who can\n"
    "                   reach the port can read the profile)\n"
    "      --cache-mb MB  memory for cached API answers (default 24; 0: no cache)\n"
    "      --version    print the version and exit\n"
    "  -h, --help       print this help and exit\n"
    "The database is opened read-only and never modified.\n";

typedef struct options {
  const char *bind;   /* as given, e.g. "localhost" */
  char bind_ip[64];   /* what the server listens on */
  int port;
  char *const *paths; /* the databases and folders given */
  int npaths;
  const char *token;  /* --token */
  int no_token;       /* --no-token */
  long cache_mb;
} options;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "dlprofviewer: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n%s", USAGE);
  va_end(ap);
  return 2;
}

/* Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, options *o) {
  static const struct option longopts[] = {
      {"bind", required_argument, NULL, 'b'},
      {"port", required_argument, NULL, 'p'},
      {"token", required_argument, NULL, 'T'},
      {"no-token", no_argument, NULL, 'N'},
      {"cache-mb", required_argument, NULL, 'C'},
      {"version", no_argument, NULL, 'V'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  int c;
  o->bind = "127.0.0.1";
  o->port = 8000;
  o->token = NULL;
  o->no_token = 0;
  o->cache_mb = DLV_CACHE_MB_DEFAULT;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":b:p:h", longopts, NULL)) != -1) {
    char *end;
    switch (c) {
    case 'b': o->bind = optarg; break;
    case 'p': {
      long port = strtol(optarg, &end, 10);
      if (!*optarg || *end || port < 0 || port > 65535)
        return usage_error("--port must be an integer from 0 to 65535, not '%s'", optarg);
      o->port = (int)port;
      break;
    }
    case 'T':
      if (!dlv_token_valid(optarg))
        return usage_error("--token must be %d to %d characters of A-Z a-z 0-9 . _ ~ -",
                           DLV_TOKEN_MIN, DLV_TOKEN_MAX);
      o->token = optarg;
      break;
    case 'N': o->no_token = 1; break;
    case 'C':
      o->cache_mb = strtol(optarg, &end, 10);
      if (!*optarg || *end || o->cache_mb < 0 || o->cache_mb > 4096)
        return usage_error("--cache-mb must be an integer from 0 to 4096, not '%s'", optarg);
      break;
    case 'V': printf("dlprofviewer %s\n", DL_VERSION); return 0;
    case 'h': fputs(USAGE, stdout); return 0;
    case ':': return usage_error("option %s needs a value", argv[optind - 1]);
    default: return usage_error("unknown option %s", argv[optind - 1]);
    }
  }
  if (o->token && o->no_token) return usage_error("give --token or --no-token, not both");
  if (optind == argc) return usage_error("no database given");
  o->paths = argv + optind;
  o->npaths = argc - optind;
  for (int i = 0; i < o->npaths; i++)
    for (int k = 0; k < i; k++)
      if (strcmp(o->paths[i], o->paths[k]) == 0)
        return usage_error("%s is given twice; give each database or folder once", o->paths[i]);
  struct in_addr a;
  const char *ip = strcmp(o->bind, "localhost") == 0 ? "127.0.0.1" : o->bind;
  if (strchr(ip, ':'))
    return usage_error("--bind %s: IPv6 is not supported (civetweb 1.15 is built without it); "
                       "use an IPv4 address", o->bind);
  if (inet_pton(AF_INET, ip, &a) != 1)
    return usage_error("--bind %s: not an IPv4 address", o->bind);
  snprintf(o->bind_ip, sizeof o->bind_ip, "%s", ip);
  return -1;
}

/* The host name to print: the machine's name when serving every interface. */
static void display_host(const options *o, char *host, size_t len) {
  if (strcmp(o->bind_ip, "0.0.0.0") != 0 || gethostname(host, len) != 0 || !host[0])
    snprintf(host, len, "%s", o->bind_ip);
  host[len - 1] = '\0';
}

/* DLPROFVIEWER_REQUEST_TIMEOUT_MS, or 0 for the default. */
static int request_timeout_ms(void) {
  const char *v = getenv("DLPROFVIEWER_REQUEST_TIMEOUT_MS");
  char *end;
  long ms = v ? strtol(v, &end, 10) : 0;
  return v && *v && !*end && ms >= 100 && ms <= 600000 ? (int)ms : 0;
}

/* 1 when one path was given and it is not a folder: it is opened and
 * validated before the server starts. */
static int single_file(const options *o) {
  struct stat st;
  return o->npaths == 1 && stat(o->paths[0], &st) == 0 && !S_ISDIR(st.st_mode);
}

/* Opens the first run as a request would, to refuse a bad file at start,
 * and copies its info. */
static int open_first(dlv_runs *runs, dldb_info *info, char *err, size_t errlen) {
  dlv_run_pin pin;
  int rc = dlv_runs_pin(runs, 0, &pin, err, errlen);
  if (rc == DL_OK) *info = pin.cat->info;
  dlv_runs_unpin(runs, &pin);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  char err[1024], host[256], token[DLV_TOKEN_MAX + 1] = "";
  dlv_runs *runs = NULL;
  dlv_server *srv = NULL;
  int status = parse_args(argc, argv, &o);
  if (status >= 0) return status;

  /* Signals go to this thread only (workers inherit the mask) and are taken
   * with sigwait: no handler runs inside civetweb or SQLite. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL);
  signal(SIGPIPE, SIG_IGN);

  /* Answers (and cached ones) are blobs of 10 KB to 1 MB made by 16 threads:
   * a fixed mmap threshold gives the large ones back to the kernel when freed
   * (glibc's sliding threshold would move them onto fragmenting heaps), and
   * few arenas keep the rest compact. RSS then follows the cache's cap. */
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_ARENA_MAX, 4);
  status = 1;
  dldb_global_init(); /* before SQLite is used: no global mutex per allocation */
  dldb_info info;
  int one = 0;
  if (dlv_runs_new((const char *const *)o.paths, o.npaths, &runs, err, sizeof err) != DL_OK ||
      (one = single_file(&o)) < 0 || (one && open_first(runs, &info, err, sizeof err) != DL_OK)) {
    fprintf(stderr, "dlprofviewer: %s\n", err);
    goto out;
  }
  if (o.token) {
    snprintf(token, sizeof token, "%s", o.token);
  } else if (!o.no_token && !dlv_addr_is_loopback(o.bind_ip) &&
             dlv_token_random(token, sizeof token) != 0) {
    fprintf(stderr, "dlprofviewer: cannot make an access token (no randomness from the kernel); "
                    "give one with --token\n");
    goto out;
  }
  dlv_assets_init();
  mg_init_library(0);
  dlv_config cfg = {.bind = o.bind_ip, .port = o.port, .token = token[0] ? token : NULL,
                    .cache_bytes = (size_t)o.cache_mb << 20,
                    .request_timeout_ms = request_timeout_ms()};
  if (dlv_server_start(&cfg, runs, &srv, err, sizeof err) != DL_OK) {
    fprintf(stderr, "dlprofviewer: %s\n", err);
    mg_exit_library();
    goto out;
  }
  runs = NULL; /* the server's from here on */
  display_host(&o, host, sizeof host);
  printf("dlprofviewer running at http://%s:%d/%s%s\n", host, dlv_server_port(srv),
         token[0] ? "?token=" : "", token);
  fflush(stdout);
  if (one)
    fprintf(stderr, "dlprofviewer: serving %s (%s, dldb %s, aggregation %lld, domain %s); "
                    "Ctrl+C stops\n", o.paths[0],
            info.producer == DLDB_PRODUCER_DLPROF ? "dlprof" : "NVIDIA DLProf",
            info.current_version, (long long)info.default_aggr_id, info.default_domain);
  else
    fprintf(stderr, "dlprofviewer: serving the dldbs of %d path%s (%s%s); each is opened on first "
                    "use; Ctrl+C stops\n", o.npaths, o.npaths == 1 ? "" : "s", o.paths[0],
            o.npaths > 1 ? ", ..." : "");
  if (one && !info.integrity_checked)
    fprintf(stderr, "dlprofviewer: %s is over %lld MB: not every page was checked at start (only "
                    "its header, schema and the tables opening reads); damage, if any, shows as "
                    "an error where a view reads it\n",
            o.paths[0], (long long)(DLDB_QUICK_CHECK_MAX_BYTES >> 20));
  if (o.no_token && !dlv_addr_is_loopback(o.bind_ip))
    fprintf(stderr, "dlprofviewer: warning: --no-token: anyone who can reach %s:%d can read this "
                    "profile\n", o.bind_ip, dlv_server_port(srv));
  int sig = 0;
  sigwait(&stop, &sig);
  fprintf(stderr, "dlprofviewer: %s, stopping\n", sig == SIGINT ? "interrupted" : "terminated");
  dlv_server_stop(&srv);
  mg_exit_library();
  status = 0;
out:
  dlv_runs_free(&runs);
  return status;
}
