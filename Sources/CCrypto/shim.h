#ifndef HAUL_CCRYPTO_SHIM_H
#define HAUL_CCRYPTO_SHIM_H
// OpenSSL's EVP digest API: SHA-256 for verification while streaming.
#include <openssl/evp.h>
#endif
