#include "src/vindex/hnsw_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <memory>
#include <vector>

#include "src/vindex/flat_index.h"
#include "src/vindex/test_vectors.h"

namespace engram {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RandomUnitVectors;
using testing::Recall;
using testing::Row;

std::unique_ptr<HnswIndex> MakeHnsw(size_t dimension, HnswIndexOptions options = {}) {
  auto index = HnswIndex::Create(dimension, options);
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  return std::move(index).value();
}

// One build thread (the same graph every run) and a cheaper build: these
// tests pin behaviour, the recall test pins quality with the defaults.
HnswIndexOptions Reproducible() {
  HnswIndexOptions options;
  options.build_threads = 1;
  options.ef_construction = 64;
  return options;
}

TEST(HnswIndexTest, RecallAtTenAgainstFlatIsAtLeast95Percent) {
  // Uniformly random vectors have no structure for the graph to use: at 32
  // dimensions they are a fair test at a size a debug build handles (real
  // embeddings, of low intrinsic dimension, are easier; much higher
  // dimensions of pure noise are harder: bench/RESULTS-vector.md).
  constexpr size_t kCount = 5000;
  constexpr size_t kDim = 32;
  const std::vector<float> data = RandomUnitVectors(kCount, kDim, 21);
  std::vector<int64_t> labels(kCount);
  for (size_t i = 0; i < kCount; ++i) labels[i] = static_cast<int64_t>(i) * 7 - 5000;

  HnswIndexOptions options;
  options.build_threads = 2;
  auto hnsw = MakeHnsw(kDim, options);
  ASSERT_TRUE(hnsw->UpsertBatch(labels, data).ok());
  FlatIndex flat(kDim);
  for (size_t i = 0; i < kCount; ++i) ASSERT_TRUE(flat.Upsert(labels[i], Row(data, kDim, i)).ok());
  ASSERT_EQ(hnsw->size(), kCount);

  constexpr size_t kQueries = 200;
  const std::vector<float> queries = RandomUnitVectors(kQueries, kDim, 22);
  double recall = 0.0;
  for (size_t q = 0; q < kQueries; ++q) {
    const auto exact = flat.Search(Row(queries, kDim, q), 10, -1.0f);
    const auto approx = hnsw->Search(Row(queries, kDim, q), 10, -1.0f);
    ASSERT_TRUE(exact.ok() && approx.ok());
    ASSERT_EQ(approx->size(), 10u);
    recall += Recall(*approx, *exact);
    // Scores are exact: the same float FlatIndex computes for that label.
    for (const ScoredLabel& hit : *approx) {
      EXPECT_EQ(flat.Score(Row(queries, kDim, q), hit.label), hit.score);
    }
  }
  recall /= kQueries;
  EXPECT_GE(recall, 0.95);
}

TEST(HnswIndexTest, SmallIndexIsExact) {
  // With ef above the size the graph search visits everything.
  constexpr size_t kDim = 16;
  const std::vector<float> data = RandomUnitVectors(300, kDim, 4);
  auto hnsw = MakeHnsw(kDim, Reproducible());
  FlatIndex flat(kDim);
  for (size_t i = 0; i < 300; ++i) {
    ASSERT_TRUE(hnsw->Upsert(static_cast<int64_t>(i), Row(data, kDim, i)).ok());
    ASSERT_TRUE(flat.Upsert(static_cast<int64_t>(i), Row(data, kDim, i)).ok());
  }
  const std::vector<float> queries = RandomUnitVectors(10, kDim, 5);
  for (size_t q = 0; q < 10; ++q) {
    const auto exact = flat.Search(Row(queries, kDim, q), 20, 0.1f);
    const auto approx = hnsw->SearchWithEf(Row(queries, kDim, q), 20, 0.1f, 400);
    ASSERT_TRUE(exact.ok() && approx.ok());
    EXPECT_EQ(*approx, *exact);
  }
}

TEST(HnswIndexTest, EqualScoresBreakByLabelAscending) {
  auto hnsw = MakeHnsw(4, Reproducible());
  const std::vector<float> same = {0.5f, 0.5f, 0.5f, 0.5f};
  for (const int64_t label : {40, 10, 30, 20}) ASSERT_TRUE(hnsw->Upsert(label, same).ok());
  ASSERT_TRUE(hnsw->Upsert(5, std::vector<float>{-1.0f, 0.0f, 0.0f, 0.0f}).ok());
  const auto hits = hnsw->Search(same, 3, -1.0f);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 3u);
  EXPECT_EQ((*hits)[0].label, 10);
  EXPECT_EQ((*hits)[1].label, 20);
  EXPECT_EQ((*hits)[2].label, 30);
}

TEST(HnswIndexTest, MinScoreIsAFloorAndEmptyCasesGiveNothing) {
  auto hnsw = MakeHnsw(8, Reproducible());
  const std::vector<float> query = RandomUnitVectors(1, 8, 1);
  auto hits = hnsw->Search(query, 5, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
  const std::vector<float> data = RandomUnitVectors(200, 8, 2);
  for (size_t i = 0; i < 200; ++i) {
    ASSERT_TRUE(hnsw->Upsert(static_cast<int64_t>(i), Row(data, 8, i)).ok());
  }
  hits = hnsw->Search(query, 0, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
  hits = hnsw->Search(query, 200, 0.5f);
  ASSERT_TRUE(hits.ok());
  EXPECT_FALSE(hits->empty());
  for (const ScoredLabel& hit : *hits) EXPECT_GE(hit.score, 0.5f);
}

TEST(HnswIndexTest, RemoveHidesTheLabelEverywhere) {
  const std::vector<float> data = RandomUnitVectors(500, 16, 9);
  auto hnsw = MakeHnsw(16, Reproducible());
  for (size_t i = 0; i < 500; ++i) {
    ASSERT_TRUE(hnsw->Upsert(static_cast<int64_t>(i), Row(data, 16, i)).ok());
  }
  EXPECT_TRUE(hnsw->Remove(42));
  EXPECT_FALSE(hnsw->Remove(42));
  EXPECT_FALSE(hnsw->Remove(1000));
  EXPECT_EQ(hnsw->size(), 499u);
  EXPECT_EQ(hnsw->DeletedCount(), 1u);
  EXPECT_FALSE(hnsw->Score(Row(data, 16, 42), 42).has_value());
  const std::vector<int64_t> labels = hnsw->Labels();
  EXPECT_EQ(labels.size(), 499u);
  EXPECT_FALSE(std::binary_search(labels.begin(), labels.end(), 42));
  const auto hits = hnsw->Search(Row(data, 16, 42), 10, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(hits->size(), 10u);
  for (const ScoredLabel& hit : *hits) EXPECT_NE(hit.label, 42);

  // Adding it back makes it findable again, in a new slot.
  ASSERT_TRUE(hnsw->Upsert(42, Row(data, 16, 42)).ok());
  const auto again = hnsw->Search(Row(data, 16, 42), 1, -1.0f);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].label, 42);
  EXPECT_EQ(hnsw->size(), 500u);
}

TEST(HnswIndexTest, UpsertOfAPresentLabelReplacesItsVector) {
  const std::vector<float> data = RandomUnitVectors(400, 16, 10);
  auto hnsw = MakeHnsw(16, Reproducible());
  for (size_t i = 0; i < 400; ++i) {
    ASSERT_TRUE(hnsw->Upsert(static_cast<int64_t>(i), Row(data, 16, i)).ok());
  }
  // Label 7 takes label 300's vector (scaled: Upsert normalises).
  std::vector<float> scaled(Row(data, 16, 300).begin(), Row(data, 16, 300).end());
  for (float& x : scaled) x *= 3.0f;
  ASSERT_TRUE(hnsw->Upsert(7, scaled).ok());
  EXPECT_EQ(hnsw->size(), 400u);
  EXPECT_EQ(hnsw->DeletedCount(), 1u);
  EXPECT_NEAR(hnsw->Score(Row(data, 16, 300), 7).value(), 1.0f, 1e-6);

  const auto old_query = hnsw->Search(Row(data, 16, 7), 400, -1.0f);
  ASSERT_TRUE(old_query.ok());
  for (const ScoredLabel& hit : *old_query) {
    if (hit.label == 7) {
      EXPECT_LT(hit.score, 0.99f);
    }
  }
  const auto new_query = hnsw->Search(Row(data, 16, 300), 2, -1.0f);
  ASSERT_TRUE(new_query.ok());
  ASSERT_EQ(new_query->size(), 2u);
  EXPECT_EQ((*new_query)[0].label, 7);  // equal score, smaller label
  EXPECT_EQ((*new_query)[1].label, 300);
}

TEST(HnswIndexTest, UpsertBatchMatchesOneByOneAndChecksEverythingFirst) {
  const std::vector<float> data = RandomUnitVectors(300, 8, 12);
  std::vector<int64_t> labels(300);
  for (size_t i = 0; i < 300; ++i) labels[i] = static_cast<int64_t>(i) + 1000;
  HnswIndexOptions two_threads = Reproducible();
  two_threads.build_threads = 2;
  auto hnsw = MakeHnsw(8, two_threads);
  ASSERT_TRUE(hnsw->Upsert(1000, Row(data, 8, 299)).ok());
  ASSERT_TRUE(hnsw->UpsertBatch(labels, data).ok());
  EXPECT_EQ(hnsw->size(), 300u);
  EXPECT_EQ(hnsw->DeletedCount(), 1u);  // the first 1000 was replaced
  EXPECT_NEAR(hnsw->Score(Row(data, 8, 0), 1000).value(), 1.0f, 1e-6);

  std::vector<float> bad = RandomUnitVectors(3, 8, 13);
  bad[8 + 3] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<int64_t> bad_labels = {1, 2, 3};
  const Status nan = hnsw->UpsertBatch(bad_labels, bad);
  EXPECT_EQ(nan.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(nan.message(), HasSubstr("vector 1: vindex: check vector: NaN at component 3"));
  const std::vector<int64_t> twice = {1, 2, 1};
  EXPECT_THAT(hnsw->UpsertBatch(twice, RandomUnitVectors(3, 8, 14)).message(),
              HasSubstr("label 1 appears twice"));
  EXPECT_THAT(hnsw->UpsertBatch(twice, RandomUnitVectors(2, 8, 14)).message(),
              HasSubstr("16 floats for 3 labels"));
  EXPECT_EQ(hnsw->size(), 300u);
  EXPECT_FALSE(hnsw->Score(Row(bad, 8, 0), 1).has_value());
  EXPECT_TRUE(hnsw->UpsertBatch({}, {}).ok());
}

// Deferred vectors answer as inserted ones do (searched exactly beside the
// graph), replace and are removed like them, and InsertDeferred moves them
// into the graph without changing an answer.
TEST(HnswIndexTest, DeferredVectorsAnswerAsInsertedOnesBeforeAndAfterTheyAreInserted) {
  constexpr size_t kDim = 16;
  const std::vector<float> data = RandomUnitVectors(351, kDim, 30);
  auto hnsw = MakeHnsw(kDim, Reproducible());
  FlatIndex flat(kDim);
  std::vector<int64_t> built(300);
  for (size_t i = 0; i < 300; ++i) {
    built[i] = static_cast<int64_t>(i);
    ASSERT_TRUE(flat.Upsert(built[i], Row(data, kDim, i)).ok());
  }
  ASSERT_TRUE(hnsw->UpsertBatch(built, std::span(data).first(300 * kDim)).ok());
  // 50 new labels, and label 5 replaced by row 350.
  std::vector<int64_t> later;
  std::vector<float> rows;
  for (size_t i = 300; i < 351; ++i) {
    const int64_t label = i == 350 ? 5 : static_cast<int64_t>(i);
    later.push_back(label);
    const std::span<const float> row = Row(data, kDim, i);
    rows.insert(rows.end(), row.begin(), row.end());
    ASSERT_TRUE(flat.Upsert(label, row).ok());
  }
  ASSERT_TRUE(hnsw->Defer(later, rows).ok());
  EXPECT_EQ(hnsw->size(), 350u);
  EXPECT_EQ(hnsw->DeferredCount(), 51u);
  EXPECT_EQ(hnsw->DeletedCount(), 1u);  // label 5's node in the graph
  EXPECT_EQ(hnsw->Labels(), flat.Labels());
  EXPECT_NEAR(hnsw->Score(Row(data, kDim, 350), 5).value(), 1.0f, 1e-6);
  const std::vector<float> queries = RandomUnitVectors(10, kDim, 31);
  const auto same_as_flat = [&](const char* when) {
    for (size_t q = 0; q < 10; ++q) {
      const auto exact = flat.Search(Row(queries, kDim, q), 20, 0.1f);
      const auto found = hnsw->SearchWithEf(Row(queries, kDim, q), 20, 0.1f, 400);
      ASSERT_TRUE(exact.ok() && found.ok());
      EXPECT_EQ(*found, *exact) << when << ", query " << q;
    }
  };
  ASSERT_NO_FATAL_FAILURE(same_as_flat("deferred"));

  EXPECT_TRUE(hnsw->Remove(310));
  EXPECT_TRUE(flat.Remove(310));
  EXPECT_EQ(hnsw->DeferredCount(), 50u);
  EXPECT_TRUE(hnsw->Vector(310).empty());
  ASSERT_NO_FATAL_FAILURE(same_as_flat("one removed"));

  EXPECT_EQ(hnsw->InsertDeferred(std::chrono::milliseconds(0)), 1u);  // at least one
  EXPECT_EQ(hnsw->InsertDeferred(std::chrono::hours(1)), 49u);
  EXPECT_EQ(hnsw->DeferredCount(), 0u);
  EXPECT_EQ(hnsw->InsertDeferred(std::chrono::hours(1)), 0u);
  EXPECT_EQ(hnsw->size(), 349u);
  EXPECT_EQ(hnsw->Labels(), flat.Labels());
  ASSERT_NO_FATAL_FAILURE(same_as_flat("all inserted"));

  std::vector<float> bad(kDim, 0.0f);
  const std::vector<int64_t> one = {999};
  EXPECT_THAT(hnsw->Defer(one, bad).message(), HasSubstr("vindex: hnsw defer: vector 0"));
  EXPECT_EQ(hnsw->size(), 349u);
}

TEST(HnswIndexTest, PruneRemovesWhatKeepRejects) {
  auto hnsw = MakeHnsw(8, Reproducible());
  const std::vector<float> data = RandomUnitVectors(100, 8, 15);
  for (size_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(hnsw->Upsert(static_cast<int64_t>(i), Row(data, 8, i)).ok());
  }
  EXPECT_EQ(hnsw->Prune([](int64_t label) { return label < 3; }), 97u);
  EXPECT_THAT(hnsw->Labels(), ElementsAre(0, 1, 2));
  const auto hits = hnsw->Search(Row(data, 8, 50), 10, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(hits->size(), 3u);
}

TEST(HnswIndexTest, GrowsPastItsInitialCapacity) {
  HnswIndexOptions options = Reproducible();
  options.initial_capacity = 2;
  auto hnsw = MakeHnsw(8, options);
  const std::vector<float> data = RandomUnitVectors(100, 8, 16);
  for (size_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(hnsw->Upsert(static_cast<int64_t>(i), Row(data, 8, i)).ok());
  }
  std::vector<int64_t> more_labels(50);
  for (size_t i = 0; i < 50; ++i) more_labels[i] = static_cast<int64_t>(i) + 100;
  ASSERT_TRUE(hnsw->UpsertBatch(more_labels, RandomUnitVectors(50, 8, 17)).ok());
  EXPECT_EQ(hnsw->size(), 150u);
  EXPECT_GT(hnsw->MemoryBytes(), 150u * 8u * sizeof(float));
}

TEST(HnswIndexTest, RejectsBadInput) {
  EXPECT_EQ(HnswIndex::Create(0).status().code(), StatusCode::kInvalidArgument);
  HnswIndexOptions options;
  options.m = 1;
  EXPECT_THAT(HnswIndex::Create(8, options).status().message(), HasSubstr("m is 1"));
  options.m = 16;
  options.ef_construction = 0;
  EXPECT_FALSE(HnswIndex::Create(8, options).ok());

  auto hnsw = MakeHnsw(4, Reproducible());
  EXPECT_THAT(hnsw->Upsert(1, std::vector<float>{1.0f}).message(), HasSubstr("got 1, want 4"));
  EXPECT_THAT(hnsw->Upsert(1, std::vector<float>(4, 0.0f)).message(), HasSubstr("zero norm"));
  EXPECT_EQ(hnsw->Search(std::vector<float>{1.0f}, 3, -1.0f).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(hnsw->size(), 0u);
}

}  // namespace
}  // namespace engram
