#include "src/eval/update_metrics.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

EvalRun RunOf(std::map<std::string, std::vector<std::string>> ranked) {
  EvalRun run;
  for (const auto& [query, docs] : ranked) {
    double score = static_cast<double>(docs.size());
    for (const std::string& d : docs) run[query].push_back(ScoredDoc{d, score--});
  }
  return run;
}

TEST(UpdateMetricsTest, CountsCurrentFirstStaleAboveAndBothPairsOverTheirQueries) {
  const Qrels qrels = {{"u1", {{"new", 2}}},         {"u2", {{"new", 2}}},
                       {"u3", {{"new", 2}}},         {"p1", {{"a", 2}, {"b", 2}}},
                       {"p2", {{"a", 2}, {"b", 2}}}, {"f1", {{"x", 2}}}};
  const Qrels stale = {{"u1", {{"old", 1}}}, {"u2", {{"old", 1}}}, {"u3", {{"old", 1}}}};
  const EvalRun run = RunOf({
      {"u1", {"new", "old"}},                                           // current first
      {"u2", {"other", "old", "new"}},                                  // stale above the current
      {"u3", {"other", "new", "old"}},                                  // current above the stale
      {"p1", {"a", "z", "b"}},                                          // both in the top 10
      {"p2", {"a", "1", "2", "3", "4", "5", "6", "7", "8", "9", "b"}},  // b at 11
      {"f1", {"x"}},                                                    // one relevant: not a pair
  });
  const EvalUpdateFigures f = ComputeUpdateFigures(run, qrels, stale);
  EXPECT_EQ(f.update_queries, 3u);
  EXPECT_DOUBLE_EQ(f.current_at_1, 1.0 / 3);
  EXPECT_DOUBLE_EQ(f.stale_above_at_10, 1.0 / 3);
  EXPECT_EQ(f.pair_queries, 2u);
  EXPECT_DOUBLE_EQ(f.both_at_10, 0.5);
}

TEST(UpdateMetricsTest, AStaleFactInTheTopTenWithNoCurrentOneCountsAsAbove) {
  const Qrels qrels = {{"u", {{"new", 2}}}};
  const Qrels stale = {{"u", {{"old", 1}}}};
  const EvalUpdateFigures f = ComputeUpdateFigures(RunOf({{"u", {"old"}}}), qrels, stale);
  EXPECT_DOUBLE_EQ(f.stale_above_at_10, 1.0);
  EXPECT_DOUBLE_EQ(f.current_at_1, 0.0);
  const EvalUpdateFigures none = ComputeUpdateFigures(RunOf({{"u", {}}}), qrels, stale);
  EXPECT_DOUBLE_EQ(none.stale_above_at_10, 0.0);
}

}  // namespace
}  // namespace engram
