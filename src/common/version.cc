#include "engram/version.h"

namespace engram {

const char* Version() { return ENGRAM_VERSION_STRING; }

}  // namespace engram
