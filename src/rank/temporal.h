// Temporal signal: recency x use (DESIGN §4). Pure.
//
//   temporal = (1 + ln(1 + access_count)) * exp(-ln2 * days / half_life_days)
//
// with days = (now - last_accessed) in days, clamped at 0 (a fact "from the
// future" counts as just used). Range: (0, 1 + ln(1 + access_count)].
#ifndef ENGRAM_SRC_RANK_TEMPORAL_H_
#define ENGRAM_SRC_RANK_TEMPORAL_H_

#include <cstdint>

#include "engram/clock.h"
#include "engram/options.h"

namespace engram {

double TemporalScore(int64_t access_count, Timestamp last_accessed, Timestamp now,
                     const TemporalOptions& options);

}  // namespace engram

#endif  // ENGRAM_SRC_RANK_TEMPORAL_H_
