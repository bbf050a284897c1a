/*
 * auth.h - the access token (Jupyter's model) of a dlprofviewer that serves
 * a network.
 *
 * A viewer bound to a non-loopback address requires a token unless told
 * otherwise (--no-token): a random one is made at start and printed inside
 * the URL to share (http://HOST:PORT/?token=T); --token T sets one. A
 * request is let in when its query string carries token=T or its Cookie
 * header carries the cookie dlv_auth_cookie_name() = T; a request that came
 * with the right query token gets the cookie (HttpOnly, SameSite=Strict,
 * Path=/), so the page's own requests need no token in their URLs.
 * Comparisons take the same time whatever the bytes.
 *
 * Pure functions over strings; no ownership beyond the caller's buffers.
 */
#ifndef DLV_AUTH_H
#define DLV_AUTH_H

#include <stddef.h>

#define DLV_TOKEN_MIN 8
#define DLV_TOKEN_MAX 128
#define DLV_TOKEN_RANDOM_BYTES 24 /* 48 hex characters */

/* 1 if addr (dotted IPv4) is a loopback address (127.0.0.0/8). */
int dlv_addr_is_loopback(const char *addr);

/* 1 if t is an acceptable token: DLV_TOKEN_MIN..DLV_TOKEN_MAX characters
 * from A-Z a-z 0-9 . _ ~ - (safe in a URL and a cookie unescaped). */
int dlv_token_valid(const char *t);

/* Writes a new random token (hex of DLV_TOKEN_RANDOM_BYTES bytes from the
 * kernel's generator) into out. Returns 0, or -1 when no randomness is
 * available (out is then ""). */
int dlv_token_random(char *out, size_t len);

/* "dlprofviewer_token_PORT": one cookie per port, since cookies ignore ports. */
void dlv_auth_cookie_name(int port, char *out, size_t len);

/* Equal strings, in time that depends only on their lengths. */
int dlv_token_equal(const char *a, const char *b);

/* 1 if the raw query string has a parameter token whose decoded value is
 * token. */
int dlv_auth_query_ok(const char *query, const char *token);

/* 1 if a Cookie header value has cookie `name` with value token. */
int dlv_auth_cookie_ok(const char *cookie_header, const char *name, const char *token);

#endif
