// bench-c: the floor. A minimal blocking HTTP/1.1 client in C on the system's OpenSSL, with
// full certificate verification, speaking the same command-line contract as the Swift clients
// (BenchSupport/ClientOptions.swift):
//
//   bench-c --url URL --count N [--concurrency C] --body-bytes B [--mode memory|stream|download]
//           [--output FILE] [--cacert PEM] [--connection-close] [--no-resume]
//
// It does nothing a real client would not have to do: one blocking socket per connection,
// keep-alive unless told otherwise, a Host header, Content-Length bodies (what the benchmark's
// nginx sends), the body read into one reused buffer (or written to the file). With
// concurrency C, C threads each run their share of the requests on a connection of their own.
// What Ferry costs above this is what its engine, tasks and async plumbing cost. It prints
// `result requests=N bytes=B` and exits 0, or `error: …` on standard error and exits 1.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

enum mode { MODE_MEMORY, MODE_STREAM, MODE_DOWNLOAD };

struct options {
    int https;
    char host[256];
    int port;
    char path[1024];
    long count;
    int concurrency;
    long long body_bytes;
    enum mode mode;
    const char *output;
    const char *cacert;
    int connection_close;
    int resumes;
};

static struct options opts;
static SSL_CTX *ctx;

static void die(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("error: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static void parse_url(const char *url) {
    const char *rest;
    if (strncmp(url, "http://", 7) == 0) { opts.https = 0; opts.port = 80; rest = url + 7; }
    else if (strncmp(url, "https://", 8) == 0) { opts.https = 1; opts.port = 443; rest = url + 8; }
    else die("unsupported URL %s", url);
    const char *slash = strchr(rest, '/');
    size_t authority = slash ? (size_t)(slash - rest) : strlen(rest);
    const char *colon = memchr(rest, ':', authority);
    size_t host_length = colon ? (size_t)(colon - rest) : authority;
    if (host_length == 0 || host_length >= sizeof opts.host) die("bad host in %s", url);
    memcpy(opts.host, rest, host_length);
    opts.host[host_length] = 0;
    if (colon) opts.port = atoi(colon + 1);
    snprintf(opts.path, sizeof opts.path, "%s", slash ? slash : "/");
}

static void parse_arguments(int argc, char **argv) {
    const char *url = NULL;
    opts.concurrency = 1;
    opts.body_bytes = -1;
    opts.resumes = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--connection-close")) { opts.connection_close = 1; continue; }
        if (!strcmp(a, "--no-resume")) { opts.resumes = 0; continue; }
        if (!value) die("%s needs a value", a);
        i++;
        if (!strcmp(a, "--url")) url = value;
        else if (!strcmp(a, "--count")) opts.count = atol(value);
        else if (!strcmp(a, "--concurrency")) opts.concurrency = atoi(value) < 1 ? 1 : atoi(value);
        else if (!strcmp(a, "--body-bytes")) opts.body_bytes = atoll(value);
        else if (!strcmp(a, "--output")) opts.output = value;
        else if (!strcmp(a, "--cacert")) opts.cacert = value;
        else if (!strcmp(a, "--mode")) {
            if (!strcmp(value, "memory")) opts.mode = MODE_MEMORY;
            else if (!strcmp(value, "stream")) opts.mode = MODE_STREAM;
            else if (!strcmp(value, "download")) opts.mode = MODE_DOWNLOAD;
            else die("--mode: unknown mode %s", value);
        } else die("unknown argument %s", a);
    }
    if (!url || opts.count < 1 || opts.body_bytes < 0) die("--url, --count and --body-bytes are required");
    if (opts.mode == MODE_DOWNLOAD && !opts.output) die("--mode download needs --output");
    parse_url(url);
}

/// One connection: a socket, and TLS on it for https.
struct connection {
    int fd;
    SSL *ssl;
    char buffer[64 * 1024];
    size_t start, end;  // unread bytes of `buffer`
};

static ssize_t conn_read(struct connection *c, void *into, size_t length) {
    if (!c->ssl) {
        ssize_t n;
        do { n = read(c->fd, into, length); } while (n < 0 && errno == EINTR);
        return n;
    }
    int n = SSL_read(c->ssl, into, (int)length);
    if (n > 0) return n;
    return SSL_get_error(c->ssl, n) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

static void conn_write_all(struct connection *c, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n;
        if (c->ssl) {
            int w = SSL_write(c->ssl, bytes, (int)length);
            if (w <= 0) die("SSL_write failed");
            n = w;
        } else {
            n = write(c->fd, bytes, length);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) die("write: %s", strerror(errno));
        }
        bytes += n;
        length -= (size_t)n;
    }
}

static void conn_open(struct connection *c, SSL_SESSION **session) {
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)opts.port)};
    if (inet_pton(AF_INET, opts.host, &address.sin_addr) != 1) die("the host must be an IPv4 address: %s", opts.host);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0) die("socket: %s", strerror(errno));
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&address, sizeof address) != 0) die("connect: %s", strerror(errno));
    c->start = c->end = 0;
    c->ssl = NULL;
    if (!opts.https) return;
    c->ssl = SSL_new(ctx);
    if (!c->ssl) die("SSL_new");
    // Full verification: the chain to --cacert, and the address in the certificate's SANs.
    X509_VERIFY_PARAM *param = SSL_get0_param(c->ssl);
    if (X509_VERIFY_PARAM_set1_ip_asc(param, opts.host) != 1) die("X509_VERIFY_PARAM_set1_ip_asc");
    SSL_set_verify(c->ssl, SSL_VERIFY_PEER, NULL);
    SSL_set_fd(c->ssl, c->fd);
    if (opts.resumes && *session) SSL_set_session(c->ssl, *session);
    if (SSL_connect(c->ssl) != 1) die("TLS handshake failed (verify result %ld)", SSL_get_verify_result(c->ssl));
}

/// Closes the connection, keeping its TLS session for the next one when resuming: taken now,
/// not after the handshake, since TLS 1.3 tickets arrive after it and are read with the data.
static void conn_close(struct connection *c, SSL_SESSION **session) {
    if (c->ssl && opts.resumes && session) {
        SSL_SESSION *fresh = SSL_get1_session(c->ssl);
        if (fresh && SSL_SESSION_is_resumable(fresh)) {
            if (*session) SSL_SESSION_free(*session);
            *session = fresh;
        } else if (fresh) {
            SSL_SESSION_free(fresh);
        }
    }
    if (c->ssl) {
        SSL_shutdown(c->ssl);
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

/// Fills the buffer after its unread bytes; returns how many arrived (0 at end of input).
static size_t conn_fill(struct connection *c) {
    if (c->start > 0) {
        memmove(c->buffer, c->buffer + c->start, c->end - c->start);
        c->end -= c->start;
        c->start = 0;
    }
    if (c->end == sizeof c->buffer) die("response head too large");
    ssize_t n = conn_read(c, c->buffer + c->end, sizeof c->buffer - c->end);
    if (n < 0) die("read failed");
    c->end += (size_t)n;
    return (size_t)n;
}

/// Sends one GET and reads its response; returns the body length. Sets *keep to whether the
/// connection may carry the next request.
static long long exchange(struct connection *c, int out_fd, int *keep) {
    char request[1400];
    int length = snprintf(request, sizeof request,
                          "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: bench-c\r\nAccept: */*\r\n%s\r\n",
                          opts.path, opts.host, opts.port, opts.connection_close ? "Connection: close\r\n" : "");
    conn_write_all(c, request, (size_t)length);
    char *head_end;
    for (;;) {
        head_end = memmem(c->buffer + c->start, c->end - c->start, "\r\n\r\n", 4);
        if (head_end) break;
        if (conn_fill(c) == 0) die("the server closed the connection inside the head");
    }
    char *head = c->buffer + c->start;
    size_t head_length = (size_t)(head_end - head) + 4;
    if (head_length < 12 || strncmp(head, "HTTP/1.1 200", 12) != 0) die("status line: %.40s", head);
    long long content_length = -1;
    *keep = !opts.connection_close;
    // Field lines, from the one after the status line to the empty line.
    char *line = memchr(head, '\n', head_length);
    while (line && line + 1 < head_end) {
        line++;
        char *eol = memchr(line, '\n', (size_t)(head_end + 2 - line));
        size_t line_length = eol ? (size_t)(eol - line) : 0;
        if (line_length >= 15 && !strncasecmp(line, "Content-Length:", 15)) content_length = atoll(line + 15);
        else if (line_length >= 11 && !strncasecmp(line, "Connection:", 11) && memmem(line, line_length, "close", 5)) *keep = 0;
        line = eol;
    }
    if (content_length < 0) die("no Content-Length");
    c->start += head_length;
    long long left = content_length;
    for (;;) {
        size_t available = c->end - c->start;
        size_t take = available < (unsigned long long)left ? available : (size_t)left;
        if (take > 0 && out_fd >= 0) {
            for (size_t done = 0; done < take;) {
                ssize_t w = write(out_fd, c->buffer + c->start + done, take - done);
                if (w < 0) die("write to the output: %s", strerror(errno));
                done += (size_t)w;
            }
        }
        c->start += take;
        left -= (long long)take;
        if (left == 0) break;
        c->start = c->end = 0;
        if (conn_fill(c) == 0) die("the server closed the connection inside the body");
    }
    return content_length;
}

struct worker {
    long requests;
    long long bytes;
};

static void *run_worker(void *argument) {
    struct worker *w = argument;
    struct connection *c = malloc(sizeof *c);
    if (!c) die("out of memory");
    c->fd = -1;
    c->ssl = NULL;
    SSL_SESSION *session = NULL;
    int out_fd = -1;
    for (long i = 0; i < w->requests; i++) {
        if (c->fd < 0) conn_open(c, &session);
        if (opts.mode == MODE_DOWNLOAD) {
            out_fd = open(opts.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (out_fd < 0) die("open %s: %s", opts.output, strerror(errno));
        }
        int keep;
        long long body = exchange(c, out_fd, &keep);
        if (out_fd >= 0) close(out_fd);
        out_fd = -1;
        if (body != opts.body_bytes) die("a body of %lld bytes, expected %lld", body, opts.body_bytes);
        w->bytes += body;
        if (!keep) conn_close(c, &session);
    }
    conn_close(c, NULL);
    if (session) SSL_SESSION_free(session);
    free(c);
    return NULL;
}

int main(int argc, char **argv) {
    parse_arguments(argc, argv);
    if (opts.https) {
        ctx = SSL_CTX_new(TLS_client_method());
        if (!ctx) die("SSL_CTX_new");
        SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
        if (!opts.cacert || SSL_CTX_load_verify_locations(ctx, opts.cacert, NULL) != 1) die("cannot load --cacert");
        // Sessions are kept by the client (SSL_get1_session), as curl does, not OpenSSL's cache.
        SSL_CTX_set_session_cache_mode(ctx, opts.resumes ? SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE : SSL_SESS_CACHE_OFF);
    }
    int threads = opts.concurrency < opts.count ? opts.concurrency : (int)opts.count;
    struct worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    if (!workers || !ids) die("out of memory");
    for (int t = 0; t < threads; t++) workers[t].requests = opts.count / threads + (t < opts.count % threads ? 1 : 0);
    if (threads == 1) {
        run_worker(&workers[0]);
    } else {
        for (int t = 0; t < threads; t++) {
            if (pthread_create(&ids[t], NULL, run_worker, &workers[t]) != 0) die("pthread_create");
        }
        for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    }
    long long bytes = 0;
    for (int t = 0; t < threads; t++) bytes += workers[t].bytes;
    printf("result requests=%ld bytes=%lld\n", opts.count, bytes);
    if (ctx) SSL_CTX_free(ctx);
    return 0;
}
