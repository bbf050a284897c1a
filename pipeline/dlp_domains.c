/* dlp_domains.c - the NVTX domains of --domains (dlp_internal.h): a
 * comma-separated list, each aggregated on its own, and the file-name part
 * that keeps each domain's reports apart. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "dlp_internal.h"

int dlp_domain_count(const dlp_opts *o) {
  char buf[DLP_DOMAIN_MAX];
  int n = 0;
  while (n < DLP_MAX_DOMAINS && dlp_domain_at(o, n, buf, sizeof buf)) n++;
  return n;
}

int dlp_domain_at(const dlp_opts *o, int i, char *buf, size_t len) {
  const char *s = o->domains;
  if (!s || !*s) return 0;
  for (int k = 0; k < i; k++) {
    s = strchr(s, ',');
    if (!s) return 0;
    s++;
  }
  size_t n = strcspn(s, ",");
  if (n == 0 || n >= len) return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  return 1;
}

void dlp_domain_infix(const char *domain, char *buf, size_t len) {
  size_t k = 0;
  if (len) buf[0] = '\0';
  if (!domain || len < 2) return;
  buf[k++] = '_';
  for (const char *s = domain; *s && k + 1 < len; s++)
    buf[k++] = isalnum((unsigned char)*s) || *s == '-' || *s == '.' ? *s : '_';
  buf[k] = '\0';
}
