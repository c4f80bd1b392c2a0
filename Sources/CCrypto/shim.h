#ifndef HAUL_CCRYPTO_SHIM_H
#define HAUL_CCRYPTO_SHIM_H
// OpenSSL's EVP digest API: SHA-256, SHA-512, SHA-1 and MD5 for verification while
// streaming; and OpenSSL_version, which `haul --version` prints.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>

// The digest method named `name` ("SHA256", "SHA512", "SHA1", "MD5"), looked up once by the
// caller and kept: OpenSSL 3 fetches it from the default provider (an explicit fetch spares
// every EVP_DigestInit_ex the implicit one); OpenSSL 1.1 looks the name up in its table.
// NULL when the library has no such digest.
static inline const EVP_MD *haul_digest_method(const char *name) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  return EVP_MD_fetch(NULL, name, NULL);
#else
  return EVP_get_digestbyname(name);
#endif
}

// OpenSSL's one-shot HMAC: HMAC-SHA256 for AWS Signature Version 4.
#include <openssl/hmac.h>
#endif
