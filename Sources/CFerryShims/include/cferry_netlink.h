#ifndef CFERRY_NETLINK_H
#define CFERRY_NETLINK_H
// What FerryReachability needs from C: the netlink socket address type and setns(2).
// Message layouts and constants are read in Swift (FerryReachability/NetlinkConstants.swift):
// the parser must bounds-check every offset itself, so the NLMSG_*/RTA_* macros are not used.
#include <linux/netlink.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>

/// setns(fd, CLONE_NEWNET) for the calling thread. glibc declares setns only with _GNU_SOURCE,
/// which Swift's Glibc module lacks, so the system call is made directly.
/// Returns 0, or -1 with errno set.
static inline int cferry_setns_net(int fd) {
    return (int)syscall(SYS_setns, fd, CLONE_NEWNET);
}
#endif
