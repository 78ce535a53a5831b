// bench-launch REPORT PROGRAM [ARG...]
//
// Runs PROGRAM as a child of this small process and writes what wait4 says of it to REPORT:
//   exit=<code> signal=<number> utime_us=<n> stime_us=<n> maxrss_kib=<n>
//
// Why it exists: Linux carries the peak RSS of the memory a process had before execve into the
// ru_maxrss of the program it becomes. posix_spawn runs the child on its parent's memory
// (CLONE_VM) until the exec, so a client spawned straight from bench-driver (a Swift process of
// about 20 MiB) would report at least the driver's peak. Forked from this launcher instead, the
// client starts from a copy of a ~1 MiB process and its ru_maxrss is its own.
//
// The child dies with the launcher (PR_SET_PDEATHSIG), so the driver's watchdog kills both by
// killing this process. The launcher's exit status is 0 when REPORT was written, 127 otherwise.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench-launch REPORT PROGRAM [ARG...]\n");
        return 127;
    }
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "bench-launch: fork: %s\n", strerror(errno));
        return 127;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127); // the launcher is already gone
        execvp(argv[2], &argv[2]);
        fprintf(stderr, "bench-launch: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    memset(&usage, 0, sizeof usage);
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "bench-launch: wait4: %s\n", strerror(errno));
            return 127;
        }
    }
    FILE *report = fopen(argv[1], "w");
    if (report == NULL) {
        fprintf(stderr, "bench-launch: cannot write %s: %s\n", argv[1], strerror(errno));
        return 127;
    }
    fprintf(report, "exit=%d signal=%d utime_us=%lld stime_us=%lld maxrss_kib=%ld\n",
            WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
            (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
            (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec, usage.ru_maxrss);
    return fclose(report) == 0 ? 0 : 127;
}
