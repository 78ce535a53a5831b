// The shims are static inline functions in the headers; this file gives the target
// an object file so SwiftPM builds and links it.
#include "CFerryShims.h"
