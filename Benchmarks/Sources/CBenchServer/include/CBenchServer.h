#ifndef C_BENCH_SERVER_H
#define C_BENCH_SERVER_H

#include <stddef.h>

/// Sends all `length` bytes (MSG_NOSIGNAL, retrying on EINTR). Returns 0, or -1 when the peer
/// is gone.
int bench_send_all(int fd, const void *bytes, size_t length);

/// The local servers' accept loop (bench-sink, bench-chaos): dies with its parent
/// (PR_SET_PDEATHSIG), ignores SIGPIPE, listens on 127.0.0.1 on a port the
/// kernel picks, writes it to `port_file` (through a rename, so a reader never sees half of
/// it), then accepts for ever: each connection gets TCP_NODELAY, a call to `on_connection`
/// (may be NULL) and a detached thread running `serve` with the descriptor as its argument
/// (`stack_size` bytes of stack, 0 for the default). Out of descriptors, it waits 10 ms and
/// tries again. Returns 1 only when it cannot listen, write the port or accept (`name` heads
/// the message on stderr).
int bench_serve_loopback(const char *name, const char *port_file, int backlog, size_t stack_size,
                         void *(*serve)(void *), void (*on_connection)(void));

#endif
