// bench-chaos PORTFILE
//
// Issue 20's chaos soak server (Benchmarks/soak): an HTTP/1.1 server on 127.0.0.1 (a port the
// kernel picks, written to PORTFILE) that misbehaves on request. The client names the fault and
// a size in the path, `GET /f/<fault>/<size>`, so it knows which outcome each request must have:
//
//   ok         200, Content-Length, <size> bytes of the pattern; the connection stays open
//   chunked    200, the same bytes in chunks of up to 1,000
//   drip       200, the head in two pieces and the body in eight, 20 ms apart (slow, but always moving)
//   idleclose  200 as ok, then the connection is closed 0–2 ms later without reading what came
//              next: a keep-alive connection closed "idle" while the client may be reusing it
//   reset      reads the request, answers nothing, and resets the connection (RST)
//   resethead  sends half a head, then resets
//   cut        a head promising <size> bytes, half of them, then a close (FIN)
//   garbage    one of several heads that are not HTTP (<size> picks which), then a close
//   stall      reads the request and answers nothing until the client gives up (30 s at most)
//
// Byte i of a body is (i * 31 + 7) & 0xFF. Any other request gets a 404. `GET /stats` answers
// one line: connections=N requests=N. One thread per connection, blocking I/O; it dies with
// its parent (PR_SET_PDEATHSIG) and on SIGTERM.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "CBenchServer.h"

enum { HEAD_MAX = 8192, BODY_MAX = 1 << 20 };

static unsigned char pattern[BODY_MAX];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long long stat_connections, stat_requests;

// Heads that are not HTTP, each ending the connection: what a confused or hostile peer sends.
#define BYTES(literal) {literal, sizeof literal - 1}
static const struct { const char *bytes; size_t length; } garbage_heads[] = {
    BYTES("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),                          // a TLS ClientHello's start
    BYTES("SSH-2.0-OpenSSH_9.2\r\n"),                                                // another protocol
    BYTES("HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\nok"),                         // a status that is not a number
    BYTES("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello"), // two lengths
    BYTES("HTTP/1.1 200 OK\r\nBad Header Line\r\n\r\n"),                             // a field without a colon
    BYTES("HTTP/1.1 200 OK\r\nX-Nul: a\0b\r\nContent-Length: 0\r\n\r\n"),           // NUL in a value
    BYTES("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),           // a chunk size that is not hex
};


static void pause_ms(long ms) {
    struct timespec delay = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR) {}
}

// Closes with a reset: SO_LINGER with a zero time discards what is unsent and sends RST.
static void reset_close(int fd) {
    struct linger linger = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
    close(fd);
}

// Waits until the peer closes (or 30 s pass), reading and dropping what it sends.
static void wait_for_close(int fd) {
    char sink[4096];
    struct pollfd watch = {.fd = fd, .events = POLLIN};
    for (int waited = 0; waited < 30; waited++) {
        int ready = poll(&watch, 1, 1000);
        if (ready < 0 && errno != EINTR) return;
        if (ready > 0 && recv(fd, sink, sizeof sink, 0) <= 0) return;
    }
}

static int send_head(int fd, long size, int chunked) {
    char head[256];
    int length = chunked ? snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                         : snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %ld\r\n\r\n", size);
    return bench_send_all(fd, head, (size_t)length);
}

// Answers one request. Returns 1 to keep the connection for the next, 0 when it was closed here.
static int answer(int fd, const char *fault, long size, unsigned seed) {
    if (strcmp(fault, "ok") == 0 || strcmp(fault, "idleclose") == 0) {
        if (send_head(fd, size, 0) != 0 || bench_send_all(fd, pattern, (size_t)size) != 0) return -1;
        if (fault[0] == 'o') return 1;
        pause_ms(seed % 3);
        close(fd); // unread bytes of a request that came meanwhile make this a reset
        return 0;
    }
    if (strcmp(fault, "chunked") == 0) {
        if (send_head(fd, size, 1) != 0) return -1;
        for (long offset = 0; offset < size; offset += 1000) {
            long piece = size - offset < 1000 ? size - offset : 1000;
            char line[32];
            int length = snprintf(line, sizeof line, "%lx\r\n", piece);
            if (bench_send_all(fd, line, (size_t)length) != 0 || bench_send_all(fd, pattern + offset, (size_t)piece) != 0 ||
                bench_send_all(fd, "\r\n", 2) != 0) return -1;
        }
        return bench_send_all(fd, "0\r\n\r\n", 5) == 0 ? 1 : -1;
    }
    if (strcmp(fault, "drip") == 0) {
        char head[128];
        int length = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %ld\r\n\r\n", size);
        if (bench_send_all(fd, head, 10) != 0) return -1;
        pause_ms(20);
        if (bench_send_all(fd, head + 10, (size_t)length - 10) != 0) return -1;
        for (int piece = 0; piece < 8; piece++) {
            pause_ms(20);
            long from = size * piece / 8, to = size * (piece + 1) / 8;
            if (bench_send_all(fd, pattern + from, (size_t)(to - from)) != 0) return -1;
        }
        return 1;
    }
    if (strcmp(fault, "reset") == 0) {
        reset_close(fd);
        return 0;
    }
    if (strcmp(fault, "resethead") == 0) {
        bench_send_all(fd, "HTTP/1.1 200 OK\r\nContent-Le", 27);
        pause_ms(1);
        reset_close(fd);
        return 0;
    }
    if (strcmp(fault, "cut") == 0) {
        if (send_head(fd, size, 0) == 0) bench_send_all(fd, pattern, (size_t)size / 2);
        shutdown(fd, SHUT_WR);
        close(fd);
        return 0;
    }
    if (strcmp(fault, "garbage") == 0) {
        size_t which = (size_t)size % (sizeof garbage_heads / sizeof garbage_heads[0]);
        bench_send_all(fd, garbage_heads[which].bytes, garbage_heads[which].length);
        shutdown(fd, SHUT_WR);
        wait_for_close(fd);
        close(fd);
        return 0;
    }
    if (strcmp(fault, "stall") == 0) {
        wait_for_close(fd);
        close(fd);
        return 0;
    }
    static const char missing[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
    return bench_send_all(fd, missing, sizeof missing - 1) == 0 ? 1 : -1;
}

static void *serve(void *arg) {
    int fd = (int)(intptr_t)arg;
    char head[HEAD_MAX + 1];
    size_t have = 0;
    for (;;) {
        char *end = NULL;
        while ((end = memmem(head, have, "\r\n\r\n", 4)) == NULL) {
            if (have == HEAD_MAX) goto done;
            ssize_t got = recv(fd, head + have, HEAD_MAX - have, 0);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) goto done;
            have += (size_t)got;
        }
        size_t used = (size_t)(end - head) + 4;
        head[have] = 0;
        char fault[32] = "";
        long size = 0;
        unsigned seed = (unsigned)have;
        pthread_mutex_lock(&stats_lock);
        long long number = ++stat_requests;
        pthread_mutex_unlock(&stats_lock);
        seed += (unsigned)number;
        int keep;
        if (strncmp(head, "GET /stats ", 11) == 0) {
            char body[128], reply[256];
            pthread_mutex_lock(&stats_lock);
            int length = snprintf(body, sizeof body, "connections=%lld requests=%lld\n", stat_connections, stat_requests);
            pthread_mutex_unlock(&stats_lock);
            int total = snprintf(reply, sizeof reply, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", length, body);
            keep = bench_send_all(fd, reply, (size_t)total) == 0 ? 1 : -1;
        } else if (sscanf(head, "GET /f/%31[a-z]/%ld ", fault, &size) == 2 && size >= 0 && size <= BODY_MAX) {
            keep = answer(fd, fault, size, seed);
            if (keep == 0) return NULL; // answer closed it
        } else {
            keep = answer(fd, "", 0, seed);
        }
        if (keep < 0) break;
        memmove(head, head + used, have - used); // a GET has no body: the rest is the next request
        have -= used;
    }
done:
    close(fd);
    return NULL;
}

static void count_connection(void) {
    pthread_mutex_lock(&stats_lock);
    stat_connections++;
    pthread_mutex_unlock(&stats_lock);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench-chaos PORTFILE\n");
        return 2;
    }
    for (size_t i = 0; i < BODY_MAX; i++) pattern[i] = (unsigned char)((i * 31 + 7) & 0xFF);
    return bench_serve_loopback("bench-chaos", argv[1], 1024, 256 * 1024, serve, count_connection);
}
