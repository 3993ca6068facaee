#include "engram/clock.h"

#include <chrono>
#include <memory>

namespace engram {
namespace {

class WallClock final : public Clock {
 public:
  Timestamp NowMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

std::shared_ptr<const Clock> SystemClock() {
  static const std::shared_ptr<const Clock> clock = std::make_shared<WallClock>();
  return clock;
}

}  // namespace engram
