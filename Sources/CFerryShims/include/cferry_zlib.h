#ifndef CFERRY_ZLIB_H
#define CFERRY_ZLIB_H
#include <zlib.h>

// inflateInit2 is a macro (it passes ZLIB_VERSION and sizeof(z_stream)).
static inline int cferry_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

// deflateInit2 is a macro as well; the tests use it to build gzip, zlib and raw-deflate
// fixtures with the same library the decoder runs on.
static inline int cferry_deflate_init2(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}
#endif
