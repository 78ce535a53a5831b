#ifndef FERRY_CZLIB_SHIM_H
#define FERRY_CZLIB_SHIM_H
// zlib from the system (Debian/Ubuntu: zlib1g-dev).
#include <zlib.h>
#endif
