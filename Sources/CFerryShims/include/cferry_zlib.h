#ifndef CFERRY_ZLIB_H
#define CFERRY_ZLIB_H
#include <zlib.h>

// inflateInit2 is a macro (it passes ZLIB_VERSION and sizeof(z_stream)).
static inline int cferry_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}
#endif
