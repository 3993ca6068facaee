#include "src/rank/temporal.h"

#include <gtest/gtest.h>

#include <cmath>

namespace engram {
namespace {

constexpr Timestamp kDay = 86400000;

TEST(TemporalTest, FreshUnusedFactScoresOne) {
  EXPECT_DOUBLE_EQ(TemporalScore(0, 10 * kDay, 10 * kDay, {}), 1.0);
}

TEST(TemporalTest, HalvesEveryHalfLife) {
  TemporalOptions o;
  o.half_life_days = 30;
  EXPECT_NEAR(TemporalScore(0, 0, 30 * kDay, o), 0.5, 1e-12);
  EXPECT_NEAR(TemporalScore(0, 0, 60 * kDay, o), 0.25, 1e-12);
}

TEST(TemporalTest, UseCountsLogarithmically) {
  // (1 + ln(1 + 9)) at zero age.
  EXPECT_NEAR(TemporalScore(9, 0, 0, {}), 1.0 + std::log(10.0), 1e-12);
}

TEST(TemporalTest, FutureAccessClampsToZeroDays) {
  EXPECT_DOUBLE_EQ(TemporalScore(0, 5 * kDay, 1 * kDay, {}), 1.0);
}

}  // namespace
}  // namespace engram
