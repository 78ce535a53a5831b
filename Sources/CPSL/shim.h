#ifndef FERRY_CPSL_SHIM_H
#define FERRY_CPSL_SHIM_H
// libpsl from the system (Debian/Ubuntu: libpsl-dev; its data: the publicsuffix package).
#include <libpsl.h>
#endif
