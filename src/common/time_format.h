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

// "90s", "30m", "12h", "30d" or "2w": a positive whole number and a unit,
// in milliseconds. InvalidArgument naming the text otherwise.
Result<int64_t> ParseDuration(std::string_view text);

// An instant given as ISO-8601 or as a duration before `now` ("7d": seven
// days ago), for --since, --until and --as-of.
Result<Timestamp> ParseInstant(std::string_view text, Timestamp now);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_TIME_FORMAT_H_
