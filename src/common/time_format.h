// ISO-8601 UTC timestamps <-> milliseconds since the epoch. Pure.
#ifndef ENGRAM_SRC_COMMON_TIME_FORMAT_H_
#define ENGRAM_SRC_COMMON_TIME_FORMAT_H_

#include <string>
#include <string_view>

#include "engram/clock.h"
#include "engram/status.h"

namespace engram {

// "2023-05-08T13:56:00.000Z": always milliseconds and 'Z', so that
// ParseIso8601(FormatIso8601(t)) == t.
std::string FormatIso8601(Timestamp t);

// Accepts "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS[.fff...]]" with 'T' or ' ',
// followed by 'Z', "+HH:MM", "-HH:MM" or nothing (UTC). Fractions beyond
// milliseconds are truncated.
Result<Timestamp> ParseIso8601(std::string_view text);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_TIME_FORMAT_H_
