#ifndef HAUL_CCURL_SHIM_H
#define HAUL_CCURL_SHIM_H
// One non-variadic shim per C argument type of curl's variadic option and info calls, so
// Swift can call them with exact types. Logic stays in Swift.
#include <curl/curl.h>

static inline CURLcode haul_easy_setopt_long(CURL *h, CURLoption o, long v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_pointer(CURL *h, CURLoption o, void *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_string(CURL *h, CURLoption o, const char *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_read_callback(CURL *h, CURLoption o, curl_read_callback v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_xferinfo_callback(CURL *h, CURLoption o, curl_xferinfo_callback v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_seek_callback(CURL *h, CURLoption o, curl_seek_callback v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode haul_easy_setopt_prereq_callback(CURL *h, CURLoption o, curl_prereq_callback v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLMcode haul_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
  return curl_multi_setopt(m, o, v);
}
static inline CURLcode haul_easy_getinfo_long(CURL *h, CURLINFO i, long *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode haul_easy_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode haul_easy_getinfo_string(CURL *h, CURLINFO i, char **v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode haul_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) {
  return curl_easy_getinfo(h, i, v);
}
// CURLVERSION_NOW is a macro naming an enum constant, which Swift does not import.
static inline curl_version_info_data *haul_curl_version_info_now(void) {
  return curl_version_info(CURLVERSION_NOW);
}
// CURLPAUSE_CONT combines two macros, which Swift does not import.
static inline CURLcode haul_easy_unpause(CURL *h) {
  return curl_easy_pause(h, CURLPAUSE_CONT);
}
// From OpenSSL's <openssl/ssl.h> (libssl, which the OpenSSL flavour of libcurl links), declared
// here alone so that this module does not pull in OpenSSL's headers beside CCrypto's.
struct ssl_st;
void SSL_get0_alpn_selected(const struct ssl_st *ssl, const unsigned char **data,
                            unsigned int *len);
// Whether the TLS connection of the transfer on `h` agreed on HTTP/2 by ALPN ("h2"), which
// libcurl 7.88 tells through CURLINFO_HTTP_VERSION only once the response's status line was
// parsed. Valid once the transfer has its connection (CURLOPT_PREREQFUNCTION); 0 without
// TLS, under another TLS backend than OpenSSL, or for HTTP/1.1.
static inline int haul_easy_alpn_is_h2(CURL *h) {
  struct curl_tlssessioninfo *info = 0;
  if(curl_easy_getinfo(h, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info) return 0;
  if(info->backend != CURLSSLBACKEND_OPENSSL || !info->internals) return 0;
  const unsigned char *name = 0;
  unsigned int length = 0;
  SSL_get0_alpn_selected((const struct ssl_st *)info->internals, &name, &length);
  return length == 2 && name[0] == 'h' && name[1] == '2';
}
#endif
