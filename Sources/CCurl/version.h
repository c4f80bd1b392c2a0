#ifndef HAUL_CCURL_VERSION_H
#define HAUL_CCURL_VERSION_H
// libcurl's run-time version record for `haul --version`. CURLVERSION_NOW is a macro naming
// an enum constant, which Swift does not import, so it is passed here.
#include <curl/curl.h>

static inline const curl_version_info_data *haul_curl_version_info(void) {
  return curl_version_info(CURLVERSION_NOW);
}
#endif
