// bench-sink PORTFILE
//
// W9's upload server: listens on 127.0.0.1 (a port the kernel picks, written to PORTFILE),
// reads every byte of each `POST /upload` (a Content-Length body, after `100 Continue` when the
// client asks for it) and checks it is a multipart form of one part named "file" whose content
// is all zero bytes (the sparse file `run` writes) followed by the closing delimiter. It answers
//   200 {"bytes":<body bytes>,"fileBytes":<file bytes>}        or 400 {"error":"…"}
// and keeps counters that `GET /stats` returns as one line:
//   connections=N requests=N uploads=N bytes=N file_bytes=N nonzero=N errors=N
// (requests: POSTs to /upload; uploads: those that passed every check). nginx is not used for
// this: it answers an upload before reading the body and cannot say what arrived.
//
// One thread per connection, blocking I/O. It dies with its parent (PR_SET_PDEATHSIG) and on
// SIGTERM.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "CBenchServer.h"

enum { HEAD_MAX = 16384, PART_HEAD_MAX = 8192, BODY_CHUNK = 256 * 1024, BOUNDARY_MAX = 200 };

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long long stat_connections, stat_requests, stat_uploads, stat_bytes, stat_file_bytes, stat_nonzero, stat_errors;
static const unsigned char zeros[BODY_CHUNK];

// The multipart check of one body, fed in slices as they arrive.
struct form {
    long long length;       // Content-Length
    long long offset;       // bytes fed so far
    int in_head;            // still reading the opening delimiter and the part's headers
    char head[PART_HEAD_MAX];
    size_t head_length;
    char opening[BOUNDARY_MAX + 8];  // "--B\r\n"
    char closing[BOUNDARY_MAX + 10]; // "\r\n--B--\r\n"
    size_t closing_length;
    long long content_end;  // where the closing delimiter starts
    long long file_bytes;
    long long nonzero;
    const char *error;      // the first problem found, or NULL
};

static void form_init(struct form *form, const char *boundary, long long length) {
    memset(form, 0, sizeof *form);
    form->length = length;
    form->in_head = 1;
    snprintf(form->opening, sizeof form->opening, "--%s\r\n", boundary);
    snprintf(form->closing, sizeof form->closing, "\r\n--%s--\r\n", boundary);
    form->closing_length = strlen(form->closing);
    form->content_end = length - (long long)form->closing_length;
}

static size_t count_nonzero(const unsigned char *bytes, size_t count) {
    if (memcmp(bytes, zeros, count) == 0) return 0;
    size_t found = 0;
    for (size_t i = 0; i < count; i++) found += bytes[i] != 0;
    return found;
}

static void form_feed(struct form *form, const unsigned char *bytes, size_t count) {
    while (count > 0 && form->error == NULL) {
        size_t used;
        if (form->in_head) {
            size_t room = sizeof form->head - 1 - form->head_length;
            if (room == 0) { form->error = "the part's headers are longer than 8 KiB"; return; }
            size_t take = count < room ? count : room;
            size_t before = form->head_length;
            memcpy(form->head + before, bytes, take);
            form->head_length += take;
            form->head[form->head_length] = 0;
            size_t from = before >= 3 ? before - 3 : 0;
            char *end = memmem(form->head + from, form->head_length - from, "\r\n\r\n", 4);
            if (end == NULL) {
                used = take;
            } else {
                size_t head_end = (size_t)(end - form->head) + 4;
                used = head_end - before;
                form->in_head = 0;
                *end = 0;
                if (strncmp(form->head, form->opening, strlen(form->opening)) != 0) {
                    form->error = "the body does not start with the boundary's delimiter";
                } else if (strstr(form->head, "name=\"file\"") == NULL) {
                    form->error = "the part is not named file";
                } else if ((long long)head_end > form->content_end) {
                    form->error = "the body is too short for its closing delimiter";
                }
            }
        } else if (form->offset < form->content_end) {
            long long left = form->content_end - form->offset;
            used = (long long)count < left ? count : (size_t)left;
            form->nonzero += (long long)count_nonzero(bytes, used);
            form->file_bytes += (long long)used;
        } else {
            long long at = form->offset - form->content_end;
            long long left = (long long)form->closing_length - at;
            used = (long long)count < left ? count : (size_t)left;
            if (left <= 0 || memcmp(bytes, form->closing + at, used) != 0) {
                form->error = "the body does not end with the closing delimiter";
                return;
            }
        }
        bytes += used;
        count -= used;
        form->offset += (long long)used;
    }
}


static int respond(int fd, int status, const char *type, const char *body, int close_after) {
    char message[1024];
    int length = snprintf(message, sizeof message,
                          "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: %s\r\n\r\n%s",
                          status, status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request", type,
                          strlen(body), close_after ? "close" : "keep-alive", body);
    return bench_send_all(fd, message, (size_t)length);
}

// The value of header `name` in the head (NUL-terminated, lines ending in CRLF), copied into
// `value`; 0 when present.
static int header(const char *head, const char *name, char *value, size_t size) {
    size_t name_length = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line != NULL; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, name_length) == 0 && line[name_length] == ':') {
            const char *start = line + name_length + 1;
            while (*start == ' ' || *start == '\t') start++;
            const char *end = strstr(start, "\r\n");
            size_t length = end ? (size_t)(end - start) : strlen(start);
            if (length >= size) length = size - 1;
            memcpy(value, start, length);
            value[length] = 0;
            return 0;
        }
    }
    return -1;
}

static void record_error(void) {
    pthread_mutex_lock(&stats_lock);
    stat_errors++;
    pthread_mutex_unlock(&stats_lock);
}

// Reads one upload body of `length` bytes (`held` of them already read) and answers it.
// Returns 0 to keep the connection, -1 to close it.
static int upload(int fd, const char *head, const unsigned char *held, size_t held_count, long long length,
                  unsigned char *buffer, int close_after) {
    pthread_mutex_lock(&stats_lock);
    stat_requests++;
    pthread_mutex_unlock(&stats_lock);
    char type[512], boundary[BOUNDARY_MAX + 1] = "", expect[64];
    if (header(head, "Content-Type", type, sizeof type) == 0) {
        char *at = strcasestr(type, "boundary=");
        if (at != NULL) {
            at += 9;
            if (*at == '"') at++;
            size_t n = strcspn(at, "\";");
            if (n > 0 && n <= BOUNDARY_MAX) { memcpy(boundary, at, n); boundary[n] = 0; }
        }
    }
    static __thread struct form form;
    form_init(&form, boundary, length);
    if (boundary[0] == 0) form.error = "no multipart boundary in Content-Type";
    if (header(head, "Expect", expect, sizeof expect) == 0 && strcasecmp(expect, "100-continue") == 0) {
        const char *go_on = "HTTP/1.1 100 Continue\r\n\r\n";
        if (bench_send_all(fd, go_on, strlen(go_on)) != 0) { record_error(); return -1; }
    }
    form_feed(&form, held, held_count);
    long long received = (long long)held_count;
    while (received < length) { // every byte is read, even after a problem, so the answer comes after the body
        long long left = length - received;
        ssize_t got = recv(fd, buffer, left < BODY_CHUNK ? (size_t)left : BODY_CHUNK, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) { record_error(); return -1; } // the client went away mid-body
        form_feed(&form, buffer, (size_t)got);
        received += got;
    }
    if (form.error == NULL && (form.in_head || form.offset != length)) form.error = "the body ended inside the form";
    pthread_mutex_lock(&stats_lock);
    stat_bytes += received;
    stat_file_bytes += form.file_bytes;
    stat_nonzero += form.nonzero;
    if (form.error == NULL) stat_uploads++; else stat_errors++;
    pthread_mutex_unlock(&stats_lock);
    char answer[256];
    if (form.error != NULL) {
        snprintf(answer, sizeof answer, "{\"error\":\"%s\"}", form.error);
        return respond(fd, 400, "application/json", answer, close_after) == 0 && !close_after ? 0 : -1;
    }
    snprintf(answer, sizeof answer, "{\"bytes\":%lld,\"fileBytes\":%lld}", length, form.file_bytes);
    return respond(fd, 200, "application/json", answer, close_after) == 0 && !close_after ? 0 : -1;
}

static void *serve(void *argument) {
    int fd = (int)(intptr_t)argument;
    unsigned char *buffer = malloc(BODY_CHUNK);
    char head[HEAD_MAX + 1];
    size_t have = 0; // bytes in `head`, a request's head and perhaps what follows it
    while (buffer != NULL) {
        char *end = NULL;
        while ((end = memmem(head, have, "\r\n\r\n", 4)) == NULL) {
            if (have == HEAD_MAX) { respond(fd, 400, "text/plain", "head too long\n", 1); goto done; }
            ssize_t got = recv(fd, head + have, HEAD_MAX - have, 0);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) goto done;
            have += (size_t)got;
        }
        size_t head_length = (size_t)(end - head) + 4;
        char saved = head[head_length];
        head[head_length] = 0;
        char method[16] = "", target[256] = "", version[16] = "", value[64];
        sscanf(head, "%15s %255s %15s", method, target, version);
        // HTTP/1.0 (the driver's /stats requests) closes after the answer, as does "Connection: close".
        int close_after = strcmp(version, "HTTP/1.1") != 0 ||
                          (header(head, "Connection", value, sizeof value) == 0 && strcasecmp(value, "close") == 0);
        long long length = 0;
        if (header(head, "Content-Length", value, sizeof value) == 0) length = atoll(value);
        int chunked = header(head, "Transfer-Encoding", value, sizeof value) == 0;
        head[head_length] = saved;
        size_t extra = have - head_length;
        size_t held = (long long)extra < length ? extra : (size_t)length;
        int keep;
        if (strcmp(method, "GET") == 0 && strcmp(target, "/stats") == 0) {
            char line[512];
            pthread_mutex_lock(&stats_lock);
            snprintf(line, sizeof line, "connections=%lld requests=%lld uploads=%lld bytes=%lld file_bytes=%lld nonzero=%lld errors=%lld\n",
                     stat_connections, stat_requests, stat_uploads, stat_bytes, stat_file_bytes, stat_nonzero, stat_errors);
            pthread_mutex_unlock(&stats_lock);
            keep = respond(fd, 200, "text/plain", line, close_after) == 0 && !close_after ? 0 : -1;
        } else if (strcmp(method, "POST") == 0 && strcmp(target, "/upload") == 0 && !chunked && length > 0) {
            head[head_length - 1] = 0; // the headers, for upload()'s look-ups; the body follows
            keep = upload(fd, head, (unsigned char *)head + head_length, held, length, buffer, close_after);
        } else {
            record_error();
            respond(fd, chunked ? 411 : 404, "text/plain", "POST /upload with a Content-Length, or GET /stats\n", 1);
            keep = -1;
        }
        if (keep != 0) break;
        // Anything after this request's body is the start of the next request.
        size_t used = head_length + held;
        memmove(head, head + used, have - used);
        have -= used;
    }
done:
    free(buffer);
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
        fprintf(stderr, "usage: bench-sink PORTFILE\n");
        return 2;
    }
    return bench_serve_loopback("bench-sink", argv[1], 64, 0, serve, count_connection);
}
