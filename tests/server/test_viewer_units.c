/*
 * test_viewer_units.c - the viewer's pure parts, without a socket: query
 * string validation (every 400 of docs/api.md), JSON values (exact int64,
 * non-finite reals), RFC 4180 CSV, gzip negotiation, the embedded asset
 * lookup (no path reaches outside the table) and the route and view tables;
 * the direct JSON writer (byte for byte cJSON's output), the answer cache
 * (cap, eviction, references, keys), the access-token helpers and CSV
 * formula-injection protection.
 * The catalog comes from tests/server/mini.dldb.sql.
 * Usage: server_test_viewer_units WORKDIR
 */
#include <math.h>

#include "../test.h"
#include "assets.h"
#include "auth.h"
#include "cache.h"
#include "catalog.h"
#include "csv.h"
#include "http.h"
#include "fixture.h"
#include "json.h"
#include "params.h"
#include "routes.h"
#include "views.h"

static dlv_catalog *cat;
static dldb *db;

/* Parses q for endpoint `view` (all parameters) and returns the status. */
static int parse(const char *view, const char *q, dlv_params *p, char *msg) {
  const dlv_view *v = view ? dlv_view_find(view) : NULL;
  unsigned accept = DLV_ACCEPT_SCOPE | DLV_ACCEPT_LIST;
  msg[0] = '\0';
  return dlv_params_parse(q, cat, v, accept, p, msg, 256) == DL_OK ? 200 : 400;
}

/* Expects 400 whose message contains want. */
static int bad(const char *view, const char *q, const char *want) {
  dlv_params p;
  char msg[256];
  int status = parse(view, q, &p, msg);
  dlv_params_free(&p);
  if (status != 400) fprintf(stderr, "'%s' on %s was accepted\n", q, view);
  ASSERT_EQ(status, 400);
  ASSERT_CONTAINS(msg, want);
  return 0;
}

static int test_defaults(void) {
  dlv_params p;
  char msg[256];
  ASSERT_EQ(parse("op_nodes", NULL, &p, msg), 200);
  ASSERT_EQ(p.aggr_id, 2);
  ASSERT_STR_EQ(p.domain, "default-domain");
  ASSERT_EQ(p.offset, 0);
  ASSERT_EQ(p.limit, DLV_LIMIT_DEFAULT);
  ASSERT_STR_EQ(p.sort, "gpu_time");
  ASSERT_EQ(p.desc, 1);
  ASSERT_NULL(p.filter);
  ASSERT_EQ(p.csv, 0);
  dlv_params_free(&p);
  ASSERT_EQ(parse("iteration_kernels", "", &p, msg), 200);
  ASSERT_STR_EQ(p.sort, "kernel_timestamp");
  ASSERT_EQ(p.desc, 0);
  dlv_params_free(&p);
  return 0;
}

static int test_good(void) {
  dlv_params p;
  char msg[256];
  ASSERT_EQ(parse("op_nodes",
                  "aggr_id=1&domain=other+domain&offset=5&limit=1000&sort=op_node_name&filter="
                  "100%25_%22%3Cb%3E&format=csv&token=abc&op_node_type=linear",
                  &p, msg), 200);
  ASSERT_EQ(p.aggr_id, 1);
  ASSERT_STR_EQ(p.domain, "other domain");
  ASSERT_EQ(p.offset, 5);
  ASSERT_EQ(p.limit, 1000);
  ASSERT_STR_EQ(p.sort, "op_node_name");
  ASSERT_EQ(p.desc, 0); /* text column: ascending by default */
  ASSERT_STR_EQ(p.filter, "100%_\"<b>");
  ASSERT_EQ(p.csv, 1);
  ASSERT_EQ(p.n_eq, 1);
  ASSERT_STR_EQ(p.eq[0].column, "op_node_type");
  ASSERT_STR_EQ(p.eq[0].value, "linear");
  dlv_params_free(&p);
  ASSERT_EQ(parse("op_nodes", "order=asc&sort=gpu_time", &p, msg), 200);
  ASSERT_EQ(p.desc, 0);
  dlv_params_free(&p);
  ASSERT_EQ(parse("op_nodes", "sort=cpu_time", &p, msg), 200);
  ASSERT_EQ(p.desc, 1); /* numeric column: descending by default */
  dlv_params_free(&p);
  ASSERT_EQ(parse("iteration_kernels", "iter_value=4&kernel_duration=-3&&", &p, msg), 200);
  ASSERT_EQ(p.n_eq, 2);
  dlv_params_free(&p);
  return 0;
}

static int test_bad(void) {
  ASSERT_OK(bad("op_nodes", "offset=x", "offset must be an integer >= 0"));
  ASSERT_OK(bad("op_nodes", "offset=-1", "offset must be an integer >= 0"));
  ASSERT_OK(bad("op_nodes", "offset=1.5", "offset"));
  ASSERT_OK(bad("op_nodes", "offset=", "offset"));
  ASSERT_OK(bad("op_nodes", "limit=1001", "limit must be an integer from 1 to 1000"));
  ASSERT_OK(bad("op_nodes", "limit=0", "limit must be an integer from 1 to 1000"));
  ASSERT_OK(bad("op_nodes", "limit=99999999999999999999", "limit"));
  ASSERT_OK(bad("op_nodes", "sort=nope", "sort: op_nodes has no column 'nope'"));
  ASSERT_OK(bad("op_nodes", "sort=gpu_time%3B%20DROP", "has no column"));
  ASSERT_OK(bad("op_nodes", "order=up", "order must be asc or desc"));
  ASSERT_OK(bad("op_nodes", "aggr_id=3", "unknown aggr_id 3"));
  ASSERT_OK(bad("op_nodes", "aggr_id=one", "aggr_id must be an integer"));
  ASSERT_OK(bad("op_nodes", "domain=nope", "unknown domain 'nope'"));
  ASSERT_OK(bad("op_nodes", "bogus=1", "unknown parameter 'bogus'"));
  ASSERT_OK(bad("op_nodes", "domain_name=x", "unknown parameter 'domain_name'"));
  ASSERT_OK(bad("op_nodes", "format=xml", "format must be json or csv"));
  ASSERT_OK(bad("op_nodes", "limit=5&limit=6", "given twice"));
  ASSERT_OK(bad("op_nodes", "filter=%zz", "malformed percent-encoding"));
  ASSERT_OK(bad("op_nodes", "filter=a%00b", "malformed percent-encoding"));
  ASSERT_OK(bad("op_nodes", "=5", "without a name"));
  ASSERT_OK(bad("iteration_kernels", "iter_value=four", "iter_value must be an integer"));
  ASSERT_OK(bad("performance_summary", "offset=0", "unknown parameter 'offset'"));
  ASSERT_OK(bad("performance_summary", "wall_clock_time=1", "unknown parameter"));
  char q[600] = "filter=";
  memset(q + 7, 'a', DLV_FILTER_MAX + 1);
  ASSERT_OK(bad("op_nodes", q, "filter must be at most"));
  ASSERT_OK(bad("op_nodes",
                "iter=1&op_node_id=1&op_node_name=1&op_node_type=1&stack_trace=1&gpu_time=1&"
                "cpu_time=1&op_node_id=2", "unknown parameter 'iter'"));
  return 0;
}

static int test_several_filters(void) {
  /* the cap of DLDB_MAX_EQ is checked over HTTP, on a view with more columns */
  dlv_params p;
  char msg[256];
  ASSERT_EQ(parse("op_nodes", "op_node_id=1&op_node_name=1&op_node_type=1&stack_trace=1", &p, msg),
            200);
  ASSERT_EQ(p.n_eq, 4);
  dlv_params_free(&p);
  return 0;
}

static int test_non_view_endpoints(void) {
  dlv_params p;
  char msg[256];
  ASSERT_EQ(dlv_params_parse("token=x", cat, NULL, 0, &p, msg, sizeof msg), DL_OK);
  dlv_params_free(&p);
  ASSERT_EQ(dlv_params_parse("aggr_id=2", cat, NULL, 0, &p, msg, sizeof msg), DL_EINVAL);
  dlv_params_free(&p);
  ASSERT_EQ(dlv_params_parse("aggr_id=2&domain=other%20domain", cat, NULL, DLV_ACCEPT_SCOPE, &p,
                             msg, sizeof msg), DL_OK);
  dlv_params_free(&p);
  ASSERT_EQ(dlv_params_parse("sort=x", cat, NULL, DLV_ACCEPT_SCOPE | DLV_ACCEPT_LIST, &p, msg,
                             sizeof msg), DL_EINVAL);
  dlv_params_free(&p);
  return 0;
}

static int test_json_values(void) {
  char *s;
  cJSON *j = dlv_json_int(INT64_MAX);
  s = cJSON_PrintUnformatted(j);
  ASSERT_STR_EQ(s, "9223372036854775807");
  cJSON_free(s);
  cJSON_Delete(j);
  j = dlv_json_int(INT64_MIN);
  s = cJSON_PrintUnformatted(j);
  ASSERT_STR_EQ(s, "-9223372036854775808");
  cJSON_free(s);
  cJSON_Delete(j);
  j = dlv_json_real(NAN);
  ASSERT(cJSON_IsNull(j));
  cJSON_Delete(j);
  j = dlv_json_real(-INFINITY);
  ASSERT(cJSON_IsNull(j));
  cJSON_Delete(j);
  j = dlv_json_real(0.125);
  s = cJSON_PrintUnformatted(j);
  ASSERT_STR_EQ(s, "0.125");
  cJSON_free(s);
  cJSON_Delete(j);
  return 0;
}

static int test_json_rows(void) {
  char err[512];
  cJSON *rows = cJSON_CreateArray();
  dlv_json_rows collect = {.array = rows};
  dldb_query q = {.view = "view_performance_summary", .aggr_id = -1, .sort = "aggr_id",
                  .limit = -1};
  ASSERT_OK(dldb_query_rows(db, &q, dlv_json_rows_append, &collect, err, sizeof err));
  ASSERT_EQ(collect.failed, 0);
  char *s = cJSON_PrintUnformatted(rows);
  cJSON_Delete(rows);
  ASSERT_STR_EQ(s, "[{\"aggr_id\":1,\"domain_name\":\"default-domain\","
                   "\"wall_clock_time\":-9223372036854775808,\"gpu_utilization\":null,"
                   "\"key_node\":null},{\"aggr_id\":2,\"domain_name\":\"default-domain\","
                   "\"wall_clock_time\":9223372036854775807,\"gpu_utilization\":0.125,"
                   "\"key_node\":\"conv\"}]");
  cJSON_free(s);
  return 0;
}

typedef struct membuf {
  char data[4096];
  size_t len;
  int calls;
} membuf;

static int mem_write(void *ctx, const char *d, size_t n) {
  membuf *m = ctx;
  if (m->len + n >= sizeof m->data) return -1;
  memcpy(m->data + m->len, d, n);
  m->len += n;
  m->data[m->len] = '\0';
  m->calls++;
  return 0;
}

static int test_csv(void) {
  membuf m = {.len = 0};
  dlv_csv *c = malloc(sizeof *c);
  ASSERT_NOT_NULL(c);
  dlv_csv_init(c, mem_write, &m);
  const char *names[] = {"a", "b,c"};
  dlv_csv_header(c, names, 2);
  dlv_csv_field(c, "plain", 1);
  dlv_csv_field(c, "has \"quotes\", comma", 0);
  dlv_csv_field(c, "line1\nline2", 0);
  dlv_csv_field(c, "", 0);
  int rc = dlv_csv_flush(c);
  free(c);
  ASSERT_OK(rc);
  ASSERT_STR_EQ(m.data, "a,\"b,c\"\r\nplain,\"has \"\"quotes\"\", comma\",\"line1\nline2\",");
  char buf[40];
  dlv_format_real(buf, sizeof buf, 0.1);
  ASSERT_STR_EQ(buf, "0.1");
  dlv_format_real(buf, sizeof buf, 2864091540.0);
  ASSERT_STR_EQ(buf, "2864091540");
  dlv_format_real(buf, sizeof buf, 1.0 / 3);
  ASSERT(strtod(buf, NULL) == 1.0 / 3);
  return 0;
}

static int test_csv_rows(void) {
  char err[512];
  membuf m = {.len = 0};
  dlv_csv *c = malloc(sizeof *c);
  ASSERT_NOT_NULL(c);
  dlv_csv_init(c, mem_write, &m);
  dldb_query q = {.view = "view_op_nodes", .aggr_id = 2, .domain = "default-domain",
                  .sort = "gpu_time", .limit = 2};
  int rc = dldb_query_rows(db, &q, dlv_csv_row, c, err, sizeof err);
  if (!rc) rc = dlv_csv_flush(c);
  free(c);
  ASSERT_OK(rc);
  ASSERT_CONTAINS(m.data, "2,default-domain,50,50,/net/<img src=x onerror=alert(1)>,Weird'Type,"
                          "WEIRD_1,\r\n");
  ASSERT_CONTAINS(m.data, "\"/net/\"\"quoted\"\", comma\",relu,RELU_1,\"line1\nline2\"\r\n");
  return 0;
}

static int test_gzip_negotiation(void) {
  ASSERT_EQ(dlv_accepts_gzip("gzip"), 1);
  ASSERT_EQ(dlv_accepts_gzip("gzip, deflate, br"), 1);
  ASSERT_EQ(dlv_accepts_gzip("br;q=1.0, GZIP;q=0.5"), 1);
  ASSERT_EQ(dlv_accepts_gzip("*"), 1);
  ASSERT_EQ(dlv_accepts_gzip("gzip;q=0"), 0);
  ASSERT_EQ(dlv_accepts_gzip("identity"), 0);
  ASSERT_EQ(dlv_accepts_gzip("x-gzip2"), 0);
  ASSERT_EQ(dlv_accepts_gzip(""), 0);
  ASSERT_EQ(dlv_accepts_gzip(NULL), 0);
  return 0;
}

static int test_assets(void) {
  const dl_asset *chart = dlv_asset_find("/vendor/chart.umd.js");
  ASSERT_NOT_NULL(chart);
  ASSERT(chart->size > 100000);
  ASSERT(chart->gzip_size > 0 && chart->gzip_size < chart->size);
  ASSERT_NOT_NULL(dlv_asset_find("/vendor/chart.js.LICENSE.md"));
  ASSERT_STR_EQ(dlv_asset_type("/vendor/chart.umd.js"), "text/javascript; charset=utf-8");
  ASSERT_STR_EQ(dlv_asset_type("/a.css"), "text/css; charset=utf-8");
  ASSERT_STR_EQ(dlv_asset_type("/x"), "application/octet-stream");
  const dl_asset *index = dlv_asset_find("/index.html");
  if (index) {
    ASSERT(dlv_asset_find("/") == index);
    ASSERT(dlv_asset_find("/dashboard.html") == index);
    ASSERT(dlv_asset_find("/dlprof.html") == index);
  }
  const char *outside[] = {"/../index.html", "//index.html", "/./index.html", "\\index.html",
                           "/index.html/", "/vendor/../vendor/chart.umd.js", "/etc/passwd",
                           "/vendor", "/vendor/", "", "index.html", "/INDEX.HTML",
                           "/vendor/chart.umd.js\\..\\x"};
  for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
    ASSERT_NULL(dlv_asset_find(outside[i]));
  for (const dl_asset *a = dlv_web_assets; a->path; a++) {
    ASSERT(a->path[0] == '/');
    ASSERT(strstr(a->path, "..") == NULL);
    ASSERT(strstr(a->path, "node_modules") == NULL);
  }
  return 0;
}

static int test_tables(void) {
  int n = 0;
  for (const dlv_route *r = dlv_routes; r->path; r++, n++) {
    ASSERT(strncmp(r->path, "/api/v1/", 8) == 0);
    ASSERT_NOT_NULL(r->handler);
  }
  ASSERT(n >= 6);
  for (int i = 0; i < DLV_VIEW_COUNT; i++) {
    const dlv_view *v = &dlv_views[i];
    ASSERT(dlv_view_find(v->name) == v);
    ASSERT(strncmp(v->sql_view, "view_", 5) == 0);
    ASSERT_STR_EQ(v->sql_view + 5, v->name);
    ASSERT(v->shape == DLV_OBJECT || v->shape == DLV_LIST);
    ASSERT_NOT_NULL(v->feature);
  }
  ASSERT_NULL(dlv_view_find("nope"));
  /* the catalog saw the fixture's views and nothing else */
  ASSERT_EQ(dlv_catalog_view(cat, dlv_view_find("op_nodes"))->present, 1);
  ASSERT_EQ(dlv_catalog_view(cat, dlv_view_find("group_ops"))->present, 0);
  ASSERT_EQ(cat->n_aggr, 2);
  ASSERT_EQ(cat->n_domains, 2);
  ASSERT_STR_EQ(cat->mode, "pytorch");
  ASSERT_EQ(cat->num_gpus, 2);
  ASSERT_STR_EQ(cat->db_name, "units.sqlite");
  return 0;
}

/* Every row of the fixture's views: dlv_jbuf_row prints what cJSON prints. */
static int same_as_cjson(void *ctx, const dldb_row *row) {
  int *bad_rows = ctx;
  cJSON *j = dlv_json_row(row);
  char *want = cJSON_PrintUnformatted(j);
  dlv_jbuf b = {0};
  dlv_jbuf_row(&b, row);
  size_t len;
  char *got = dlv_jbuf_take(&b, &len);
  if (!want || !got || strcmp(want, got) != 0 || strlen(got) != len) {
    fprintf(stderr, "jbuf:  %s\ncJSON: %s\n", got ? got : "(null)", want ? want : "(null)");
    (*bad_rows)++;
  }
  free(got);
  cJSON_free(want);
  cJSON_Delete(j);
  return 0;
}

static int test_jbuf(void) {
  char err[512];
  int bad_rows = 0;
  const char *views[] = {"view_performance_summary", "view_op_nodes", "view_iteration_kernels",
                         "view_system_config", "view_aggregations", "view_domains"};
  for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
    dldb_query q = {.view = views[i], .aggr_id = -1, .limit = -1};
    ASSERT_OK(dldb_query_rows(db, &q, same_as_cjson, &bad_rows, err, sizeof err));
  }
  ASSERT_EQ(bad_rows, 0);
  /* strings, numbers */
  dlv_jbuf b = {0};
  dlv_jbuf_str(&b, "a\"b\\c\n\t\x01\x1f</script>\xc3\xa9");
  dlv_jbuf_lit(&b, ",");
  const double reals[] = {0.1, 1.0 / 3, 80.373554931576592, 1e300, -0.0, 2147483648.0, 3.0,
                          -2.5e-310, NAN, INFINITY};
  for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
    dlv_jbuf_real(&b, reals[i]);
    dlv_jbuf_lit(&b, ",");
  }
  dlv_jbuf_int(&b, INT64_MIN);
  dlv_jbuf_lit(&b, ",");
  dlv_jbuf_int(&b, 0);
  char *got = dlv_jbuf_take(&b, NULL);
  cJSON *arr = cJSON_CreateArray();
  cJSON_AddItemToArray(arr, cJSON_CreateString("a\"b\\c\n\t\x01\x1f</script>\xc3\xa9"));
  for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
    cJSON_AddItemToArray(arr, dlv_json_real(reals[i]));
  cJSON_AddItemToArray(arr, dlv_json_int(INT64_MIN));
  cJSON_AddItemToArray(arr, dlv_json_int(0));
  char *want = cJSON_PrintUnformatted(arr);
  cJSON_Delete(arr);
  ASSERT_NOT_NULL(got);
  ASSERT_NOT_NULL(want);
  ASSERT_EQ(want[0], '[');
  want[strlen(want) - 1] = '\0';
  ASSERT_STR_EQ(got, want + 1);
  free(got);
  cJSON_free(want);
  return 0;
}

static int test_cache(void) {
  ASSERT_NULL(dlv_cache_new(0));
  ASSERT_NULL(dlv_cache_get(NULL, "k"));
  dlv_cache_put(NULL, "k", "v", 1); /* a disabled cache does nothing */
  dlv_cache_clear(NULL);
  dlv_cache *c = dlv_cache_new(64 * 1024);
  ASSERT_NOT_NULL(c);
  char body[4096];
  memset(body, 'x', sizeof body);
  dlv_cache_put(c, "a", body, 1000);
  const dlv_cache_entry *e = dlv_cache_get(c, "a");
  ASSERT_NOT_NULL(e);
  ASSERT_EQ(e->len, 1000);
  ASSERT(memcmp(e->body, body, 1000) == 0);
  /* a held entry survives its eviction until released */
  dlv_cache_clear(c);
  ASSERT_NULL(dlv_cache_get(c, "a"));
  ASSERT_EQ(e->body[999], 'x');
  dlv_cache_release(c, e);
  /* too large for an eighth of the cap: not kept */
  char *big = calloc(1, 9000);
  ASSERT_NOT_NULL(big);
  dlv_cache_put(c, "big", big, 9000);
  free(big);
  ASSERT_NULL(dlv_cache_get(c, "big"));
  /* the cap holds; the least recently used go first */
  char key[32];
  for (int i = 0; i < 100; i++) {
    snprintf(key, sizeof key, "k%d", i);
    dlv_cache_put(c, key, body, sizeof body);
    const dlv_cache_entry *k0 = dlv_cache_get(c, "k0"); /* keep k0 recently used */
    dlv_cache_release(c, k0);
  }
  dlv_cache_stats st;
  dlv_cache_get_stats(c, &st);
  ASSERT(st.bytes <= st.cap);
  ASSERT(st.evictions > 0);
  ASSERT(st.entries > 5 && st.entries < 16);
  e = dlv_cache_get(c, "k0");
  ASSERT_NOT_NULL(e);
  dlv_cache_release(c, e);
  ASSERT_NULL(dlv_cache_get(c, "k1"));
  e = dlv_cache_get(c, "k99");
  ASSERT_NOT_NULL(e);
  dlv_cache_release(c, e);
  /* same key again replaces */
  dlv_cache_put(c, "k99", "new", 3);
  e = dlv_cache_get(c, "k99");
  ASSERT_EQ(e->len, 3);
  ASSERT_STR_EQ(e->body, "new");
  dlv_cache_release(c, e);
  dlv_cache_free(&c);
  ASSERT_NULL(c);
  /* keys: values are length-prefixed, so no value forges another pair */
  dlv_cache_key k1, k2;
  dlv_cache_key_init(&k1, "op_nodes");
  dlv_cache_key_add(&k1, "filter", "a&sort=x");
  dlv_cache_key_init(&k2, "op_nodes");
  dlv_cache_key_add(&k2, "filter", "a");
  dlv_cache_key_add(&k2, "sort", "x");
  ASSERT(strcmp(dlv_cache_key_text(&k1), dlv_cache_key_text(&k2)) != 0);
  char longv[4096];
  memset(longv, 'v', sizeof longv - 1);
  longv[sizeof longv - 1] = '\0';
  dlv_cache_key_add(&k1, "filter", longv);
  ASSERT_NULL(dlv_cache_key_text(&k1));
  return 0;
}

static int test_auth(void) {
  ASSERT_EQ(dlv_addr_is_loopback("127.0.0.1"), 1);
  ASSERT_EQ(dlv_addr_is_loopback("127.1.2.3"), 1);
  ASSERT_EQ(dlv_addr_is_loopback("0.0.0.0"), 0);
  ASSERT_EQ(dlv_addr_is_loopback("10.0.0.1"), 0);
  ASSERT_EQ(dlv_token_valid("abcdefgh"), 1);
  ASSERT_EQ(dlv_token_valid("A-b_c.d~0123"), 1);
  ASSERT_EQ(dlv_token_valid("short"), 0);
  ASSERT_EQ(dlv_token_valid("has space"), 0);
  ASSERT_EQ(dlv_token_valid("semi;colon1"), 0);
  ASSERT_EQ(dlv_token_valid("per%cent12"), 0);
  char t1[DLV_TOKEN_MAX + 1], t2[DLV_TOKEN_MAX + 1];
  ASSERT_OK(dlv_token_random(t1, sizeof t1));
  ASSERT_OK(dlv_token_random(t2, sizeof t2));
  ASSERT_EQ(strlen(t1), 2 * DLV_TOKEN_RANDOM_BYTES);
  ASSERT_EQ(dlv_token_valid(t1), 1);
  ASSERT(strcmp(t1, t2) != 0);
  ASSERT_EQ(dlv_token_equal("abc", "abc"), 1);
  ASSERT_EQ(dlv_token_equal("abc", "abd"), 0);
  ASSERT_EQ(dlv_token_equal("abc", "abcd"), 0);
  ASSERT_EQ(dlv_token_equal("", "a"), 0);
  const char *tok = "s3cret-token";
  ASSERT_EQ(dlv_auth_query_ok("token=s3cret-token", tok), 1);
  ASSERT_EQ(dlv_auth_query_ok("limit=5&token=s3cret-token&x=1", tok), 1);
  ASSERT_EQ(dlv_auth_query_ok("token=s3cret%2Dtoken", tok), 1);
  ASSERT_EQ(dlv_auth_query_ok("token=s3cret-tokenX", tok), 0);
  ASSERT_EQ(dlv_auth_query_ok("xtoken=s3cret-token", tok), 0);
  ASSERT_EQ(dlv_auth_query_ok("token=", tok), 0);
  ASSERT_EQ(dlv_auth_query_ok("", tok), 0);
  ASSERT_EQ(dlv_auth_query_ok(NULL, tok), 0);
  char name[64];
  dlv_auth_cookie_name(8000, name, sizeof name);
  ASSERT_STR_EQ(name, "dlprofviewer_token_8000");
  ASSERT_EQ(dlv_auth_cookie_ok("dlprofviewer_token_8000=s3cret-token", name, tok), 1);
  ASSERT_EQ(dlv_auth_cookie_ok("a=b; dlprofviewer_token_8000=s3cret-token; c=d", name, tok), 1);
  ASSERT_EQ(dlv_auth_cookie_ok("dlprofviewer_token_8001=s3cret-token", name, tok), 0);
  ASSERT_EQ(dlv_auth_cookie_ok("xdlprofviewer_token_8000=s3cret-token", name, tok), 0);
  ASSERT_EQ(dlv_auth_cookie_ok("dlprofviewer_token_8000=wrong", name, tok), 0);
  ASSERT_EQ(dlv_auth_cookie_ok(NULL, name, tok), 0);
  return 0;
}

static int test_path_decode(void) {
  char out[16];
  ASSERT_EQ(dlv_path_decode("/a%2Fb+c%20d", out, sizeof out), 0);
  ASSERT_STR_EQ(out, "/a/b+c d");
  ASSERT_EQ(dlv_path_decode("/index.html%00.js", out, sizeof out), -1);
  ASSERT_EQ(dlv_path_decode("/%zz", out, sizeof out), -1);
  ASSERT_EQ(dlv_path_decode("/%4", out, sizeof out), -1);
  ASSERT_EQ(dlv_path_decode("/%", out, sizeof out), -1);
  ASSERT_EQ(dlv_path_decode("/0123456789abcdef", out, sizeof out), -2);
  ASSERT_EQ(dlv_path_decode("/%2e%2E/", out, sizeof out), 0);
  ASSERT_STR_EQ(out, "/../");
  ASSERT_NULL(dlv_asset_find(out));
  return 0;
}

static int test_csv_formulas(void) {
  membuf m = {.len = 0};
  dlv_csv *c = malloc(sizeof *c);
  ASSERT_NOT_NULL(c);
  dlv_csv_init(c, mem_write, &m);
  dlv_csv_text_field(c, "=HYPERLINK(\"http://x\",\"y\")", 1);
  dlv_csv_text_field(c, "+1+cmd|' /C calc'!A0", 0);
  dlv_csv_text_field(c, "-2+3", 0);
  dlv_csv_text_field(c, "@SUM(A1)", 0);
  dlv_csv_text_field(c, "\tx", 0);
  dlv_csv_text_field(c, "a=b", 0);
  dlv_csv_field(c, "-5", 0); /* a number: untouched */
  int rc = dlv_csv_flush(c);
  free(c);
  ASSERT_OK(rc);
  ASSERT_STR_EQ(m.data,
                "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",'+1+cmd|' /C calc'!A0,'-2+3,'@SUM(A1),'\tx,a=b,-5");
  ASSERT_EQ(dl_csv_formula_like("=1"), 1);
  ASSERT_EQ(dl_csv_formula_like(""), 0);
  ASSERT_EQ(dl_csv_formula_like("x=1"), 0);
  ASSERT_EQ(dl_csv_formula_like("-1.5"), 0); /* plain numbers and a lone "-" */
  ASSERT_EQ(dl_csv_formula_like("+3e5"), 0);
  ASSERT_EQ(dl_csv_formula_like("-"), 0);
  ASSERT_EQ(dl_csv_formula_like("-1+2"), 1);
  ASSERT_EQ(dl_csv_formula_like("-inf"), 1);
  return 0;
}

int main(int argc, char **argv) {
  char path[4096], err[1024];
  if (argc < 2) {
    fprintf(stderr, "usage: %s WORKDIR\n", argv[0]);
    return 2;
  }
  snprintf(path, sizeof path, "%s/units.sqlite", argv[1]);
  if (fixture_make(path, DLV_FIXTURE_SQL, NULL) != 0 ||
      dldb_open_ro(path, &db, NULL, err, sizeof err) != DL_OK ||
      dlv_catalog_load(db, &cat, err, sizeof err) != DL_OK) {
    fprintf(stderr, "fixture: %s\n", err);
    return 1;
  }
  dlv_assets_init();
  RUN(test_defaults);
  RUN(test_good);
  RUN(test_bad);
  RUN(test_several_filters);
  RUN(test_non_view_endpoints);
  RUN(test_json_values);
  RUN(test_json_rows);
  RUN(test_csv);
  RUN(test_csv_rows);
  RUN(test_gzip_negotiation);
  RUN(test_assets);
  RUN(test_tables);
  RUN(test_jbuf);
  RUN(test_cache);
  RUN(test_auth);
  RUN(test_csv_formulas);
  RUN(test_path_decode);
  dlv_catalog_free(&cat);
  dldb_close(&db);
  TEST_DONE();
}
