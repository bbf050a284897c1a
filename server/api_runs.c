/*
 * api_runs.c - GET /api/v1/runs: one row per served database, for the runs
 * page. Folders are rescanned first (runs.h: a stat per folder, read again
 * only when changed); each row's values are read once per version of its
 * file. Files found in a folder that are not dldbs this viewer can serve
 * (an Nsight Systems export beside a dldb, say) are left out; a file given
 * on the command line is listed with its error.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "params.h"
#include "routes.h"

static const char *const accepted[] = {"token", "run"};

/* 0, or the 400 sent for a parameter other than those accepted. */
static int check_params(dlv_req *r) {
  char *copy = strdup(r->query), *save = NULL;
  if (!copy) return dlv_send_error(r, 500, "internal", "out of memory");
  int status = 0;
  for (char *pair = strtok_r(copy, "&", &save); pair && !status; pair = strtok_r(NULL, "&", &save)) {
    pair[strcspn(pair, "=")] = '\0';
    int ok = 0;
    for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++) ok |= strcmp(pair, accepted[i]) == 0;
    if (!ok) status = dlv_send_error(r, 400, "bad_param", "unknown parameter '%.64s'", pair);
  }
  free(copy);
  return status;
}

static cJSON *row_json(const dlv_run_meta *m) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "run", m->id);
  cJSON_AddStringToObject(o, "name", m->name);
  cJSON_AddStringToObject(o, "path", m->path);
  cJSON_AddBoolToObject(o, "ok", m->ok);
  if (!m->ok) {
    cJSON_AddStringToObject(o, "error", m->error);
    return o;
  }
  cJSON_AddStringToObject(o, "producer", m->producer);
  cJSON_AddStringToObject(o, "date", m->date);
  cJSON_AddItemToObject(o, "num_gpus", dlv_json_int(m->num_gpus));
  cJSON_AddItemToObject(o, "iterations", dlv_json_int(m->iterations));
  cJSON_AddNumberToObject(o, "iter_avg", m->iter_avg);
  cJSON_AddNumberToObject(o, "gpu_utilization", m->gpu_utilization);
  cJSON_AddStringToObject(o, "key_op", m->key_op);
  cJSON_AddItemToObject(o, "file_bytes", dlv_json_int(m->file_bytes));
  cJSON_AddItemToObject(o, "mtime_s", dlv_json_int(m->mtime_s));
  return o;
}

int api_runs(dlv_req *r) {
  int status = check_params(r);
  if (status) return status;
  dlv_runs_rescan(r->runs);
  int n = dlv_runs_count(r->runs), first = dlv_runs_find(r->runs, NULL);
  cJSON *root = cJSON_CreateObject();
  cJSON *rows = cJSON_AddArrayToObject(root, "rows");
  dlv_run_meta *m = malloc(sizeof *m);
  if (!m) {
    cJSON_Delete(root);
    return dlv_send_error(r, 500, "internal", "out of memory");
  }
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    if (!dlv_runs_meta(r->runs, i, m)) continue;
    if (!m->ok && !m->given) continue;
    cJSON_AddItemToArray(rows, row_json(m));
    total++;
  }
  char first_id[DLV_RUN_ID_LEN];
  dlv_runs_id(r->runs, first, first_id);
  free(m);
  cJSON_AddItemToObject(root, "total", dlv_json_int(total));
  cJSON_AddStringToObject(root, "default_run", first_id);
  cJSON_AddBoolToObject(root, "multi", dlv_runs_multi(r->runs));
  return dlv_send_json(r, 200, root);
}
