#include "src/context/context_sync.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_util.h"

namespace engram {
namespace {

using testing::TempDir;
using testing::WriteFile;

std::vector<StoredFile> Rows(const SyncPlan& plan) {
  std::vector<StoredFile> out;
  for (const FileUpdate& u : plan.updates) out.push_back(u.file);
  return out;
}

TEST(ContextSyncTest, OnlyChangedFilesAreChunkedAgain) {
  TempDir dir;
  WriteFile(dir.File("a.txt"), "alpha\n");
  WriteFile(dir.File("b.txt"), "beta\n");
  WriteFile(dir.File("c.bin"), std::string("\0\1", 2));
  auto first = PlanSync({dir.path().string()}, {}, {});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->updates.size(), 2u);
  EXPECT_TRUE(first->updates[0].added);
  EXPECT_EQ(first->updates[0].chunks.size(), 1u);
  ASSERT_EQ(first->skipped.size(), 1u);
  EXPECT_EQ(first->skipped[0].reason, "binary (NUL byte in the first 8 KiB)");

  std::vector<StoredFile> stored = Rows(*first);
  auto same = PlanSync({dir.path().string()}, stored, {});
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->updates.empty());
  EXPECT_EQ(same->unchanged, 2u);

  stored[0].mtime_ns -= 1;  // touched: read and hashed, not chunked again
  WriteFile(dir.File("b.txt"), "beta two\n");
  std::filesystem::remove(dir.File("c.bin"));
  WriteFile(dir.File("d.txt"), "delta\n");
  auto next = PlanSync({dir.path().string()}, stored, {});
  ASSERT_TRUE(next.ok());
  ASSERT_EQ(next->updates.size(), 3u);
  EXPECT_FALSE(next->updates[0].rechunked);  // a.txt
  EXPECT_TRUE(next->updates[1].rechunked);   // b.txt
  EXPECT_FALSE(next->updates[1].added);
  EXPECT_TRUE(next->updates[2].added);  // d.txt
  EXPECT_EQ(next->unchanged, 1u);

  stored.push_back({dir.File("gone.txt"), 1, 1, "x"});
  SyncOptions rechunk;
  rechunk.rechunk = true;
  auto all = PlanSync({dir.path().string()}, stored, rechunk);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->removed, std::vector<std::string>{dir.File("gone.txt")});
  for (const FileUpdate& u : all->updates) EXPECT_TRUE(u.rechunked) << u.file.path;
}

}  // namespace
}  // namespace engram
