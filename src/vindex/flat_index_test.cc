#include "src/vindex/flat_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <numeric>
#include <vector>

#include "src/vindex/test_vectors.h"

namespace engram {
namespace {

using testing::BruteForce;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RandomUnitVectors;
using testing::Recall;
using testing::Row;

// Options for a search on `n` threads, whatever the index's size.
FlatIndexOptions Threads(size_t n) {
  FlatIndexOptions options;
  options.threads = n;
  options.parallel_min_rows = 1;
  return options;
}

// An index holding `count` random unit vectors under labels 3 * i + 1.
struct Filled {
  Filled(size_t count, size_t dimension, FlatIndexOptions options = {}, uint32_t seed = 1)
      : dim(dimension), data(RandomUnitVectors(count, dimension, seed)), index(dimension, options) {
    for (size_t i = 0; i < count; ++i) {
      labels.push_back(static_cast<int64_t>((3 * i) + 1));
      EXPECT_TRUE(index.Upsert(labels.back(), Row(data, dim, i)).ok());
    }
  }
  size_t dim;
  std::vector<float> data;
  std::vector<int64_t> labels;
  FlatIndex index;
};

TEST(FlatIndexTest, TopKEqualsBruteForceSort) {
  Filled f(2000, 48);
  const std::vector<float> queries = RandomUnitVectors(20, 48, 99);
  for (size_t q = 0; q < 20; ++q) {
    for (const size_t k : {size_t{1}, size_t{10}, size_t{100}, size_t{5000}}) {
      const auto hits = f.index.Search(Row(queries, 48, q), k, -2.0f);
      ASSERT_TRUE(hits.ok());
      EXPECT_EQ(*hits, BruteForce(Row(queries, 48, q), f.data, f.labels, 48, k, -2.0f))
          << "query " << q << " k " << k;
    }
  }
}

TEST(FlatIndexTest, EqualScoresBreakByLabelAscending) {
  FlatIndex index(4);
  const std::vector<float> same = {1.0f, 2.0f, 3.0f, 4.0f};
  const std::vector<float> other = {-1.0f, 0.0f, 0.0f, 0.0f};
  for (const int64_t label : {9, 5, 1, 7, 3}) ASSERT_TRUE(index.Upsert(label, same).ok());
  ASSERT_TRUE(index.Upsert(2, other).ok());
  std::vector<float> query = same;
  ASSERT_TRUE(NormalizeInPlace(query).ok());
  const auto hits = index.Search(query, 3, -1.0f);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 3u);
  EXPECT_EQ((*hits)[0].label, 1);
  EXPECT_EQ((*hits)[1].label, 3);
  EXPECT_EQ((*hits)[2].label, 5);
  EXPECT_EQ((*hits)[0].score, (*hits)[2].score);
}

TEST(FlatIndexTest, MinScoreIsAFloor) {
  Filled f(500, 16);
  const std::vector<float> query = RandomUnitVectors(1, 16, 5);
  for (const float floor : {-1.0f, 0.0f, 0.3f, 0.6f, 1.5f}) {
    const auto hits = f.index.Search(query, 50, floor);
    ASSERT_TRUE(hits.ok());
    for (const ScoredLabel& hit : *hits) EXPECT_GE(hit.score, floor);
    EXPECT_EQ(*hits, BruteForce(query, f.data, f.labels, 16, 50, floor)) << floor;
  }
  const auto none = f.index.Search(query, 50, 1.5f);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(FlatIndexTest, EmptyIndexOrZeroKGivesNothing) {
  FlatIndex empty(8);
  const std::vector<float> query = RandomUnitVectors(1, 8, 2);
  auto hits = empty.Search(query, 10, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
  Filled f(10, 8);
  hits = f.index.Search(query, 0, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
}

TEST(FlatIndexTest, UpsertNormalisesAndReplacesAPresentLabel) {
  FlatIndex index(3);
  ASSERT_TRUE(index.Upsert(42, std::vector<float>{0.0f, 10.0f, 0.0f}).ok());
  const std::vector<float> y = {0.0f, 1.0f, 0.0f};
  const std::vector<float> z = {0.0f, 0.0f, 1.0f};
  EXPECT_FLOAT_EQ(index.Score(y, 42).value(), 1.0f);
  ASSERT_TRUE(index.Upsert(42, std::vector<float>{0.0f, 0.0f, -5.0f}).ok());
  EXPECT_EQ(index.size(), 1u);
  EXPECT_FLOAT_EQ(index.Score(y, 42).value(), 0.0f);
  EXPECT_FLOAT_EQ(index.Score(z, 42).value(), -1.0f);
}

TEST(FlatIndexTest, UpsertRejectsBadVectorsAndLeavesTheIndexAsItWas) {
  FlatIndex index(3);
  ASSERT_TRUE(index.Upsert(1, std::vector<float>{1.0f, 0.0f, 0.0f}).ok());
  const Status wrong_dim = index.Upsert(2, std::vector<float>{1.0f, 0.0f});
  EXPECT_EQ(wrong_dim.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong_dim.message(), HasSubstr("got 2, want 3"));
  const Status nan =
      index.Upsert(1, std::vector<float>{1.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f});
  EXPECT_THAT(nan.message(), HasSubstr("NaN at component 1"));
  EXPECT_FALSE(index.Upsert(3, std::vector<float>{0.0f, 0.0f, 0.0f}).ok());
  EXPECT_EQ(index.size(), 1u);
  EXPECT_FLOAT_EQ(index.Score(std::vector<float>{1.0f, 0.0f, 0.0f}, 1).value(), 1.0f);
}

TEST(FlatIndexTest, SearchRejectsABadQuery) {
  Filled f(10, 4);
  const auto wrong = f.index.Search(std::vector<float>{1.0f, 0.0f}, 3, -1.0f);
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("got 2, want 4"));
  const float inf = std::numeric_limits<float>::infinity();
  const auto bad = f.index.Search(std::vector<float>{0.0f, 0.0f, inf, 0.0f}, 3, -1.0f);
  EXPECT_THAT(bad.status().message(), HasSubstr("infinity at component 2"));
  EXPECT_FALSE(f.index.Score(std::vector<float>{1.0f}, f.labels[0]).has_value());
}

TEST(FlatIndexTest, RemoveMovesTheLastRowIntoTheHole) {
  Filled f(50, 8);
  EXPECT_TRUE(f.index.Remove(f.labels[10]));
  EXPECT_FALSE(f.index.Remove(f.labels[10]));
  EXPECT_FALSE(f.index.Remove(-5));
  EXPECT_EQ(f.index.size(), 49u);
  EXPECT_FALSE(f.index.Score(Row(f.data, 8, 10), f.labels[10]).has_value());
  // The moved row (the last one) still scores as itself.
  EXPECT_NEAR(f.index.Score(Row(f.data, 8, 49), f.labels[49]).value(), 1.0f, 1e-6);

  std::vector<float> rest;
  std::vector<int64_t> rest_labels;
  for (size_t i = 0; i < 50; ++i) {
    if (i == 10) continue;
    rest.insert(rest.end(), Row(f.data, 8, i).begin(), Row(f.data, 8, i).end());
    rest_labels.push_back(f.labels[i]);
  }
  const std::vector<float> query = RandomUnitVectors(1, 8, 77);
  const auto hits = f.index.Search(query, 100, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(*hits, BruteForce(query, rest, rest_labels, 8, 100, -1.0f));
}

TEST(FlatIndexTest, PruneKeepsOnlyWhatKeepAccepts) {
  Filled f(300, 8);
  const size_t removed = f.index.Prune([](int64_t label) { return label % 2 == 0; });
  std::vector<float> kept;
  std::vector<int64_t> kept_labels;
  for (size_t i = 0; i < 300; ++i) {
    if (f.labels[i] % 2 != 0) continue;
    kept.insert(kept.end(), Row(f.data, 8, i).begin(), Row(f.data, 8, i).end());
    kept_labels.push_back(f.labels[i]);
  }
  EXPECT_EQ(removed, 300 - kept_labels.size());
  EXPECT_EQ(f.index.size(), kept_labels.size());
  EXPECT_EQ(f.index.Labels(), kept_labels);
  const std::vector<float> query = RandomUnitVectors(1, 8, 8);
  const auto hits = f.index.Search(query, 20, -1.0f);
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(*hits, BruteForce(query, kept, kept_labels, 8, 20, -1.0f));
  EXPECT_EQ(f.index.Prune([](int64_t) { return true; }), 0u);
  EXPECT_EQ(f.index.Prune([](int64_t) { return false; }), kept_labels.size());
  EXPECT_EQ(f.index.size(), 0u);
}

TEST(FlatIndexTest, LabelsAreAscending) {
  FlatIndex index(2);
  for (const int64_t label : {5, -3, 12, 0}) {
    ASSERT_TRUE(index.Upsert(label, std::vector<float>{1.0f, 1.0f}).ok());
  }
  EXPECT_THAT(index.Labels(), ElementsAre(-3, 0, 5, 12));
}

TEST(FlatIndexTest, ScoreEqualsTheSearchScoreBitForBit) {
  Filled f(333, 100);
  const std::vector<float> query = RandomUnitVectors(1, 100, 4);
  const auto hits = f.index.Search(query, 333, -1.0f);
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 333u);
  for (const ScoredLabel& hit : *hits) EXPECT_EQ(f.index.Score(query, hit.label), hit.score);
}

TEST(FlatIndexTest, ThreadedSearchEqualsSingleThreaded) {
  // Rows of equal vectors make ties across the slices of different threads.
  Filled a(20000, 32, Threads(4), 3);
  Filled b(20000, 32, Threads(1), 3);
  const std::vector<float> dup = RandomUnitVectors(1, 32, 1234);
  for (const int64_t label : {-1, 999999, 50000, 7}) {
    ASSERT_TRUE(a.index.Upsert(label, dup).ok());
    ASSERT_TRUE(b.index.Upsert(label, dup).ok());
  }
  const std::vector<float> queries = RandomUnitVectors(10, 32, 55);
  for (size_t q = 0; q < 10; ++q) {
    for (const size_t k : {size_t{1}, size_t{10}, size_t{1000}}) {
      const auto ta = a.index.Search(Row(queries, 32, q), k, -1.0f);
      const auto tb = b.index.Search(Row(queries, 32, q), k, -1.0f);
      ASSERT_TRUE(ta.ok() && tb.ok());
      EXPECT_EQ(*ta, *tb) << q << " " << k;
    }
  }
  const auto ties = a.index.Search(dup, 4, -1.0f);
  ASSERT_TRUE(ties.ok());
  ASSERT_EQ(ties->size(), 4u);
  EXPECT_EQ((*ties)[0].label, -1);
  EXPECT_EQ((*ties)[1].label, 7);
  EXPECT_EQ((*ties)[2].label, 50000);
  EXPECT_EQ((*ties)[3].label, 999999);
}

TEST(FlatIndexTest, SearchAndScoreEqualsSearchThenScoreBitForBit) {
  for (const FlatIndexOptions& options : {Threads(1), Threads(3)}) {
    Filled f(13000, 48, options, 9);
    // Present labels from every thread's slice, absent ones, a repeat.
    const std::vector<int64_t> labels = {1, 2, 3 * 6500 + 1, 3 * 12999 + 1, 0, 3 * 13000 + 1, 1};
    const std::vector<float> query = RandomUnitVectors(1, 48, 21);
    for (const size_t k : {size_t{0}, size_t{1}, size_t{25}}) {
      std::vector<std::optional<float>> scores = {0.5f};  // replaced, not appended to
      const auto both = f.index.SearchAndScore(query, k, -1.0f, labels, &scores);
      const auto hits = f.index.Search(query, k, -1.0f);
      ASSERT_TRUE(both.ok() && hits.ok());
      EXPECT_EQ(*both, *hits) << "threads " << options.threads << ", k " << k;
      ASSERT_EQ(scores.size(), labels.size());
      for (size_t i = 0; i < labels.size(); ++i) {
        EXPECT_EQ(scores[i], f.index.Score(query, labels[i])) << "label " << labels[i];
      }
      EXPECT_TRUE(scores[0].has_value());
      EXPECT_FALSE(scores[4].has_value());
      EXPECT_FALSE(scores[5].has_value());
    }
  }
  std::vector<std::optional<float>> scores;
  const std::vector<int64_t> labels = {1};
  EXPECT_FALSE(Filled(10, 8)
                   .index.SearchAndScore(std::vector<float>(7, 0.1f), 3, -1.0f, labels, &scores)
                   .ok());
}

// Options for an int8 scan on `n` threads, whatever the index's size.
FlatIndexOptions Int8Scan(size_t threads) {
  FlatIndexOptions options = Threads(threads);
  options.int8_scan = true;
  return options;
}

// The code scan finds what the float scan finds, the same hits in the
// same order with the same scores bit for bit, on any data: random rows,
// rows in a few tight clusters (many scores within the codes' error of one
// another), and rows repeated under other labels (exact ties, broken by
// label), for k from 1 to more than every row, with and without a
// min_score, on one thread and on three.
TEST(FlatIndexInt8Test, FindsExactlyWhatTheFloatScanFinds) {
  constexpr size_t kDim = 64;
  const auto clustered = [](size_t count, uint32_t seed) {
    const std::vector<float> centres = RandomUnitVectors(4, kDim, seed);
    std::vector<float> noise = RandomUnitVectors(count, kDim, seed + 1);
    std::vector<float> rows(count * kDim);
    for (size_t i = 0; i < count; ++i) {
      for (size_t d = 0; d < kDim; ++d) {
        rows[(i * kDim) + d] = centres[((i % 4) * kDim) + d] + (0.01f * noise[(i * kDim) + d]);
      }
    }
    return rows;
  };
  std::vector<float> repeated = RandomUnitVectors(6500, kDim, 21);
  repeated.insert(repeated.end(), repeated.begin(), repeated.end());  // each row twice
  const std::vector<std::pair<std::string, std::vector<float>>> sets = {
      {"random", RandomUnitVectors(13000, kDim, 2)},
      {"clustered", clustered(13000, 31)},
      {"repeated", repeated},
  };
  size_t compared = 0;
  for (const auto& [name, data] : sets) {
    const size_t count = data.size() / kDim;
    for (const size_t threads : {size_t{1}, size_t{3}}) {
      // 13,000 rows: three slices of at least 4,096 rows on three threads.
      FlatIndex plain(kDim, Threads(threads));
      FlatIndex coded(kDim, Int8Scan(threads));
      for (size_t i = 0; i < count; ++i) {
        const auto label = static_cast<int64_t>((7 * i) + 3);
        ASSERT_TRUE(plain.Upsert(label, Row(data, kDim, i)).ok());
        ASSERT_TRUE(coded.Upsert(label, Row(data, kDim, i)).ok());
      }
      std::vector<float> queries = RandomUnitVectors(8, kDim, 77);
      // Queries at the rows themselves, where the best scores crowd.
      for (const size_t row : {size_t{0}, size_t{5}, count / 2}) {
        const std::span<const float> r = Row(data, kDim, row);
        queries.insert(queries.end(), r.begin(), r.end());
      }
      for (size_t q = 0; q < queries.size() / kDim; ++q) {
        for (const size_t k : {size_t{1}, size_t{10}, size_t{24}, size_t{300}, count + 5}) {
          for (const float min_score : {-2.0f, 0.2f}) {
            const auto expected = plain.Search(Row(queries, kDim, q), k, min_score);
            const auto got = coded.Search(Row(queries, kDim, q), k, min_score);
            ASSERT_TRUE(expected.ok() && got.ok());
            ASSERT_EQ(*got, *expected) << name << " threads " << threads << " query " << q << " k "
                                       << k << " min_score " << min_score;
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_EQ(compared, 3u * 2u * 11u * 5u * 2u);
}

TEST(FlatIndexInt8Test, MinScoreFloorsTheExactScores) {
  Filled f(500, 16, Int8Scan(1), 4);
  const std::vector<float> query = RandomUnitVectors(1, 16, 5);
  const auto hits = f.index.Search(query, 10, 0.5f);
  ASSERT_TRUE(hits.ok());
  const auto want = BruteForce(query, f.data, f.labels, 16, 10, 0.5f);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(*hits, want);
}

TEST(FlatIndexInt8Test, CodesFollowTheirRowsThroughReplaceRemoveAndPrune) {
  Filled f(300, 24, Int8Scan(1), 6);
  FlatIndex plain(24);
  // Replace a third, remove a third, prune a sixth: the codes must move
  // with their rows, or the candidates would be the wrong rows.
  const std::vector<float> replacements = RandomUnitVectors(100, 24, 7);
  std::vector<float> data;
  std::vector<int64_t> labels;
  for (size_t i = 0; i < 300; ++i) {
    const int64_t label = f.labels[i];
    if (i % 3 == 1) {
      ASSERT_TRUE(f.index.Remove(label));
      continue;
    }
    std::span<const float> v = Row(f.data, 24, i);
    if (i % 3 == 2) {
      v = Row(replacements, 24, i / 3);
      ASSERT_TRUE(f.index.Upsert(label, v).ok());
    }
    data.insert(data.end(), v.begin(), v.end());
    labels.push_back(label);
  }
  const size_t pruned = f.index.Prune([](int64_t label) { return label % 4 != 0; });
  std::vector<float> kept_data;
  std::vector<int64_t> kept_labels;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] % 4 == 0) continue;
    kept_data.insert(kept_data.end(), data.begin() + static_cast<std::ptrdiff_t>(i * 24),
                     data.begin() + static_cast<std::ptrdiff_t>((i + 1) * 24));
    kept_labels.push_back(labels[i]);
  }
  EXPECT_EQ(pruned, labels.size() - kept_labels.size());
  ASSERT_EQ(f.index.size(), kept_labels.size());
  const std::vector<float> queries = RandomUnitVectors(20, 24, 8);
  for (size_t q = 0; q < 20; ++q) {
    const auto hits = f.index.Search(Row(queries, 24, q), 5, -2.0f);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(*hits, BruteForce(Row(queries, 24, q), kept_data, kept_labels, 24, 5, -2.0f)) << q;
  }
}

TEST(FlatIndexInt8Test, SearchAndScoreEqualsSearchThenScore) {
  Filled f(2000, 32, Int8Scan(1), 10);
  const std::vector<int64_t> labels = {1, 3 * 1999 + 1, 0};
  const std::vector<float> query = RandomUnitVectors(1, 32, 11);
  std::vector<std::optional<float>> scores;
  const auto both = f.index.SearchAndScore(query, 10, -1.0f, labels, &scores);
  const auto hits = f.index.Search(query, 10, -1.0f);
  ASSERT_TRUE(both.ok() && hits.ok());
  EXPECT_EQ(*both, *hits);
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_EQ(scores[0], f.index.Score(query, 1));
  EXPECT_EQ(scores[1], f.index.Score(query, 3 * 1999 + 1));
  EXPECT_FALSE(scores[2].has_value());
}

TEST(FlatIndexTest, MemoryBytesCoversTheRows) {
  Filled f(100, 64);
  EXPECT_GE(f.index.MemoryBytes(), 100u * 64u * sizeof(float));
  // The int8 scan's codes add a byte and the scale four per row.
  Filled coded(100, 64, Int8Scan(1));
  EXPECT_GE(coded.index.MemoryBytes(), f.index.MemoryBytes() + (100u * (64u + sizeof(float))));
}

}  // namespace
}  // namespace engram
