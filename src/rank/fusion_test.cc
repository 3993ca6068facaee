#include "src/rank/fusion.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace engram {
namespace {

FusionCandidate Make(std::string_view id, std::optional<double> lex, double temporal) {
  FusionCandidate c;
  c.id = id;
  c.lexical = lex;
  c.temporal = temporal;
  return c;
}

TEST(FusionTest, EffectiveWeightsRenormaliseOverPresentSignals) {
  const FusionWeights d;  // the defaults
  const FusionWeights w = EffectiveWeights({}, /*semantic=*/false, true, true);
  EXPECT_DOUBLE_EQ(w.semantic, 0.0);
  EXPECT_NEAR(w.lexical, d.lexical / (d.lexical + d.temporal), 1e-12);
  EXPECT_NEAR(w.temporal, d.temporal / (d.lexical + d.temporal), 1e-12);
}

TEST(FusionTest, NegativeWeightsCountAsZeroAndAllZeroMeansDefaults) {
  FusionWeights w = EffectiveWeights({-1, 1, 0}, true, true, true);
  EXPECT_DOUBLE_EQ(w.semantic, 0.0);
  EXPECT_DOUBLE_EQ(w.lexical, 1.0);
  w = EffectiveWeights({0, 0, 0}, true, true, true);
  EXPECT_NEAR(w.semantic, 0.34, 1e-12);
  EXPECT_NEAR(w.lexical, 0.51, 1e-12);
  EXPECT_NEAR(w.temporal, 0.15, 1e-12);
}

TEST(FusionTest, BlendedMinMaxesLexicalAndScalesTemporalAbsolutely) {
  const std::vector<FusionCandidate> in = {Make("a", 2.0, 0.5), Make("b", 4.0, 0.25),
                                           Make("c", 3.0, 0.0)};
  const FusionResult r = Fuse(in, FusionMode::kBlended, {});
  const FusionWeights d;
  const double wl = d.lexical / (d.lexical + d.temporal),
               wt = d.temporal / (d.lexical + d.temporal);
  ASSERT_EQ(r.ranked.size(), 3u);
  // b: lex 1.0, temporal 0.25 (max raw 0.5 < 1, so not rescaled).
  EXPECT_EQ(in[r.ranked[0].index].id, "b");
  EXPECT_NEAR(r.ranked[0].score, wl * 1.0 + wt * 0.25, 1e-12);
  EXPECT_EQ(in[r.ranked[1].index].id, "c");
  EXPECT_NEAR(r.ranked[1].score, wl * 0.5, 1e-12);
  EXPECT_EQ(in[r.ranked[2].index].id, "a");
  EXPECT_NEAR(r.ranked[2].score, wt * 0.5, 1e-12);
}

TEST(FusionTest, UniformlyOldFactsGetNoTemporalNoise) {
  // 1e-13 vs 1e-10: min-max would make these 0 and 1.
  const std::vector<FusionCandidate> in = {Make("a", 1.0, 1e-13), Make("b", 1.0, 1e-10)};
  const FusionResult r = Fuse(in, FusionMode::kBlended, {});
  for (const auto& c : r.ranked) EXPECT_LT(c.temporal.normalized, 1e-9);
}

TEST(FusionTest, ZeroSpreadKeepsTheAbsoluteValueAndTiesBreakById) {
  const std::vector<FusionCandidate> in = {Make("zz", 2.0, 0), Make("aa", 2.0, 0),
                                           Make("mm", 2.0, 0)};
  const FusionResult r = Fuse(in, FusionMode::kBlended, {});
  EXPECT_EQ(in[r.ranked[0].index].id, "aa");
  EXPECT_EQ(in[r.ranked[1].index].id, "mm");
  EXPECT_EQ(in[r.ranked[2].index].id, "zz");
  // Equal matches are all full matches, not all zero.
  for (const auto& c : r.ranked) EXPECT_EQ(c.lexical.normalized, 1.0);
  // A lone cosine keeps its value, clamped to [0, 1].
  FusionCandidate lone = Make("x", std::nullopt, 0);
  lone.semantic = 0.8;
  const FusionResult one = Fuse({lone}, FusionMode::kBlended, {});
  EXPECT_DOUBLE_EQ(one.ranked[0].semantic.normalized, 0.8);
  lone.semantic = -0.2;
  EXPECT_DOUBLE_EQ(Fuse({lone}, FusionMode::kBlended, {}).ranked[0].semantic.normalized, 0.0);
}

TEST(FusionTest, SingleSignalModesUseRawValues) {
  const std::vector<FusionCandidate> in = {Make("a", 1.0, 3.0), Make("b", 5.0, 0.1)};
  const FusionResult lex = Fuse(in, FusionMode::kLexical, {});
  EXPECT_EQ(in[lex.ranked[0].index].id, "b");
  EXPECT_DOUBLE_EQ(lex.ranked[0].score, 5.0);
  const FusionResult tmp = Fuse(in, FusionMode::kTemporal, {});
  EXPECT_EQ(in[tmp.ranked[0].index].id, "a");
  EXPECT_DOUBLE_EQ(tmp.ranked[0].score, 3.0);
}

TEST(FusionTest, TemporalAboveOneIsScaledByTheLargest) {
  const std::vector<FusionCandidate> in = {Make("a", std::nullopt, 4.0),
                                           Make("b", std::nullopt, 2.0)};
  const FusionResult r = Fuse(in, FusionMode::kBlended, {});
  EXPECT_DOUBLE_EQ(r.ranked[0].temporal.normalized, 1.0);
  EXPECT_DOUBLE_EQ(r.ranked[1].temporal.normalized, 0.5);
  EXPECT_DOUBLE_EQ(r.weights.temporal, 1.0);  // the only signal present
}

// Asked for the best few, Fuse orders those as a whole ranking would and
// leaves the rest out of order; asked for no signal ranks, it leaves them 0
// except under rrf, which scores by them.
TEST(FusionTest, NeedsBoundTheOrderAndTheSignalRanks) {
  std::vector<std::string> ids;
  ids.reserve(200);  // the candidates view them
  std::vector<FusionCandidate> in;
  for (int i = 0; i < 200; ++i) {
    // Scores with ties (i % 37), so the id tie-break takes part.
    ids.push_back("f" + std::to_string(i));
    in.push_back(Make(ids.back(), 1.0 + (i * 7919) % 37, (i % 5) * 0.1));
  }
  const FusionResult whole = Fuse(in, FusionMode::kBlended, {});
  FusionNeeds needs;
  needs.top = 10;
  needs.signal_ranks = false;
  const FusionResult best = Fuse(in, FusionMode::kBlended, {}, needs);
  ASSERT_EQ(best.ranked.size(), in.size());
  for (size_t i = 0; i < needs.top; ++i) {
    EXPECT_EQ(best.ranked[i].index, whole.ranked[i].index) << "position " << i;
    EXPECT_DOUBLE_EQ(best.ranked[i].score, whole.ranked[i].score);
    EXPECT_EQ(best.ranked[i].lexical.rank, 0u);
    EXPECT_GT(whole.ranked[i].lexical.rank, 0u);
  }
  const FusionResult rrf = Fuse(in, FusionMode::kRrf, {}, needs);
  const FusionResult rrf_whole = Fuse(in, FusionMode::kRrf, {});
  for (size_t i = 0; i < needs.top; ++i) {
    EXPECT_EQ(rrf.ranked[i].index, rrf_whole.ranked[i].index) << "position " << i;
    EXPECT_EQ(rrf.ranked[i].lexical.rank, rrf_whole.ranked[i].lexical.rank);
  }
}

}  // namespace
}  // namespace engram
