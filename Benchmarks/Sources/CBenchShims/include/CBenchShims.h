#ifndef C_BENCH_SHIMS_H
#define C_BENCH_SHIMS_H

/// Moves the calling thread into a new mount namespace (and, when `with_user_namespace`, a new
/// user namespace, for an unprivileged caller). glibc declares unshare(2) and the CLONE_ flags
/// only under _GNU_SOURCE, which Swift's Glibc module does not define.
/// Returns 0, or -1 with errno set.
int bench_unshare_mount_namespace(int with_user_namespace);

/// Makes stdout line-buffered, so progress shows as it happens when it goes to a file or pipe
/// (Swift 6 cannot name C's `stdout` global without an unsafe-concurrency diagnostic).
void bench_line_buffer_stdout(void);

#endif
