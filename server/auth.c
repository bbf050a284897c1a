/* auth.c - the access token (see auth.h). */
#include "auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "params.h"

int dlv_addr_is_loopback(const char *addr) {
  struct in_addr a;
  if (inet_pton(AF_INET, addr, &a) != 1) return 0;
  return (ntohl(a.s_addr) >> 24) == 127;
}

int dlv_token_valid(const char *t) {
  size_t n = strlen(t);
  if (n < DLV_TOKEN_MIN || n > DLV_TOKEN_MAX) return 0;
  for (const char *p = t; *p; p++) {
    char c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '.' || c == '_' || c == '~' || c == '-'))
      return 0;
  }
  return 1;
}

int dlv_token_random(char *out, size_t len) {
  unsigned char bytes[DLV_TOKEN_RANDOM_BYTES];
  size_t got = 0;
  if (len) out[0] = '\0';
  if (len < 2 * sizeof bytes + 1) return -1;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  for (size_t i = 0; i < sizeof bytes; i++) snprintf(out + 2 * i, 3, "%02x", bytes[i]);
  return 0;
}

void dlv_auth_cookie_name(int port, char *out, size_t len) {
  snprintf(out, len, "dlprofviewer_token_%d", port);
}

int dlv_token_equal(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  unsigned char diff = na != nb;
  for (size_t i = 0; i < na; i++) diff |= (unsigned char)(a[i] ^ (i < nb ? b[i] : 0));
  return diff == 0;
}

int dlv_auth_query_ok(const char *query, const char *token) {
  char buf[DLV_TOKEN_MAX + 8];
  for (const char *p = query; p && *p;) {
    size_t n = strcspn(p, "&");
    if (n > 6 && strncmp(p, "token=", 6) == 0 && n - 6 < sizeof buf) {
      memcpy(buf, p + 6, n - 6);
      buf[n - 6] = '\0';
      if (dlv_url_decode(buf) == 0 && dlv_token_equal(buf, token)) return 1;
    }
    p += n + (p[n] == '&');
  }
  return 0;
}

int dlv_auth_cookie_ok(const char *header, const char *name, const char *token) {
  size_t nn = strlen(name);
  for (const char *p = header; p && *p;) {
    p += strspn(p, " \t;");
    size_t n = strcspn(p, ";");
    if (n > nn && strncmp(p, name, nn) == 0 && p[nn] == '=') {
      char buf[DLV_TOKEN_MAX + 8];
      const char *v = p + nn + 1;
      size_t vn = n - nn - 1;
      while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t')) vn--;
      if (vn < sizeof buf) {
        memcpy(buf, v, vn);
        buf[vn] = '\0';
        if (dlv_token_equal(buf, token)) return 1;
      }
    }
    p += n;
  }
  return 0;
}
