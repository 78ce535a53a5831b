#ifndef CFERRY_SSL_H
#define CFERRY_SSL_H
// One-line wrappers for OpenSSL macros Swift cannot import (FerryTLS).
#include <openssl/x509.h>
#include <openssl/err.h>
#include <openssl/pem.h>

/// XN_FLAG_RFC2253: print an X509_NAME as one-line RFC 2253 text.
static inline unsigned long cferry_xn_flag_rfc2253(void) { return XN_FLAG_RFC2253; }
/// ERR_GET_REASON of an error-queue code.
static inline int cferry_err_get_reason(unsigned long code) { return ERR_GET_REASON(code); }
/// True when `code` is PEM's "no start line": the input held no further PEM block of that type.
static inline int cferry_err_is_pem_no_start_line(unsigned long code) { return ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE; }
#endif
