#include "src/rank/version_order.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace engram {
namespace {

// A fused ranking of candidates 0..n-1 with the given scores, best first.
FusionResult Ranked(const std::vector<double>& scores) {
  FusionResult r;
  for (size_t i = 0; i < scores.size(); ++i) {
    FusedCandidate c;
    c.index = i;
    c.score = scores[i];
    r.ranked.push_back(c);
  }
  std::stable_sort(
      r.ranked.begin(), r.ranked.end(),
      [](const FusedCandidate& a, const FusedCandidate& b) { return a.score > b.score; });
  return r;
}

std::vector<size_t> Order(const FusionResult& r) {
  std::vector<size_t> out;
  for (const FusedCandidate& c : r.ranked) out.push_back(c.index);
  return out;
}

TEST(VersionOrderTest, NewerVersionTakesTheOlderScoreAndRanksJustAboveIt) {
  // 0: old version (best), 1: unrelated, 2: its newer version (worst).
  FusionResult r = Ranked({0.9, 0.5, 0.2});
  const auto lifts = OrderNewerFirst({100, 150, 200}, {{0, 2}}, 0.0, 1, &r);
  EXPECT_EQ(Order(r), (std::vector<size_t>{2, 0, 1}));
  EXPECT_DOUBLE_EQ(r.ranked[0].score, 0.9);
  ASSERT_TRUE(lifts[0].lifted_by.has_value());
  EXPECT_EQ(*lifts[0].lifted_by, 0u);
  EXPECT_DOUBLE_EQ(lifts[0].own_score, 0.2);
  EXPECT_FALSE(lifts[1].lifted_by.has_value());
  EXPECT_DOUBLE_EQ(r.ranked[1].score, 0.9);  // the older keeps its own score
}

TEST(VersionOrderTest, AChainPutsItsNewestFirstWhereverTheBestStood) {
  // A (0) -> B (1) -> C (2); B scores best.
  FusionResult r = Ranked({0.3, 0.8, 0.1, 0.5});
  OrderNewerFirst({10, 20, 30, 15}, {{0, 1}, {1, 2}}, 0.0, 1, &r);
  EXPECT_EQ(Order(r), (std::vector<size_t>{2, 1, 3, 0}));
}

TEST(VersionOrderTest, AVersionBelowTheShareOfTheOlderScoreIsNotLifted) {
  FusionResult r = Ranked({0.9, 0.5, 0.2});
  OrderNewerFirst({100, 150, 200}, {{0, 2}}, 0.5, 1, &r);
  EXPECT_EQ(Order(r), (std::vector<size_t>{0, 1, 2}));
}

TEST(VersionOrderTest, AnOlderFactLiftsOnlyItsBestNewerVersionsUpToTheLimit) {
  // Three newer look-alikes of 0; one successor allowed: the best of them.
  FusionResult r = Ranked({0.9, 0.1, 0.3, 0.2});
  OrderNewerFirst({1, 2, 3, 4}, {{0, 1}, {0, 2}, {0, 3}}, 0.0, 1, &r);
  EXPECT_EQ(Order(r), (std::vector<size_t>{2, 0, 3, 1}));
  FusionResult two = Ranked({0.9, 0.1, 0.3, 0.2});
  OrderNewerFirst({1, 2, 3, 4}, {{0, 1}, {0, 2}, {0, 3}}, 0.0, 2, &two);
  // Two successors: both above 0, the better scoring of them first.
  EXPECT_EQ(Order(two), (std::vector<size_t>{2, 3, 0, 1}));
}

TEST(VersionOrderTest, LinksBetweenFactsOfOneInstantOrPointingBackAreIgnored) {
  FusionResult r = Ranked({0.9, 0.2, 0.1});
  OrderNewerFirst({100, 100, 50}, {{0, 1}, {0, 2}}, 0.0, 1, &r);
  EXPECT_EQ(Order(r), (std::vector<size_t>{0, 1, 2}));
}

TEST(VersionOrderTest, AlreadyAboveStaysAsFused) {
  FusionResult r = Ranked({0.4, 0.9});
  const auto lifts = OrderNewerFirst({1, 2}, {{0, 1}}, 0.0, 1, &r);
  EXPECT_EQ(Order(r), (std::vector<size_t>{1, 0}));
  EXPECT_FALSE(lifts[0].lifted_by.has_value());
}

}  // namespace
}  // namespace engram
