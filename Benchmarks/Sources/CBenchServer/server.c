#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "CBenchServer.h"

int bench_send_all(int fd, const void *bytes, size_t length) {
    const char *cursor = bytes;
    while (length > 0) {
        ssize_t sent = send(fd, cursor, length, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        cursor += sent;
        length -= (size_t)sent;
    }
    return 0;
}

int bench_serve_loopback(const char *name, const char *port_file, int backlog, size_t stack_size,
                         void *(*serve)(void *), void (*on_connection)(void)) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, backlog) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &size) != 0) {
        fprintf(stderr, "%s: cannot listen on 127.0.0.1: %s\n", name, strerror(errno));
        return 1;
    }
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp", port_file);
    FILE *file = fopen(temporary, "w");
    if (file == NULL || fprintf(file, "%d\n", ntohs(address.sin_port)) < 0 || fclose(file) != 0 || rename(temporary, port_file) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", name, port_file, strerror(errno));
        return 1;
    }
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE) { // out of descriptors: let some close first
                struct timespec pause = {.tv_sec = 0, .tv_nsec = 10 * 1000000L};
                nanosleep(&pause, NULL);
                continue;
            }
            fprintf(stderr, "%s: accept: %s\n", name, strerror(errno));
            return 1;
        }
        // A head and its body often go out in two sends: without this, Nagle would hold the
        // second until the client's delayed ACK of the first (40 ms), as nginx's tcp_nodelay avoids.
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        if (on_connection != NULL) on_connection();
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (stack_size > 0) pthread_attr_setstacksize(&attributes, stack_size);
        if (pthread_create(&thread, &attributes, serve, (void *)(intptr_t)fd) != 0) close(fd);
        pthread_attr_destroy(&attributes);
    }
}
