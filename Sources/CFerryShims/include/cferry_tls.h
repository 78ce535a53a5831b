#ifndef CFERRY_TLS_H
#define CFERRY_TLS_H
// One-line wrappers for the OpenSSL macros FerryTLS's client connection needs.
#include <openssl/ssl.h>
#include <openssl/bio.h>
#include <openssl/err.h>

/// SSL_CTX_set_min_proto_version.
static inline int cferry_ssl_ctx_set_min_proto(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }
/// SSL_CTX_set_max_proto_version.
static inline int cferry_ssl_ctx_set_max_proto(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
/// SSL_OP_NO_RENEGOTIATION, set on a context.
static inline void cferry_ssl_ctx_no_renegotiation(SSL_CTX *ctx) { SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION); }
/// SSL_CTX_set_mode.
static inline long cferry_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
/// SSL_CTX_set_session_cache_mode.
static inline long cferry_ssl_ctx_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
/// SSL_CTX_add1_chain_cert.
static inline int cferry_ssl_ctx_add1_chain_cert(SSL_CTX *ctx, X509 *x509) { return (int)SSL_CTX_add1_chain_cert(ctx, x509); }
/// SSL_add1_chain_cert: an intermediate sent with this connection's client certificate.
static inline int cferry_ssl_add1_chain_cert(SSL *ssl, X509 *x509) { return (int)SSL_add1_chain_cert(ssl, x509); }
/// SSL_set_tlsext_host_name: the SNI name.
static inline int cferry_ssl_set_sni(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
/// BIO_set_mem_eof_return: what an empty memory BIO returns (-1: "retry", not end of file).
static inline long cferry_bio_set_mem_eof_return(BIO *bio, int value) { return BIO_set_mem_eof_return(bio, value); }
/// SSL_set_retry_verify: suspend the handshake from the certificate verification callback.
static inline int cferry_ssl_set_retry_verify(SSL *ssl) { return SSL_set_retry_verify(ssl); }
/// SSL_ERROR_WANT_RETRY_VERIFY.
static inline int cferry_ssl_error_want_retry_verify(void) { return SSL_ERROR_WANT_RETRY_VERIFY; }
/// ERR_GET_LIB of an error-queue code.
static inline int cferry_err_get_lib(unsigned long code) { return ERR_GET_LIB(code); }

/// Makes the connection read its ciphertext straight from the socket `fd` (a BIO that does not
/// own it) instead of its memory BIO, which SSL_set0_rbio frees: call only when that holds
/// nothing. Read-ahead lets one read(2) fill the whole record buffer, and an EOF without
/// close_notify reads as an end (SSL_ERROR_ZERO_RETURN), as the socket's own EOF did before:
/// HTTP's framing decides whether the body was complete. Returns 1, or 0 when out of memory.
static inline int cferry_ssl_read_from_socket(SSL *ssl, int fd) {
    BIO *bio = BIO_new_socket(fd, BIO_NOCLOSE);
    if (bio == NULL) return 0;
    SSL_set0_rbio(ssl, bio);
    SSL_set_read_ahead(ssl, 1);
    SSL_set_options(ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
    return 1;
}

/// The modes and constants Swift cannot see as plain values.
static inline long cferry_ssl_mode_release_buffers(void) { return SSL_MODE_RELEASE_BUFFERS; }
static inline long cferry_ssl_sess_cache_client_external(void) { return SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE; }
static inline int cferry_err_lib_ssl(void) { return ERR_LIB_SSL; }
#endif
