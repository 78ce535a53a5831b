#ifndef CFERRY_SHIMS_H
#define CFERRY_SHIMS_H
// One-line wrappers for what Swift cannot import (function-like macros, anonymous
// enum constants). No logic lives here: policy belongs to the Swift modules.
// Each area has its own header so that its owner edits one file.
#include "cferry_io.h"
#include "cferry_zlib.h"
#include "cferry_ssl.h"
#include "cferry_tls.h"
#include "cferry_netlink.h"
#endif
