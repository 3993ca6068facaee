// RM3's relevance model and Rocchio's vector against hand-computed values.
#include "src/hyde/feedback.h"

#include <gtest/gtest.h>

#include <cmath>

namespace engram {
namespace {

TEST(RelevanceModelTest, WeighsTermsByDocumentScoreAndShare) {
  // "cherry banana cherry" (3 terms) with weight 3, "banana date" (2) with
  // weight 1: w = 0.75 and 0.25. P(cherri) = 0.75 * 2/3 = 0.5, P(banana) =
  // 0.75 * 1/3 + 0.25 * 1/2 = 0.375, P(date) = 0.125.
  const std::vector<WeightedTerm> model =
      RelevanceModel({{"cherry banana cherry", 3.0}, {"banana date", 1.0}}, 10);
  ASSERT_EQ(model.size(), 3u);
  EXPECT_EQ(model[0].term, "cherri");
  EXPECT_NEAR(model[0].weight, 0.5, 1e-12);
  EXPECT_EQ(model[1].term, "banana");
  EXPECT_NEAR(model[1].weight, 0.375, 1e-12);
  EXPECT_EQ(model[2].term, "date");
  EXPECT_NEAR(model[2].weight, 0.125, 1e-12);
}

TEST(RelevanceModelTest, KeepsTheMostProbableAndRenormalises) {
  const std::vector<WeightedTerm> model =
      RelevanceModel({{"cherry banana cherry", 3.0}, {"banana date", 1.0}}, 2);
  ASSERT_EQ(model.size(), 2u);
  EXPECT_NEAR(model[0].weight, 0.5 / 0.875, 1e-12);
  EXPECT_NEAR(model[1].weight, 0.375 / 0.875, 1e-12);
}

TEST(RelevanceModelTest, ZeroScoresWeighDocumentsEqually) {
  // Stop words are not terms: "the" adds nothing to the lengths.
  const std::vector<WeightedTerm> model = RelevanceModel({{"the apple", 0.0}, {"pear", 0.0}}, 10);
  ASSERT_EQ(model.size(), 2u);
  EXPECT_NEAR(model[0].weight, 0.5, 1e-12);
  EXPECT_NEAR(model[1].weight, 0.5, 1e-12);
  EXPECT_EQ(model[0].term, "appl") << "ties fall by term";
}

TEST(RelevanceModelTest, NothingToLearnFrom) {
  EXPECT_TRUE(RelevanceModel({}, 10).empty());
  EXPECT_TRUE(RelevanceModel({{"what is it", 1.0}}, 10).empty());
  EXPECT_TRUE(RelevanceModel({{"apple", 1.0}}, 0).empty());
}

TEST(RocchioVectorTest, MovesTheQueryTowardTheMeanOfTheDocuments) {
  // q = (1, 0), docs (0, 1) and (0, 1): q + 0.5 * (0, 1) = (1, 0.5), over
  // its norm sqrt(1.25).
  const std::vector<float> v = RocchioVector({1, 0}, {{0, 1}, {0, 1}}, 0.5);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NEAR(v[0], 1.0 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR(v[1], 0.5 / std::sqrt(1.25), 1e-6);
  for (const std::vector<float>& same :
       {RocchioVector({0.6f, 0.8f}, {}, 0.5), RocchioVector({0.6f, 0.8f}, {{1, 0}}, 0.0)}) {
    ASSERT_EQ(same.size(), 2u);
    EXPECT_NEAR(same[0], 0.6, 1e-6);
    EXPECT_NEAR(same[1], 0.8, 1e-6);
  }
}

}  // namespace
}  // namespace engram
