#ifndef CFERRY_IO_H
#define CFERRY_IO_H
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// epoll's event bits are an anonymous enum Swift does not import as constants.
static inline uint32_t cferry_epollin(void) { return EPOLLIN; }
static inline uint32_t cferry_epollout(void) { return EPOLLOUT; }
static inline uint32_t cferry_epollerr(void) { return EPOLLERR; }
static inline uint32_t cferry_epollhup(void) { return EPOLLHUP; }
static inline uint32_t cferry_epollrdhup(void) { return EPOLLRDHUP; }
static inline uint32_t cferry_epollet(void) { return EPOLLET; }

/// Names the calling thread (shown by top, gdb and crash reports); the kernel keeps 15 bytes.
/// prctl is variadic, which Swift cannot call, and pthread_setname_np needs _GNU_SOURCE.
/// Returns 0, or -1 with errno set.
static inline int cferry_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC): the accepted socket is close-on-exec
/// from its first instant, so a process spawned meanwhile by another thread never inherits it.
/// glibc declares accept4 only with _GNU_SOURCE, which Swift's Glibc module lacks, so the system
/// call is made directly. Returns the new descriptor, or -1 with errno set.
static inline int cferry_accept_nonblocking_cloexec(int fd) {
    return (int)syscall(SYS_accept4, fd, (void *)0, (void *)0, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
#endif
