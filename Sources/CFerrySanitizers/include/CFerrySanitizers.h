// Entry points of the sanitizer runtimes, which exist only in a program built with that
// sanitizer: Swift code names them only under the matching compilation condition (FERRY_TSAN
// for ThreadSanitizer, set by `Scripts/test --sanitize thread`) or in a program that links the
// runtime (ferry-fuzz links libFuzzer).
#ifndef CFERRY_SANITIZERS_H
#define CFERRY_SANITIZERS_H

#include <stddef.h>
#include <stdint.h>

// ThreadSanitizer: a happens-before edge from the last release of `address` to this acquire.
void __tsan_acquire(void *address);
void __tsan_release(void *address);

// libFuzzer's driver for a program with its own main (ferry-fuzz): runs `callback` on each input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
