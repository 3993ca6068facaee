#include "src/rank/temporal.h"

#include <algorithm>
#include <cmath>

namespace engram {

double TemporalScore(int64_t access_count, Timestamp last_accessed, Timestamp now,
                     const TemporalOptions& options) {
  constexpr double kMillisPerDay = 86400000.0;
  const double days = std::max(0.0, static_cast<double>(now - last_accessed) / kMillisPerDay);
  const double use = 1.0 + std::log1p(static_cast<double>(std::max<int64_t>(access_count, 0)));
  return use * std::exp(-std::log(2.0) * days / options.half_life_days);
}

}  // namespace engram
