// MappedFlatIndex against a FlatIndex holding the same vectors: after a
// snapshot is opened, and after the same upserts, replacements, removals
// and prunes on both, every search, score, vector and label list agrees bit
// for bit. And the snapshot file's errors, each named.
#include "src/vindex/mapped_flat_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "src/common/verified_stamp.h"
#include "src/vindex/flat_snapshot.h"
#include "src/vindex/test_vectors.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using ::testing::HasSubstr;
using testing::RandomUnitVectors;
using testing::Row;

constexpr size_t kDim = 24;

void ExpectSame(const VectorIndex& mapped, const FlatIndex& flat, uint32_t seed) {
  EXPECT_EQ(mapped.size(), flat.size());
  EXPECT_EQ(mapped.Labels(), flat.Labels());
  const std::vector<int64_t> labels = flat.Labels();
  const std::vector<float> queries = RandomUnitVectors(4, kDim, seed);
  std::vector<int64_t> asked = {-7, 999999};
  for (size_t i = 0; i < labels.size(); i += 37) asked.push_back(labels[i]);
  for (size_t q = 0; q < 4; ++q) {
    const std::span<const float> query = Row(queries, kDim, q);
    for (const size_t k : {size_t{0}, size_t{1}, size_t{25}, size_t{5000}}) {
      EXPECT_EQ(*mapped.Search(query, k, -2.0f), *flat.Search(query, k, -2.0f)) << k;
      std::vector<std::optional<float>> a, b;
      EXPECT_EQ(*mapped.SearchAndScore(query, k, 0.1f, asked, &a),
                *flat.SearchAndScore(query, k, 0.1f, asked, &b));
      EXPECT_EQ(a, b);
    }
    for (const int64_t label : asked) {
      EXPECT_EQ(mapped.Score(query, label), flat.Score(query, label)) << label;
      const std::span<const float> x = mapped.Vector(label), y = flat.Vector(label);
      EXPECT_EQ(std::vector<float>(x.begin(), x.end()), std::vector<float>(y.begin(), y.end()));
    }
  }
}

// The fact the tests' snapshots give a label.
int64_t FactOf(int64_t label) { return 1000 + 7 * label; }

TEST(MappedFlatIndexTest, RanksAsAFlatIndexWithTheSameVectorsThroughEveryChange) {
  const std::vector<float> data = RandomUnitVectors(900, kDim, 3);
  FlatIndex flat(kDim);
  for (size_t i = 0; i < 600; ++i) {
    ASSERT_TRUE(flat.Upsert(static_cast<int64_t>(3 * i + 1), Row(data, kDim, i)).ok());
  }
  ::engram::testing::TempDir dir;
  const std::string path = dir.File("scope.flat");
  const FlatSnapshotOrigin origin{1796625104730, 42};
  ASSERT_TRUE(SaveFlatSnapshot(flat, FactOf, path, "space\nscope", origin).ok());
  std::string stamp;
  auto opened = MappedFlatIndex::Open(path, kDim, &stamp);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(stamp, "space\nscope");
  MappedFlatIndex& mapped = **opened;
  ExpectSame(mapped, flat, 10);
  // The origin and each row's fact, as written.
  const FlatSnapshot& snapshot = mapped.Snapshot();
  EXPECT_EQ(snapshot.origin.space_created_at, origin.space_created_at);
  EXPECT_EQ(snapshot.origin.removed, origin.removed);
  ASSERT_EQ(snapshot.rows, 600u);
  for (size_t row = 0; row < snapshot.rows; ++row) {
    EXPECT_EQ(snapshot.labels[row], static_cast<int64_t>(3 * row + 1));
    EXPECT_EQ(snapshot.fact_rowids[row], FactOf(snapshot.labels[row]));
  }

  std::mt19937 rng(5);
  for (int round = 0; round < 4; ++round) {
    for (int step = 0; step < 60; ++step) {
      const size_t row = 600 + (rng() % 300);
      const int64_t label = static_cast<int64_t>(rng() % 2000);
      switch (rng() % 3) {
        case 0:  // a new label or a replaced one, in the snapshot or not
          ASSERT_TRUE(mapped.Upsert(label, Row(data, kDim, row)).ok());
          ASSERT_TRUE(flat.Upsert(label, Row(data, kDim, row)).ok());
          break;
        case 1:
          EXPECT_EQ(mapped.Remove(label), flat.Remove(label)) << label;
          break;
        default: {
          const std::vector<float> bad(kDim, 0.0f);
          EXPECT_FALSE(mapped.Upsert(label, bad).ok());
        }
      }
    }
    const auto keep = [round](int64_t label) { return label % 11 != round; };
    EXPECT_EQ(mapped.Prune(keep), flat.Prune(keep));
    ExpectSame(mapped, flat, 20 + round);
  }
  // A snapshot of the changed index reads back the same.
  ASSERT_TRUE(SaveFlatSnapshot(mapped, FactOf, dir.File("again.flat"), "s", {}).ok());
  auto again = MappedFlatIndex::Open(dir.File("again.flat"), kDim, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ExpectSame(**again, flat, 30);
}

// Saves 50 random 8-d vectors under labels 0-49 as a snapshot at `path`.
void SaveSomeSnapshot(const std::string& path, uint32_t seed) {
  FlatIndex flat(8);
  const std::vector<float> data = RandomUnitVectors(50, 8, seed);
  for (size_t i = 0; i < 50; ++i)
    ASSERT_TRUE(flat.Upsert(static_cast<int64_t>(i), Row(data, 8, i)).ok());
  ASSERT_TRUE(SaveFlatSnapshot(flat, FactOf, path, "s", {}).ok());
}

TEST(MappedFlatIndexTest, ABadSnapshotIsNamed) {
  ::engram::testing::TempDir dir;
  const std::string path = dir.File("scope.flat");
  SaveSomeSnapshot(path, 1);
  const std::string bytes = ::engram::testing::ReadFile(path);
  EXPECT_EQ(MappedFlatIndex::Open(dir.File("none.flat"), 8, nullptr).status().code(),
            StatusCode::kNotFound);
  auto other_dimension = MappedFlatIndex::Open(path, 16, nullptr);
  EXPECT_EQ(other_dimension.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(other_dimension.status().message(), HasSubstr("8-d vectors, not 16-d"));
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x01;
  ::engram::testing::WriteFile(path, flipped);
  auto damaged = MappedFlatIndex::Open(path, 8, nullptr);
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(damaged.status().message(), HasSubstr("scope.flat: checksum mismatch"));
  ::engram::testing::WriteFile(path, bytes.substr(0, bytes.size() - 12));
  EXPECT_THAT(MappedFlatIndex::Open(path, 8, nullptr).status().message(),
              HasSubstr("size does not match"));
  // A snapshot of another version of the format is not damage: the cache
  // writes it again, unwarned.
  std::string older = bytes;
  older[8] = 2;
  ::engram::testing::WriteFile(path, older);
  auto other_version = MappedFlatIndex::Open(path, 8, nullptr);
  EXPECT_EQ(other_version.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(other_version.status().message(), HasSubstr("scope.flat: version 2, not 3"));
  ::engram::testing::WriteFile(path, "not a snapshot at all, no");
  EXPECT_THAT(MappedFlatIndex::Open(path, 8, nullptr).status().message(),
              HasSubstr("not a flat index snapshot"));
}

// A snapshot checked whole once is vouched for by its stamp
// (src/common/verified_stamp.h) until it changes: a rewrite is checked
// again and its damage found; damage the stamp cannot see is trusted.
TEST(MappedFlatIndexTest, AVerifiedSnapshotIsCheckedAgainOnlyWhenItChanges) {
  ::engram::testing::TempDir dir;
  const std::string path = dir.File("scope.flat");
  SaveSomeSnapshot(path, 2);
  ASSERT_TRUE(MappedFlatIndex::Open(path, 8, nullptr).ok());
  // Just written: not stamped yet (file times tick coarsely).
  EXPECT_FALSE(std::filesystem::exists(path + ".verified"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(MappedFlatIndex::Open(path, 8, nullptr).ok());
  ASSERT_TRUE(std::filesystem::exists(path + ".verified"));

  const std::string bytes = ::engram::testing::ReadFile(path);
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x01;
  ::engram::testing::WriteFile(path, flipped);
  EXPECT_THAT(MappedFlatIndex::Open(path, 8, nullptr).status().message(),
              HasSubstr("checksum mismatch"));

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto changed = FileContents::Map(path);
  ASSERT_TRUE(changed.ok());
  uint64_t trailer = 0;
  std::memcpy(&trailer, flipped.data() + flipped.size() - sizeof(trailer), sizeof(trailer));
  WriteVerifiedStamp(path, (*changed)->FileStamp(), trailer);
  EXPECT_TRUE(MappedFlatIndex::Open(path, 8, nullptr).ok());
}

}  // namespace
}  // namespace engram
