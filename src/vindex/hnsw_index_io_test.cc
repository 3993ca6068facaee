#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "src/vindex/hnsw_index.h"
#include "src/vindex/index_file.h"
#include "src/vindex/test_vectors.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::RandomUnitVectors;
using testing::ReadFile;
using testing::Row;
using testing::TempDir;
using testing::WriteFile;

constexpr size_t kDim = 24;

// Where the meta file keeps the graph's size and checksum (hnsw_index_io.cc):
// magic 8, version 4, zero 4, then dimension, m, live, slots.
constexpr size_t kGraphBytesOffset = 8 + 4 + 4 + (4 * 8);

struct Saved {
  Saved() : data(RandomUnitVectors(600, kDim, 31)) {
    HnswIndexOptions options;
    options.build_threads = 1;
    options.ef_construction = 40;  // quality is not under test here
    index = std::move(HnswIndex::Create(kDim, options)).value();
    for (size_t i = 0; i < 600; ++i) {
      EXPECT_TRUE(index->Upsert(static_cast<int64_t>(i) - 100, Row(data, kDim, i)).ok());
    }
    // A removal and a replacement, so deleted slots are saved too.
    EXPECT_TRUE(index->Remove(5));
    EXPECT_TRUE(index->Upsert(6, Row(data, kDim, 0)).ok());
    path = dir.File("index.hnsw");
    EXPECT_TRUE(index->Save(path, stamp).ok());
  }

  Result<std::unique_ptr<HnswIndex>> Load(std::string* loaded_stamp = nullptr) const {
    return HnswIndex::Load(path, kDim, HnswIndexOptions{}, loaded_stamp);
  }

  TempDir dir;
  std::vector<float> data;
  std::unique_ptr<HnswIndex> index;
  std::string path;
  const std::string stamp = std::string("generation 7\0labels ab12", 24);
};

// Rewrites the meta file so that it vouches for the graph file as it is
// now: what a bad graph looks like once it gets past the checksums.
void VouchForGraph(const std::string& path) {
  const std::string meta_path = HnswIndex::MetaPath(path);
  std::string meta = ReadFile(meta_path);
  const auto digest = DigestFile(path);
  ASSERT_TRUE(digest.ok());
  std::memcpy(meta.data() + kGraphBytesOffset, &digest->bytes, sizeof(uint64_t));
  std::memcpy(meta.data() + kGraphBytesOffset + 8, &digest->checksum, sizeof(uint64_t));
  const uint64_t checksum = ChecksumOf(std::string_view(meta).substr(0, meta.size() - 8));
  std::memcpy(meta.data() + meta.size() - 8, &checksum, sizeof(uint64_t));
  WriteFile(meta_path, meta);
}

TEST(HnswIndexIoTest, SaveThenLoadGivesTheSameIndexAndStamp) {
  Saved saved;
  std::string stamp;
  auto loaded = saved.Load(&stamp);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  HnswIndex& index = **loaded;
  EXPECT_EQ(stamp, saved.stamp);
  EXPECT_EQ(index.Dimension(), kDim);
  EXPECT_EQ(index.size(), saved.index->size());
  EXPECT_EQ(index.DeletedCount(), saved.index->DeletedCount());
  EXPECT_EQ(index.Labels(), saved.index->Labels());
  const std::vector<float> queries = RandomUnitVectors(25, kDim, 32);
  for (size_t q = 0; q < 25; ++q) {
    const auto before = saved.index->Search(Row(queries, kDim, q), 10, -1.0f);
    const auto after = index.Search(Row(queries, kDim, q), 10, -1.0f);
    ASSERT_TRUE(before.ok() && after.ok());
    EXPECT_EQ(*after, *before);
  }
  EXPECT_FALSE(index.Score(Row(saved.data, kDim, 105), 5).has_value());
  EXPECT_EQ(index.Score(Row(queries, kDim, 0), 6), saved.index->Score(Row(queries, kDim, 0), 6));

  // The loaded index takes changes and saves again.
  ASSERT_TRUE(index.Upsert(5, Row(saved.data, kDim, 105)).ok());
  ASSERT_TRUE(index.Save(saved.path, "next").ok());
  auto reloaded = saved.Load(&stamp);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  EXPECT_EQ(stamp, "next");
  EXPECT_EQ((*reloaded)->size(), saved.index->size() + 1);
  EXPECT_NEAR((*reloaded)->Score(Row(saved.data, kDim, 105), 5).value(), 1.0f, 1e-6);
}

TEST(HnswIndexIoTest, EmptyIndexRoundTrips) {
  TempDir dir;
  auto index = std::move(HnswIndex::Create(kDim)).value();
  const std::string path = dir.File("empty.hnsw");
  ASSERT_TRUE(index->Save(path, "").ok());
  std::string stamp = "x";
  auto loaded = HnswIndex::Load(path, kDim, {}, &stamp);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), 0u);
  EXPECT_EQ(stamp, "");
  ASSERT_TRUE((*loaded)->Upsert(1, RandomUnitVectors(1, kDim, 1)).ok());
  EXPECT_EQ((*loaded)->size(), 1u);
}

TEST(HnswIndexIoTest, SaveLeavesNoTemporaryFiles) {
  Saved saved;
  ASSERT_TRUE(saved.index->Save(saved.path, "again").ok());
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(saved.dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_THAT(names, ::testing::ElementsAre("index.hnsw", "index.hnsw.meta"));
}

// Holds `index` for PendingSave::WriteGraph (a test's index is not shared).
HnswIndex::Hold HoldOf(const HnswIndex& index) {
  return [&index](const HnswIndex::Use& use) { return use(index); };
}

// A save whose reader stops it, or written and dropped without Commit,
// leaves the files as they were and nothing else; a committed one replaces
// both.
TEST(HnswIndexIoTest, AStoppedOrDroppedSaveLeavesTheOldFiles) {
  Saved saved;
  const auto names = [&] {
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(saved.dir.path())) {
      out.push_back(entry.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<float> extra = RandomUnitVectors(1, kDim, 77);
  ASSERT_TRUE(saved.index->Upsert(1000, extra).ok());

  {
    auto stopped = saved.index->StartSave(saved.path, "stopped");
    ASSERT_TRUE(stopped.ok()) << stopped.status().ToString();
    const Status written =
        stopped->WriteGraph([](const HnswIndex::Use&) { return Cancelled("the index is gone"); });
    EXPECT_EQ(written.code(), StatusCode::kCancelled) << written.ToString();
    EXPECT_EQ(stopped->Commit().code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(names(), ::testing::ElementsAre("index.hnsw", "index.hnsw.meta"));
  }
  {
    auto dropped = saved.index->StartSave(saved.path, "dropped");
    ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
    ASSERT_TRUE(dropped->WriteGraph(HoldOf(*saved.index)).ok());
    EXPECT_EQ(names().size(), 3u) << "the graph waits in a temporary file";
  }
  EXPECT_THAT(names(), ::testing::ElementsAre("index.hnsw", "index.hnsw.meta"));
  std::string stamp;
  auto old = saved.Load(&stamp);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(stamp, saved.stamp);
  EXPECT_FALSE((*old)->Score(extra, 1000).has_value());

  auto pending = saved.index->StartSave(saved.path, "committed");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  ASSERT_TRUE(pending->WriteGraph(HoldOf(*saved.index)).ok());
  ASSERT_TRUE(pending->Commit().ok());
  EXPECT_EQ(pending->Commit().code(), StatusCode::kFailedPrecondition) << "committed once";
  EXPECT_THAT(names(), ::testing::ElementsAre("index.hnsw", "index.hnsw.meta"));
  auto now = saved.Load(&stamp);
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  EXPECT_EQ(stamp, "committed");
  EXPECT_NEAR((*now)->Score(extra, 1000).value(), 1.0f, 1e-6);
}

// The files of a save hold the index as it was at StartSave, though
// vectors were added and removed before the graph was written, and though
// the vectors were read from the index as it is by then.
TEST(HnswIndexIoTest, ASaveWritesTheIndexAsItWasWhenStarted) {
  Saved saved;
  const std::vector<int64_t> labels_then = saved.index->Labels();
  auto pending = saved.index->StartSave(saved.path, "then");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();

  const std::vector<float> later = RandomUnitVectors(6000, kDim, 78);
  std::vector<int64_t> later_labels;
  for (size_t i = 0; i < 6000; ++i) later_labels.push_back(static_cast<int64_t>(10000 + i));
  ASSERT_TRUE(saved.index->UpsertBatch(later_labels, later).ok());
  ASSERT_TRUE(saved.index->Remove(7));
  ASSERT_TRUE(pending->WriteGraph(HoldOf(*saved.index)).ok());
  ASSERT_TRUE(pending->Commit().ok());

  std::string stamp;
  auto loaded = saved.Load(&stamp);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(stamp, "then");
  EXPECT_EQ((*loaded)->Labels(), labels_then);
  EXPECT_FALSE((*loaded)->Score(Row(later, kDim, 0), 10000).has_value());
  // Label 7 (row 107 of the data) was live then.
  EXPECT_NEAR((*loaded)->Score(Row(saved.data, kDim, 107), 7).value(), 1.0f, 1e-6);
  for (size_t row = 110; row < 600; row += 61) {
    const auto label = static_cast<int64_t>(row) - 100;
    EXPECT_NEAR((*loaded)->Score(Row(saved.data, kDim, row), label).value(), 1.0f, 1e-6) << label;
  }
  auto hits = (*loaded)->Search(Row(saved.data, kDim, 300), 1, -1.0f);
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ(hits->front().label, 200);
}

// The same when the index changes between the pieces of the write, as a
// background save sees it: before each hold, vectors are added, one is
// removed and one replaced. The added ones wait beside the graph until
// the save is gone, so no node's links change under it. The file passes
// Load's checks of every link, holds the labels of the start and no
// other, and its graph still finds each vector.
TEST(HnswIndexIoTest, ChangesBetweenThePiecesOfASaveAreNotInTheFile) {
  Saved saved;
  HnswIndex& index = *saved.index;
  const std::vector<int64_t> labels_then = index.Labels();
  auto pending = index.StartSave(saved.path, "then");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();

  const std::vector<float> later = RandomUnitVectors(3000, kDim, 79);
  size_t holds = 0;
  const HnswIndex::Hold changing = [&](const HnswIndex::Use& use) {
    const size_t first = holds * 1000;
    if (first < 3000) {
      std::vector<int64_t> labels;
      for (size_t i = first; i < first + 1000; ++i)
        labels.push_back(static_cast<int64_t>(10000 + i));
      EXPECT_TRUE(
          index.UpsertBatch(labels, std::span(later).subspan(first * kDim, 1000 * kDim)).ok());
    }
    EXPECT_TRUE(index.Remove(static_cast<int64_t>(20 + holds)));
    EXPECT_TRUE(index.Upsert(static_cast<int64_t>(40 + holds), Row(later, kDim, holds)).ok());
    ++holds;
    return use(index);
  };
  ASSERT_TRUE(pending->WriteGraph(changing).ok());
  ASSERT_GE(holds, 2u) << "the bottom layer and the upper layers, each held apart";
  ASSERT_TRUE(pending->Commit().ok());
  EXPECT_TRUE(index.SavePending());
  const size_t waiting = index.DeferredCount();
  EXPECT_GE(waiting, 2000u);
  EXPECT_EQ(index.InsertDeferred(std::chrono::hours(1)), 0u) << "not while the save is there";
  pending = Status(Cancelled("dropped"));
  EXPECT_FALSE(index.SavePending());
  EXPECT_EQ(index.InsertDeferred(std::chrono::hours(1)), waiting);

  auto loaded = saved.Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->Labels(), labels_then);
  EXPECT_FALSE((*loaded)->Score(Row(later, kDim, 0), 10000).has_value());
  for (size_t row = 101; row < 600; ++row) {
    if (row == 105) continue;  // removed before the save began
    const auto label = static_cast<int64_t>(row) - 100;
    const size_t data_row = label == 6 ? 0 : row;  // replaced before the save began
    const std::span<const float> vector = Row(saved.data, kDim, data_row);
    EXPECT_NEAR((*loaded)->Score(vector, label).value(), 1.0f, 1e-6) << label;
    if (label == 6) continue;  // the same vector as label 0, which ranks first
    auto hits = (*loaded)->Search(vector, 1, -1.0f);
    ASSERT_TRUE(hits.ok());
    ASSERT_FALSE(hits->empty());
    EXPECT_EQ(hits->front().label, label);
  }
}

// A loaded graph has room for an eighth more slots (at least
// initial_capacity), so the first inserts after a restart do not grow it.
TEST(HnswIndexIoTest, ALoadedGraphHasRoomToGrow) {
  Saved saved;
  const size_t slots = 601;  // 600 vectors and the replacement of label 6
  HnswIndexOptions small;
  small.initial_capacity = 16;
  auto loaded = HnswIndex::Load(saved.path, kDim, small, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->Capacity(), slots + (slots / HnswIndex::kLoadHeadroomShare));
  HnswIndexOptions large;
  large.initial_capacity = 1000;
  loaded = HnswIndex::Load(saved.path, kDim, large, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->Capacity(), slots + 1000);
  // Inserting that many more does not grow it.
  const std::vector<float> more = RandomUnitVectors(1000, kDim, 80);
  std::vector<int64_t> labels;
  for (size_t i = 0; i < 1000; ++i) labels.push_back(static_cast<int64_t>(20000 + i));
  ASSERT_TRUE((*loaded)->UpsertBatch(labels, more).ok());
  EXPECT_EQ((*loaded)->Capacity(), slots + 1000);
}

TEST(HnswIndexIoTest, MissingFilesAreNotFoundNamingThePath) {
  Saved saved;
  std::filesystem::remove(saved.path);
  auto loaded = saved.Load();
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(loaded.status().message(), HasSubstr(saved.path));

  std::filesystem::remove(HnswIndex::MetaPath(saved.path));
  loaded = saved.Load();
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(loaded.status().message(), HasSubstr(HnswIndex::MetaPath(saved.path)));
}

TEST(HnswIndexIoTest, TruncatedGraphIsCorruptionNamingTheFile) {
  Saved saved;
  const std::string whole = ReadFile(saved.path);
  for (const size_t keep :
       {size_t{0}, size_t{10}, size_t{96}, whole.size() / 2, whole.size() - 1}) {
    WriteFile(saved.path, whole.substr(0, keep));
    const auto loaded = saved.Load();
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption) << keep;
    EXPECT_THAT(loaded.status().message(), AllOf(HasSubstr(saved.path), HasSubstr("truncated")))
        << keep;
  }
}

TEST(HnswIndexIoTest, TruncatedMetaIsCorruptionNamingTheFile) {
  Saved saved;
  const std::string meta_path = HnswIndex::MetaPath(saved.path);
  const std::string whole = ReadFile(meta_path);
  for (const size_t keep : {size_t{0}, size_t{7}, size_t{20}, whole.size() / 2, whole.size() - 1}) {
    WriteFile(meta_path, whole.substr(0, keep));
    const auto loaded = saved.Load();
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption) << keep;
    EXPECT_THAT(loaded.status().message(), HasSubstr(meta_path)) << keep;
  }
}

TEST(HnswIndexIoTest, GarbageFilesAreCorruption) {
  Saved saved;
  std::mt19937 rng(3);
  const auto garbage = [&](size_t size) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    return bytes;
  };
  const std::string graph = ReadFile(saved.path);
  const std::string meta = ReadFile(HnswIndex::MetaPath(saved.path));

  // Same size, different bytes: the checksum says no.
  WriteFile(saved.path, garbage(graph.size()));
  auto loaded = saved.Load();
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(loaded.status().message(), HasSubstr(saved.path));

  // A garbage meta file: bad magic.
  WriteFile(saved.path, graph);
  WriteFile(HnswIndex::MetaPath(saved.path), garbage(meta.size()));
  loaded = saved.Load();
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(loaded.status().message(), HasSubstr("bad magic"));

  // One flipped byte inside the meta file.
  std::string flipped = meta;
  flipped[kGraphBytesOffset - 3] ^= 0x40;
  WriteFile(HnswIndex::MetaPath(saved.path), flipped);
  loaded = saved.Load();
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(loaded.status().message(), HasSubstr("checksum mismatch"));
}

TEST(HnswIndexIoTest, BadGraphsThatPassTheChecksumStillNeverReachHnswlib) {
  Saved saved;
  const std::string graph = ReadFile(saved.path);
  std::mt19937 rng(4);
  const auto expect_corruption = [&](const std::string& bytes, const std::string& what) {
    WriteFile(saved.path, bytes);
    VouchForGraph(saved.path);
    const auto loaded = saved.Load();
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption) << what;
    EXPECT_THAT(loaded.status().message(), HasSubstr(saved.path)) << what;
  };
  std::string random(graph.size(), '\0');
  for (char& c : random) c = static_cast<char>(rng());
  expect_corruption(random, "random bytes");

  // A huge element count, a cut-off links section, a link to nowhere.
  std::string bad = graph;
  const uint64_t huge = uint64_t{1} << 60;
  std::memcpy(bad.data() + 16, &huge, sizeof(huge));
  expect_corruption(bad, "count");
  expect_corruption(graph.substr(0, graph.size() - 4), "links cut");
  bad = graph;
  const uint32_t nowhere = 1u << 30;
  std::memcpy(bad.data() + 96 + 4, &nowhere, sizeof(nowhere));  // node 0's first link
  expect_corruption(bad, "link");
  // The original still loads: the vouching itself is sound.
  WriteFile(saved.path, graph);
  VouchForGraph(saved.path);
  EXPECT_TRUE(saved.Load().ok());
}

TEST(HnswIndexIoTest, MismatchedDimensionOrStaleMetaIsCorruption) {
  Saved saved;
  auto loaded = HnswIndex::Load(saved.path, kDim + 1, {}, nullptr);
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(loaded.status().message(), HasSubstr("dimension 24, want 25"));

  // A meta file from an earlier save beside a newer graph.
  const std::string old_meta = ReadFile(HnswIndex::MetaPath(saved.path));
  ASSERT_TRUE(saved.index->Upsert(100000, RandomUnitVectors(1, kDim, 9)).ok());
  ASSERT_TRUE(saved.index->Save(saved.path, "newer").ok());
  WriteFile(HnswIndex::MetaPath(saved.path), old_meta);
  loaded = saved.Load();
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(loaded.status().message(), HasSubstr(saved.path));
}

TEST(HnswIndexIoTest, SaveIntoAMissingDirectoryIsIOErrorNamingTheFile) {
  Saved saved;
  const std::string path = saved.dir.File("no/such/dir/index.hnsw");
  const Status status = saved.index->Save(path, "x");
  EXPECT_EQ(status.code(), StatusCode::kIOError);
  EXPECT_THAT(status.message(), HasSubstr(path));
}

TEST(ChecksumTest, DependsOnlyOnTheBytesNotHowTheyArrive) {
  std::string bytes(1000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  const uint64_t whole = ChecksumOf(bytes);
  for (const size_t piece : {size_t{1}, size_t{5}, size_t{32}, size_t{33}, size_t{999}}) {
    Checksum checksum;
    for (size_t at = 0; at < bytes.size(); at += piece) {
      checksum.Update(std::string_view(bytes).substr(at, piece));
    }
    EXPECT_EQ(checksum.Digest(), whole) << piece;
  }
  EXPECT_NE(ChecksumOf(bytes.substr(0, 999)), whole);
  EXPECT_NE(ChecksumOf(bytes + std::string(1, '\0')), whole);
  std::string flipped = bytes;
  flipped[500] ^= 1;
  EXPECT_NE(ChecksumOf(flipped), whole);
}

}  // namespace
}  // namespace engram
