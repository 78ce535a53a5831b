#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include "CBenchShims.h"

int bench_unshare_mount_namespace(int with_user_namespace) {
    return unshare(CLONE_NEWNS | (with_user_namespace ? CLONE_NEWUSER : 0));
}

void bench_line_buffer_stdout(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
}
