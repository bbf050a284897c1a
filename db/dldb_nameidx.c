/*
 * dldb_nameidx.c - which views' name filters a trigram index of ours can
 * answer (dldb_read.h), and the filter as that index's query.
 *
 * A filter keeps the rows where one of the view's filter columns holds it,
 * ignoring ASCII case (instr of lower(), dldb_query.c). Our dldbs keep the
 * texts of those columns of the Ops view in an FTS5 trigram index
 * (db/schema.sql aggr_dl_op_names): a filter of three characters or more
 * finds there the rows whose texts hold each of its trigrams, one after
 * another, in a few pages whatever the number of ops. The index folds case
 * as Unicode does, so for a filter of ASCII characters the rows it finds
 * are every row the filter keeps and maybe more (a text with the Kelvin
 * sign holds "k" to it): the caller matches them as it matches any. A
 * filter with other bytes is left to the plain match: a text that is not
 * UTF-8 could hide its characters from the index.
 */
#include <stdlib.h>
#include <string.h>

#include "dldb_read.h"

/* The views with a name index: the columns it holds (every filter column
 * the view has must be one of them). */
static const struct {
  dldb__nameidx ix;
  const char *view;
  const char *cols[4];
} nameidx[] = {
    {{"view_dl_op_names", "names"},
     "view_op_nodes",
     {"op_node_name", "op_node_type", "op_node_id", NULL}},
};

/* The shortest filter the index answers: a trigram. */
enum { NAMEIDX_MIN = 3 };

static int holds(const char *const *cols, const char *c) {
  for (; *cols; cols++)
    if (strcmp(*cols, c) == 0) return 1;
  return 0;
}

/* 1 when filter has NAMEIDX_MIN bytes or more, each ASCII. */
static int answerable(const char *filter) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)filter; *p; p++, n++)
    if (*p >= 0x80) return 0;
  return n >= NAMEIDX_MIN;
}

const dldb__nameidx *dldb__nameidx_for(dldb *db, const char *view, const char *const *cols,
                                       int n, const char *filter) {
  if (!filter || !answerable(filter) || n <= 0) return NULL;
  for (size_t i = 0; i < sizeof nameidx / sizeof *nameidx; i++) {
    if (strcmp(nameidx[i].view, view) != 0) continue;
    for (int c = 0; c < n; c++)
      if (!holds(nameidx[i].cols, cols[c])) return NULL;
    /* a file read by an SQLite without FTS5 cannot read the index */
    return sqlite3_compileoption_used("ENABLE_FTS5") &&
                   dldb__view_exists(db, nameidx[i].ix.index) == 1
               ? &nameidx[i].ix
               : NULL;
  }
  return NULL;
}

char *dldb__nameidx_string(const char *filter) {
  size_t n = 3;
  for (const char *p = filter; *p; p++) n += *p == '"' ? 2 : 1;
  char *s = malloc(n), *o = s;
  if (!s) return NULL;
  *o++ = '"';
  for (const char *p = filter; *p; p++) {
    *o++ = *p;
    if (*p == '"') *o++ = '"';
  }
  *o++ = '"';
  *o = '\0';
  return s;
}
