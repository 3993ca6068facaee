#include "src/vindex/best_window_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "src/vindex/test_vectors.h"

namespace engram {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RandomUnitVectors;

constexpr size_t kDim = 4;

// A unit vector along axis `axis` of kDim, scaled by `scale` (the index
// normalises it).
std::vector<float> Axis(size_t axis, float scale = 1.0f) {
  std::vector<float> v(kDim, 0.0f);
  v[axis] = scale;
  return v;
}

// Windows one after another.
std::vector<float> Windows(const std::vector<std::vector<float>>& windows) {
  std::vector<float> out;
  for (const auto& w : windows) out.insert(out.end(), w.begin(), w.end());
  return out;
}

BestWindowIndex Empty(size_t max_windows = 4) {
  return BestWindowIndex(std::make_unique<FlatIndex>(kDim), max_windows);
}

TEST(BestWindowIndexTest, ADocumentScoresByItsBestWindowNotItsFirst) {
  BestWindowIndex index = Empty();
  // Document 1 opens on axis 0 and turns to axis 1; document 2 sits halfway.
  ASSERT_TRUE(index.Upsert(1, Windows({Axis(0), Axis(1)})).ok());
  ASSERT_TRUE(index.Upsert(2, std::vector<float>{0.6f, 0.8f, 0.0f, 0.0f}).ok());
  const std::vector<float> query = Axis(1);
  auto hits = index.Search(query, 10, -1.0f);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_THAT(*hits, ElementsAre(ScoredLabel{1, 1.0f}, ScoredLabel{2, 0.8f}));
  EXPECT_EQ(index.Score(query, 1), 1.0f);
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.WindowsOf(1), 2u);
  // The first window stands for the document where one vector is wanted.
  EXPECT_THAT(index.Vector(1), ElementsAre(1.0f, 0.0f, 0.0f, 0.0f));
}

TEST(BestWindowIndexTest, SearchMatchesTheMaximumOverWindowsComputedByHand) {
  constexpr size_t kDocs = 60;
  constexpr size_t kMax = 5;
  constexpr size_t kDimension = 16;
  BestWindowIndex index(std::make_unique<FlatIndex>(kDimension), kMax);
  const std::vector<float> rows = RandomUnitVectors(kDocs * kMax, kDimension, 7);
  std::vector<size_t> windows(kDocs);
  for (size_t d = 0; d < kDocs; ++d) {
    windows[d] = 1 + (d * 7 % kMax);  // 1 to 5 windows
    const auto blob =
        std::span<const float>(rows).subspan(d * kMax * kDimension, windows[d] * kDimension);
    ASSERT_TRUE(index.Upsert(static_cast<int64_t>(10 + d), blob).ok());
  }
  const std::vector<float> query = RandomUnitVectors(1, kDimension, 99);
  std::vector<ScoredLabel> expected;
  for (size_t d = 0; d < kDocs; ++d) {
    float best = -2.0f;
    for (size_t w = 0; w < windows[d]; ++w) {
      best = std::max(best,
                      Dot(query.data(), rows.data() + ((d * kMax + w) * kDimension), kDimension));
    }
    expected.push_back(ScoredLabel{static_cast<int64_t>(10 + d), best});
  }
  std::sort(expected.begin(), expected.end(), [](const ScoredLabel& a, const ScoredLabel& b) {
    return a.score > b.score || (a.score == b.score && a.label < b.label);
  });
  for (const size_t k : {size_t{1}, size_t{7}, kDocs, kDocs + 5}) {
    const std::vector<int64_t> asked = {12, 999, 40};
    std::vector<std::optional<float>> scores;
    auto hits = index.SearchAndScore(query, k, -1.0f, asked, &scores);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    ASSERT_EQ(hits->size(), std::min(k, kDocs)) << "k " << k;
    for (size_t i = 0; i < hits->size(); ++i) {
      EXPECT_EQ((*hits)[i].label, expected[i].label) << "k " << k << " rank " << i;
      EXPECT_NEAR((*hits)[i].score, expected[i].score, 1e-5) << "k " << k << " rank " << i;
    }
    ASSERT_EQ(scores.size(), 3u);
    EXPECT_EQ(scores[0], index.Score(query, 12));
    EXPECT_FALSE(scores[1].has_value());
    EXPECT_EQ(scores[2], index.Score(query, 40));
  }
  // A threshold keeps only documents whose best window reaches it.
  auto above = index.Search(query, kDocs, expected[3].score);
  ASSERT_TRUE(above.ok());
  EXPECT_EQ(above->size(), 4u);
}

TEST(BestWindowIndexTest, UpsertReplacesEveryWindowAndRemoveAndPruneTakeThemAll) {
  BestWindowIndex index = Empty();
  ASSERT_TRUE(index.Upsert(1, Windows({Axis(0), Axis(1), Axis(2)})).ok());
  ASSERT_TRUE(index.Upsert(1, Windows({Axis(3)})).ok());
  EXPECT_EQ(index.WindowsOf(1), 1u);
  EXPECT_EQ(index.Score(Axis(2), 1), 0.0f);  // the old windows are gone
  ASSERT_TRUE(index.Upsert(2, Windows({Axis(0), Axis(2)})).ok());
  ASSERT_TRUE(index.Upsert(3, Windows({Axis(1), Axis(1, 2.0f)})).ok());
  EXPECT_THAT(index.Labels(), ElementsAre(1, 2, 3));
  EXPECT_TRUE(index.Remove(2));
  EXPECT_FALSE(index.Remove(2));
  EXPECT_FALSE(index.Score(Axis(0), 2).has_value());
  EXPECT_EQ(index.Prune([](int64_t label) { return label != 3; }), 1u);
  EXPECT_THAT(index.Labels(), ElementsAre(1));
  auto hits = index.Search(Axis(1), 10, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_THAT(*hits, ElementsAre(ScoredLabel{1, 0.0f}));
}

TEST(BestWindowIndexTest, BadInputIsRefusedAndLeavesTheDocumentAsItWas) {
  BestWindowIndex index = Empty(2);
  ASSERT_TRUE(index.Upsert(1, Windows({Axis(0), Axis(1)})).ok());
  Status size = index.Upsert(1, std::vector<float>(kDim + 1, 1.0f));
  EXPECT_THAT(size.message(),
              HasSubstr("wrong size: got 5 floats, want a multiple of 4, at most 8"));
  Status too_many = index.Upsert(1, Windows({Axis(0), Axis(1), Axis(2)}));
  EXPECT_THAT(too_many.message(), HasSubstr("wrong size: got 12 floats"));
  Status zero = index.Upsert(1, Windows({Axis(2), std::vector<float>(kDim, 0.0f)}));
  EXPECT_THAT(zero.message(), HasSubstr("window 1: zero norm"));
  Status label = index.Upsert(std::numeric_limits<int64_t>::max() / 2, Axis(0));
  EXPECT_THAT(label.message(), HasSubstr("out of range"));
  Status negative = index.Upsert(-1, Axis(0));
  EXPECT_THAT(negative.message(), HasSubstr("out of range"));
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(index.WindowsOf(1), 2u);
  EXPECT_EQ(index.Score(Axis(1), 1), 1.0f);
}

TEST(BestWindowIndexTest, OneWindowSpacesGetAPlainFlatIndex) {
  const std::unique_ptr<VectorIndex> flat = NewExactIndex(kDim, 1, 8);
  EXPECT_NE(dynamic_cast<FlatIndex*>(flat.get()), nullptr);
  const std::unique_ptr<VectorIndex> windowed = NewExactIndex(kDim, 16, 8);
  EXPECT_NE(dynamic_cast<BestWindowIndex*>(windowed.get()), nullptr);
  EXPECT_TRUE(windowed->Upsert(5, Windows({Axis(0), Axis(1)})).ok());
  EXPECT_FALSE(flat->Upsert(5, Windows({Axis(0), Axis(1)})).ok());
}

}  // namespace
}  // namespace engram
