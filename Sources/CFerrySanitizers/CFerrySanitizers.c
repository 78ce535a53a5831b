// Declarations only (include/CFerrySanitizers.h); SwiftPM wants a source file in a C target.
#include "CFerrySanitizers.h"
