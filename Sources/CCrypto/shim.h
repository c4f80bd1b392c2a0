#ifndef HAUL_CCRYPTO_SHIM_H
#define HAUL_CCRYPTO_SHIM_H
// OpenSSL's EVP digest API: SHA-256 for verification while streaming; and OpenSSL_version,
// which `haul --version` prints.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#endif
