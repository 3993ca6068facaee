// Which connections the watchdog closes: the rules of
// src/server/connection_watchdog.h on a fixed clock. The end-to-end case
// (slow clients against a real server) is in http_server_test.cc.
#include "src/server/connection_watchdog.h"

#include <gtest/gtest.h>

#include <vector>

namespace engram {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

const Clock::time_point kNow = Clock::time_point{} + std::chrono::hours(1);

WatchedConnection Waiting(Clock::duration age) {
  return {ConnectionPhase::kWaiting, kNow - age, {}};
}

TEST(ConnectionsToCloseTest, AWaitingConnectionIsClosedPastTheHeaderTimeout) {
  const ConnectionWatchdogOptions options;  // 5 s
  const std::vector<WatchedConnection> c = {Waiting(milliseconds(4900)),
                                            Waiting(milliseconds(5100))};
  EXPECT_EQ(ConnectionsToClose(c, kNow, 0, options), std::vector<size_t>({1}));
}

TEST(ConnectionsToCloseTest, ABodyGetsTimeForItsLengthAndAHandlerIsNeverCut) {
  const ConnectionWatchdogOptions options;
  const std::vector<WatchedConnection> c = {
      {ConnectionPhase::kBody, kNow - seconds(20), seconds(30)},      // within 5 + 30 s
      {ConnectionPhase::kBody, kNow - seconds(40), seconds(30)},      // past it
      {ConnectionPhase::kHandling, kNow - std::chrono::hours(1), {}}  // a long search
  };
  EXPECT_EQ(ConnectionsToClose(c, kNow, 10, options), std::vector<size_t>({1}));
}

TEST(ConnectionsToCloseTest, QueuedConnectionsMakeTheOldestWaitingOnesGoFirst) {
  const ConnectionWatchdogOptions options;  // shed after 1 s
  const std::vector<WatchedConnection> c = {
      Waiting(milliseconds(1500)), Waiting(milliseconds(3000)), Waiting(milliseconds(500)),
      Waiting(milliseconds(2000)), Waiting(milliseconds(6000))};
  // Nothing queues: only the one past the header timeout goes.
  EXPECT_EQ(ConnectionsToClose(c, kNow, 0, options), std::vector<size_t>({4}));
  // One queues: the timed-out one already makes room for it.
  EXPECT_EQ(ConnectionsToClose(c, kNow, 1, options), std::vector<size_t>({4}));
  // Three queue: two more, oldest first.
  EXPECT_EQ(ConnectionsToClose(c, kNow, 3, options), std::vector<size_t>({4, 1, 3}));
  // Many queue: every waiting one over 1 s, never the one just opened.
  EXPECT_EQ(ConnectionsToClose(c, kNow, 50, options), std::vector<size_t>({4, 1, 3, 0}));
}

}  // namespace
}  // namespace engram
