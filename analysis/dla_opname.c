/*
 * dla_opname.c - parsing NVTX range texts into op path, type, direction and
 * data type (see dla_opname.h).
 */
#include "dla_opname.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A key's byte: lower-case ASCII letter, digit or '_' (islower and
 * isdigit in the C locale, without their calls: millions of texts). */
static inline int key_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static void copy_trunc(char *dst, size_t cap, const char *src, size_t n) {
  if (n >= cap) n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* The first ", key = " suffix (a lower-case identifier) at or after p
 * (NULL: none). Found from its '=', rare in texts (strchr skips a sizes
 * list's many commas at once), the key and ", " checked back from it: a
 * key is the run of key bytes before " = ", so one '=' has at most one. */
static const char *next_kv(const char *p) {
  for (const char *e = strchr(p, '='); e; e = strchr(e + 1, '=')) {
    if (e - p < 4 || e[-1] != ' ' || e[1] != ' ') continue;
    const char *k = e - 1;
    while (k > p && key_byte(k[-1])) k--;
    if (k < e - 1 && k - p >= 2 && k[-1] == ' ' && k[-2] == ',') return k - 2;
  }
  return NULL;
}

/* Values of ", key = VALUE" suffixes (a value runs up to the next
 * ", key = "), from kv, which starts a suffix (NULL: none), to the end:
 * one pass for all n keys, which ends when each is found. The first suffix
 * of keys[i] puts its value in bufs[i] (caps[i] bytes, cut to fit) and sets
 * bit i of the result. */
static unsigned kv_values(const char *kv, int n, const char *const *keys, char **bufs,
                          const size_t *caps) {
  unsigned found = 0, all = (1u << n) - 1;
  while (kv && found != all) {
    const char *k = kv + 2, *eq = strchr(k, ' '); /* next_kv: " = " follows the key */
    const char *v = eq + 3, *next = next_kv(v);
    size_t kl = (size_t)(eq - k);
    for (int i = 0; i < n; i++)
      if (!(found >> i & 1) && strlen(keys[i]) == kl && memcmp(k, keys[i], kl) == 0) {
        copy_trunc(bufs[i], caps[i], v, next ? (size_t)(next - v) : strlen(v));
        found |= 1u << i;
      }
    kv = next;
  }
  return found;
}

static int contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  int first = tolower((unsigned char)needle[0]);
  for (; *hay; hay++)
    if (tolower((unsigned char)*hay) == first && strncasecmp(hay, needle, n) == 0) return 1;
  return 0;
}

void dla_opname_parse(const char *text, dla_opname *out) {
  if (!text) text = "";
  /* each field is set below (no memset: the struct is 1.3 KB, and millions
   * of emit_nvtx texts are parsed) */
  out->data_type[0] = '\0';
  out->seq = -1;
  out->fwd_tid = -1;
  const char *cut = next_kv(text);
  copy_trunc(out->path, sizeof out->path, text, cut ? (size_t)(cut - text) : strlen(text));
  if (cut) {
    static const char *const keys[] = {"seq", "dtype", "fwd_tid"};
    char v[64], f[32];
    char *bufs[] = {v, out->data_type, f};
    const size_t caps[] = {sizeof v, sizeof out->data_type, sizeof f};
    unsigned got = kv_values(cut, 3, keys, bufs, caps);
    if (got & 1) out->seq = strtoll(v, NULL, 10);
    if (got & 4) out->fwd_tid = strtoll(f, NULL, 10);
  }
  /* type: last path element without a trailing '/' */
  size_t plen = strlen(out->path);
  while (plen > 1 && out->path[plen - 1] == '/') plen--;
  const char *last = out->path;
  for (size_t i = 0; i + 1 < plen; i++)
    if (out->path[i] == '/') last = out->path + i + 1;
  size_t tlen = plen - (size_t)(last - out->path);
  /* a last element of digits only is no type but part of a name that holds
   * a '/' ("Torch-Compiled Region: 0/0", torch.compile's frame/compile id):
   * the whole text is the type */
  int digits = tlen > 0;
  for (size_t i = 0; i < tlen && digits; i++) digits = isdigit((unsigned char)last[i]) != 0;
  if (digits && last > out->path) {
    last = out->path;
    tlen = plen;
  }
  /* strip a lower-case namespace such as aten::, prim::, c10d:: */
  const char *colons = NULL;
  for (size_t i = 0; i + 1 < tlen; i++)
    if (last[i] == ':' && last[i + 1] == ':') {
      colons = last + i;
      break;
    }
  if (colons) {
    int ns = colons > last;
    for (const char *q = last; q < colons; q++)
      if (!(islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_')) ns = 0;
    if (ns) {
      tlen -= (size_t)(colons + 2 - last);
      last = colons + 2;
    }
  }
  copy_trunc(out->type, sizeof out->type, last, tlen);
  out->direction =
      strstr(out->path, "Backward") || strstr(out->path, "backward") ? "bprop" : "fprop";
  out->is_dataloader = contains_ci(out->path, "dataloader");
}

void dla_opname_id_prefix(const char *type, char *buf, size_t buflen) {
  size_t i = 0;
  for (; type[i] && i + 1 < buflen; i++) {
    unsigned char c = (unsigned char)toupper((unsigned char)type[i]);
    buf[i] = (char)(isalnum(c) && c < 128 ? c : '_');
  }
  buf[i] = '\0';
}

/* ---- DLProf markers: Python dict reprs and JSON -------------------------------- */

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* Reads a quoted string (' or ") at p into out (truncated to cap, may be
 * NULL); returns the position after the closing quote, or NULL. */
static const char *read_str(const char *p, char *out, size_t cap) {
  char q = *p;
  if (q != '\'' && q != '"') return NULL;
  size_t n = 0;
  for (p++; *p && *p != q; p++) {
    char ch = *p;
    if (ch == '\\' && p[1]) {
      p++;
      ch = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
    }
    if (out && n + 1 < cap) out[n++] = ch;
  }
  if (out && cap) out[n] = '\0';
  return *p == q ? p + 1 : NULL;
}

/* The end of the value at p: a string, a bracketed value with nesting, or a
 * bare token up to ',', '}' or ']'. NULL when unterminated. */
static const char *skip_value(const char *p) {
  p = skip_ws(p);
  if (*p == '\'' || *p == '"') return read_str(p, NULL, 0);
  if (*p == '[' || *p == '(' || *p == '{') {
    int depth = 0;
    while (*p) {
      if (*p == '\'' || *p == '"') {
        p = read_str(p, NULL, 0);
        if (!p) return NULL;
        continue;
      }
      if (*p == '[' || *p == '(' || *p == '{') depth++;
      else if (*p == ']' || *p == ')' || *p == '}') {
        if (--depth == 0) return p + 1;
      }
      p++;
    }
    return NULL;
  }
  while (*p && *p != ',' && *p != '}' && *p != ']') p++;
  return p;
}

/* The value of top-level key in the dict starting at p ('{'), or NULL. */
static const char *dict_find(const char *p, const char *key) {
  p = skip_ws(p);
  if (*p != '{') return NULL;
  p++;
  char k[64];
  for (;;) {
    p = skip_ws(p);
    if (*p != '\'' && *p != '"') return NULL;
    p = read_str(p, k, sizeof k);
    if (!p) return NULL;
    p = skip_ws(p);
    if (*p != ':') return NULL;
    p = skip_ws(p + 1);
    if (strcmp(k, key) == 0) return p;
    p = skip_value(p);
    if (!p) return NULL;
    p = skip_ws(p);
    if (*p != ',') return NULL;
    p++;
  }
}

static int starts_dict_key(const char *text, const char *key) {
  const char *p = skip_ws(text);
  if (*p != '{') return 0;
  p = skip_ws(p + 1);
  if (*p != '\'' && *p != '"') return 0;
  size_t n = strlen(key);
  return strncmp(p + 1, key, n) == 0 && p[1 + n] == p[0];
}

dla_text_kind dla_opname_kind(const char *text) {
  if (!text) return DLA_TEXT_PLAIN;
  if (text[0] == '{') {
    if (starts_dict_key(text, "traceMarker")) return DLA_TEXT_DLPROF_SCOPE;
    if (starts_dict_key(text, "mod") || starts_dict_key(text, "op")) return DLA_TEXT_DLPROF_OP;
    if (starts_dict_key(text, "model_config")) return DLA_TEXT_CONFIG;
    return DLA_TEXT_PLAIN;
  }
  if (strncmp(text, "autograd::engine::evaluate_function: ", 37) == 0) return DLA_TEXT_WRAPPER;
  /* a lower-case namespace: aten::, prim::, c10d::, torchvision:: */
  const char *p = text;
  while (islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_') p++;
  if (p > text && p[0] == ':' && p[1] == ':') return DLA_TEXT_EMIT_NVTX;
  return next_kv(text) ? DLA_TEXT_EMIT_NVTX : DLA_TEXT_PLAIN;
}

int dla_dlprof_op_parse(const char *text, dla_dlprof_op *out) {
  memset(out, 0, sizeof *out);
  if (!text) return -1;
  const char *v = dict_find(text, "op");
  if (!v || !read_str(v, out->op, sizeof out->op)) return -1;
  if ((v = dict_find(text, "mod"))) read_str(v, out->mod, sizeof out->mod);
  if ((v = dict_find(text, "args"))) {
    const char *e = skip_value(v);
    if (e) {
      out->args = v;
      out->args_len = (size_t)(e - v);
      /* the first 'dtype' inside the args */
      for (const char *p = v; p + 8 < e; p++)
        if ((p[0] == '\'' || p[0] == '"') && strncmp(p + 1, "dtype", 5) == 0 && p[6] == p[0]) {
          const char *q = skip_ws(p + 7);
          if (*q == ':' && read_str(skip_ws(q + 1), out->data_type, sizeof out->data_type))
            break;
          out->data_type[0] = '\0';
        }
    }
  }
  return 0;
}

/* Appends s[0..n) to dst (len, cap), truncating. */
static void append(char *dst, size_t cap, size_t *len, const char *s, size_t n) {
  if (*len + 1 >= cap) return;
  if (n > cap - 1 - *len) n = cap - 1 - *len;
  memcpy(dst + *len, s, n);
  *len += n;
  dst[*len] = '\0';
}

int dla_dlprof_scope_parse(const char *text, char *path, size_t pathcap, char *stack,
                           size_t stackcap) {
  if (pathcap) path[0] = '\0';
  if (stackcap) stack[0] = '\0';
  if (!text || dla_opname_kind(text) != DLA_TEXT_DLPROF_SCOPE) return -1;
  const char *v = dict_find(text, "funcStack");
  char *raw = malloc(4096);
  if (!raw) return -1;
  raw[0] = '\0';
  if (v) read_str(v, raw, 4096);
  /* each element: "<x>" -> "x", a trailing "(N)" -> "[N]" */
  size_t len = 0;
  for (const char *p = raw; *p;) {
    if (*p == '/') {
      append(path, pathcap, &len, "/", 1);
      p++;
      continue;
    }
    const char *e = p;
    while (*e && *e != '/') e++;
    const char *s = p, *t = e;
    if (*s == '<' && t > s + 1 && t[-1] == '>') {
      s++;
      t--;
    }
    const char *paren = NULL;
    if (t - s >= 3 && t[-1] == ')') {
      const char *q = t - 2;
      while (q > s && isdigit((unsigned char)*q)) q--;
      if (*q == '(' && q < t - 2) paren = q;
    }
    if (paren) {
      append(path, pathcap, &len, s, (size_t)(paren - s));
      append(path, pathcap, &len, "[", 1);
      append(path, pathcap, &len, paren + 1, (size_t)(t - 2 - paren));
      append(path, pathcap, &len, "]", 1);
    } else {
      append(path, pathcap, &len, s, (size_t)(t - s));
    }
    p = e;
  }
  free(raw);
  /* traceMarker: ['a', 'b'] -> "a\nb" */
  size_t slen = 0;
  const char *p = dict_find(text, "traceMarker");
  if (p && *p == '[') {
    char frame[1024];
    p = skip_ws(p + 1);
    while (p && (*p == '\'' || *p == '"')) {
      p = read_str(p, frame, sizeof frame);
      if (!p) break;
      if (slen) append(stack, stackcap, &slen, "\n", 1);
      append(stack, stackcap, &slen, frame, strlen(frame));
      p = skip_ws(p);
      if (*p != ',') break;
      p = skip_ws(p + 1);
    }
  }
  return 0;
}

int dla_kineto_stack(const char *in, char *out, size_t cap) {
  if (!cap) return 0;
  out[0] = '\0';
  if (!in) return 0;
  size_t len = 0;
  int frames = 0;
  const char *end = in + strlen(in);
  while (end > in) { /* frames from the last (outermost) */
    const char *b = end;
    while (b > in && b[-1] != ';') b--;
    const char *s = b, *e = end;
    end = b > in ? b - 1 : in;
    while (s < e && isspace((unsigned char)*s)) s++;
    while (e > s && isspace((unsigned char)e[-1])) e--;
    if (s == e) continue;
    /* "file(line): function" -> "file:line" */
    const char *file_end = e, *line = NULL;
    size_t line_len = 0;
    for (const char *q = s; q + 3 < e; q++) {
      if (*q != '(' || !isdigit((unsigned char)q[1])) continue;
      const char *d = q + 1;
      while (d < e && isdigit((unsigned char)*d)) d++;
      if (d + 1 < e && d[0] == ')' && d[1] == ':') {
        file_end = q;
        line = q + 1;
        line_len = (size_t)(d - line);
      }
    }
    size_t need = (size_t)(file_end - s) + (line ? 1 + line_len : 0) + (frames ? 1 : 0);
    if (len + need >= cap) break;
    if (frames) out[len++] = '\n';
    memcpy(out + len, s, (size_t)(file_end - s));
    len += (size_t)(file_end - s);
    if (line) {
      out[len++] = ':';
      memcpy(out + len, line, line_len);
      len += line_len;
    }
    out[len] = '\0';
    frames++;
  }
  return frames;
}

static int json_flag(const char *dict, const char *key, int *out) {
  const char *v = dict_find(dict, key);
  if (!v) return 0;
  if (strncmp(v, "true", 4) == 0 || strncmp(v, "True", 4) == 0) *out = 1;
  else if (strncmp(v, "false", 5) == 0 || strncmp(v, "False", 5) == 0) *out = 0;
  else if (isdigit((unsigned char)*v)) *out = atoi(v) != 0;
  else return 0;
  return 1;
}

void dla_model_config_parse(const char *text, dla_model_config *cfg) {
  if (!text || dla_opname_kind(text) != DLA_TEXT_CONFIG) return;
  const char *d = dict_find(text, "model_config");
  if (!d) return;
  json_flag(d, "emit_nvtx", &cfg->emit_nvtx);
  json_flag(d, "amp_enabled", &cfg->amp_enabled);
  json_flag(d, "pin_memory", &cfg->pin_memory);
  json_flag(d, "cudnn_benchmark", &cfg->cudnn_benchmark);
  int disabled;
  if (json_flag(d, "cudnn_benchmark_disabled", &disabled)) cfg->cudnn_benchmark = !disabled;
  const char *v = dict_find(d, "num_workers");
  if (v && isdigit((unsigned char)*v)) cfg->num_workers = strtoll(v, NULL, 10);
}

int dla_opname_is_backward(const char *path) {
  if (!path) return 0;
  const char *last = strrchr(path, '/');
  last = last ? last + 1 : path;
  const char *b = strstr(last, "Backward");
  if (!b || b == last) return 0;
  for (b += 8; *b; b++)
    if (!isdigit((unsigned char)*b)) return 0;
  return 1;
}

int64_t dla_opname_seq(const char *text) {
  if (!text) return -1;
  static const char *const keys[] = {"seq"};
  char v[32];
  char *bufs[] = {v};
  const size_t caps[] = {sizeof v};
  return kv_values(next_kv(text), 1, keys, bufs, caps) ? strtoll(v, NULL, 10) : -1;
}

/* ---- Op shapes (DLProf's iteration report) --------------------------------- */

typedef struct sbuf {
  char *s;
  size_t len, cap;
  int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1) cap *= 2;
    char *t = realloc(b->s, cap);
    if (!t) {
      b->oom = 1;
      return;
    }
    b->s = t;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* A new "" or the buffer's string (NULL when out of memory). */
static char *sb_take(sbuf *b) {
  if (b->oom) {
    free(b->s);
    return NULL;
  }
  return b->s ? b->s : strdup("");
}

enum { SHAPE_MAX_DIMS = 16, SHAPE_MAX_TENSORS = 4 };

typedef struct shape {
  int n;                  /* dimensions, -1: unreadable */
  long long d[SHAPE_MAX_DIMS];
} shape;

/* Reads a tuple or list of integers at p ("(6, 3)", "(6,)", "[2]"). */
static void read_shape(const char *p, shape *s) {
  s->n = -1;
  p = skip_ws(p);
  char close = *p == '(' ? ')' : *p == '[' ? ']' : 0;
  if (!close) return;
  int n = 0;
  for (p = skip_ws(p + 1); *p != close; p = skip_ws(p)) {
    char *e;
    long long v = strtoll(p, &e, 10);
    if (e == p || n == SHAPE_MAX_DIMS) return;
    s->d[n++] = v;
    p = skip_ws(e);
    if (*p == ',') p++;
    else if (*p != close) return;
  }
  s->n = n;
}

/* "<L0:d0, L1:d1>" with the labels of layout fmt ("N,C,H,W") when it has
 * exactly as many labels as s has dimensions, else "<d0, d1>". */
static void put_shape(sbuf *b, const shape *s, const char *fmt) {
  char lab[SHAPE_MAX_DIMS][8];
  int nl = 0;
  for (const char *f = fmt; f && *f && nl < SHAPE_MAX_DIMS;) {
    size_t k = strcspn(f, ",");
    snprintf(lab[nl++], sizeof lab[0], "%.*s", (int)(k < 7 ? k : 7), f);
    f += k + (f[k] == ',');
  }
  int use = fmt && nl == s->n;
  char num[32];
  sb_str(b, "<");
  for (int i = 0; i < s->n; i++) {
    if (i) sb_str(b, ", ");
    if (use) {
      sb_str(b, lab[i]);
      sb_str(b, ":");
    }
    snprintf(num, sizeof num, "%lld", s->d[i]);
    sb_str(b, num);
  }
  sb_str(b, ">");
}

int dla_dlprof_shapes(const dla_dlprof_op *m, char **in, char **params, char **out) {
  /* DLProf's layouts (its read_only_ops data/output formats, w_Relu) */
  static const struct {
    const char *type, *in[2], *out;
  } layouts[] = {{"conv2d", {"N,C,H,W", "K,C,R,S"}, "N,K,P,Q"}, {"linear", {"N,K", "M,K"}, "N,M"}};
  *in = *params = *out = NULL;
  int lay = -1;
  for (int i = 0; i < (int)(sizeof layouts / sizeof layouts[0]); i++)
    if (strcmp(m->op, layouts[i].type) == 0) lay = i;
  sbuf bi = {0}, bo = {0};
  shape t[SHAPE_MAX_TENSORS];
  int nt = 0, ntensor = 0, other = 0;
  const char *p = m->args ? skip_ws(m->args) : NULL;
  const char *end = m->args ? m->args + m->args_len : NULL;
  if (p && *p == '[') {
    for (p = skip_ws(p + 1); p < end && *p && *p != ']';) {
      const char *e = skip_value(p);
      if (!e || e > end || e == p) break; /* e == p: a stray '}' or ',' would loop forever */
      char ty[32] = "";
      const char *v = dict_find(p, "type");
      if (v) read_str(v, ty, sizeof ty);
      if (strcmp(ty, "tensor") == 0 && (v = dict_find(p, "shape"))) {
        shape s;
        read_shape(v, &s);
        if (s.n >= 0) {
          if (ntensor) sb_str(&bi, "; ");
          put_shape(&bi, &s, lay >= 0 && ntensor < 2 ? layouts[lay].in[ntensor] : NULL);
          if (nt < SHAPE_MAX_TENSORS) t[nt++] = s;
          ntensor++;
        } else {
          other = 1;
        }
      } else {
        other = 1;
      }
      p = skip_ws(e);
      if (*p == ',') p = skip_ws(p + 1);
    }
  }
  /* Output: conv2d with stride 1, no padding, dilation 1 (nothing in the
   * marker says otherwise); linear: the input's leading dims, then M. */
  int known_out = 1;
  if (lay == 0) {
    known_out = !other && nt >= 2 && t[0].n == 4 && t[1].n == 4 && t[0].d[2] >= t[1].d[2] &&
                t[0].d[3] >= t[1].d[3];
    if (known_out) {
      shape o = {4, {t[0].d[0], t[1].d[0], t[0].d[2] - t[1].d[2] + 1, t[0].d[3] - t[1].d[3] + 1}};
      put_shape(&bo, &o, layouts[0].out);
    }
  } else if (lay == 1) {
    known_out = nt >= 2 && t[0].n >= 1 && t[1].n == 2;
    if (known_out) {
      shape o = t[0];
      o.d[o.n - 1] = t[1].d[0];
      put_shape(&bo, &o, layouts[1].out);
    }
  }
  *in = sb_take(&bi);
  *out = known_out ? sb_take(&bo) : NULL;
  *params = other ? NULL : strdup("");
  if (!*in || (known_out && !*out) || (!other && !*params)) {
    free(*in);
    free(*out);
    free(*params);
    *in = *params = *out = NULL;
    return -1;
  }
  return 0;
}

int dla_opname_key_match(const char *key, const char *path) {
  size_t n = strlen(key);
  if (n < 2 || key[n - 1] != '#' || strncmp(path, key, n) != 0) return 0;
  const char *p = path + n;
  if (!*p) return 0;
  for (; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  return 1;
}
