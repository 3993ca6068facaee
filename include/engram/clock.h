// Clock: the seam for time. The engine never reads the system clock except
// through one of these, so tests can pin "now".
//
// Thread-safety: implementations must be safe to call from any thread.
#ifndef ENGRAM_CLOCK_H_
#define ENGRAM_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "engram/export.h"

namespace engram {

// Milliseconds since the Unix epoch, UTC.
using Timestamp = int64_t;

class ENGRAM_EXPORT Clock {
 public:
  virtual ~Clock() = default;
  virtual Timestamp NowMillis() const = 0;
};

// The process-wide wall clock (std::chrono::system_clock).
ENGRAM_EXPORT std::shared_ptr<const Clock> SystemClock();

// A clock that returns what it was last set to; for tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Timestamp now) : now_(now) {}
  Timestamp NowMillis() const override { return now_.load(); }
  void Set(Timestamp now) { now_.store(now); }
  void AdvanceMillis(int64_t delta) { now_.fetch_add(delta); }

 private:
  std::atomic<Timestamp> now_;
};

}  // namespace engram

#endif  // ENGRAM_CLOCK_H_
