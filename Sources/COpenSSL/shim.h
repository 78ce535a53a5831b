#ifndef FERRY_COPENSSL_SHIM_H
#define FERRY_COPENSSL_SHIM_H
// OpenSSL 3 from the system (Debian/Ubuntu: libssl-dev).
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/pkcs12.h>
#endif
