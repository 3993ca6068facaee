#include "src/context/file_scanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/test_util.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;

class FileScannerTest : public ::testing::Test {
 protected:
  void Write(const std::string& rel, const std::string& text) {
    const fs::path p = dir_.path() / rel;
    fs::create_directories(p.parent_path());
    WriteFile(p.string(), text);
  }
  std::vector<std::string> Found(const ScanResult& r) const {
    std::vector<std::string> out;
    for (const auto& f : r.files)
      out.push_back(fs::path(f.path).lexically_relative(root()).string());
    return out;
  }
  std::string Reason(const ScanResult& r, const std::string& rel) const {
    for (const auto& s : r.skipped) {
      if (fs::path(s.path).lexically_relative(root()).string() == rel) return s.reason;
    }
    return "";
  }
  std::string root() const { return AbsolutePath(dir_.path().string()); }

  TempDir dir_;
};

TEST_F(FileScannerTest, WalksInPathOrderHonouringNestedGitignores) {
  Write(".gitignore", "*.log\nbuild/\n/top_only.txt\n");
  Write("a.txt", "a");
  Write("debug.log", "x");
  Write("top_only.txt", "x");
  Write("build/out.txt", "x");
  Write("sub/top_only.txt", "kept: the pattern is anchored");
  Write("sub/.gitignore", "!keep.log\n");
  Write("sub/keep.log", "kept by negation");
  Write("sub/drop.log", "x");
  Write(".git/config", "never read");
  auto r = ScanFiles({root()}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Found(*r), (std::vector<std::string>{".gitignore", "a.txt", "sub/.gitignore",
                                                 "sub/keep.log", "sub/top_only.txt"}));
  EXPECT_TRUE(r->skipped.empty());
}

TEST_F(FileScannerTest, GitignoresAboveTheRootApplyInsideAWorkTree) {
  Write(".git/HEAD", "ref");
  Write(".gitignore", "*.tmp\n/proj/local/\n");
  Write("proj/a.cc", "int a;");
  Write("proj/b.tmp", "x");
  Write("proj/local/c.cc", "x");
  auto r = ScanFiles({(dir_.path() / "proj").string()}, {});
  ASSERT_TRUE(r.ok());
  std::vector<std::string> names;
  for (const auto& f : r->files) names.push_back(fs::path(f.path).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"a.cc"}));
}

TEST_F(FileScannerTest, LargeFilesAreSkippedWithTheirReason) {
  Write("big.txt", std::string(2000, 'x'));
  Write("small.txt", "x");
  auto r = ScanFiles({root()}, ScanOptions{1000});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Found(*r), (std::vector<std::string>{"small.txt"}));
  EXPECT_NE(Reason(*r, "big.txt").find("larger than 1000 bytes"), std::string::npos);
}

TEST_F(FileScannerTest, SymlinkedDirectoriesAreNotFollowedFilesAre) {
  Write("real/a.txt", "a");
  fs::create_directory_symlink(dir_.path() / "real", dir_.path() / "loop");
  fs::create_directory_symlink(dir_.path(), dir_.path() / "real" / "up");  // a cycle
  fs::create_symlink(dir_.path() / "real" / "a.txt", dir_.path() / "link.txt");
  fs::create_symlink(dir_.path() / "missing", dir_.path() / "dangling");
  auto r = ScanFiles({root()}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Found(*r), (std::vector<std::string>{"link.txt", "real/a.txt"}));
  EXPECT_EQ(Reason(*r, "loop"), "symlink to a directory (not followed)");
  EXPECT_EQ(Reason(*r, "real/up"), "symlink to a directory (not followed)");
  EXPECT_EQ(Reason(*r, "dangling"), "broken symlink");
}

TEST_F(FileScannerTest, ALinkToAFileOutsideTheRootsIsNotFollowed) {
  Write("tree/inside.txt", "inside");
  Write("private/secret.txt", "a private file elsewhere");
  fs::create_symlink(dir_.path() / "private" / "secret.txt", dir_.path() / "tree" / "secret.txt");
  fs::create_symlink("inside.txt", dir_.path() / "tree" / "alias.txt");
  // Through a chain of links: the last target decides.
  fs::create_symlink(dir_.path() / "tree" / "secret.txt", dir_.path() / "tree" / "chain.txt");
  const std::string tree = (dir_.path() / "tree").string();
  auto r = ScanFiles({tree}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Found(*r), (std::vector<std::string>{"tree/alias.txt", "tree/inside.txt"}));
  EXPECT_EQ(Reason(*r, "tree/secret.txt"),
            "symlink to a file outside the attached roots (not followed)");
  EXPECT_EQ(Reason(*r, "tree/chain.txt"),
            "symlink to a file outside the attached roots (not followed)");
  // Inside another root of the same attachment is inside.
  r = ScanFiles({tree, (dir_.path() / "private").string()}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Found(*r).size(), 5u);
  // Following them is opt-in.
  ScanOptions follow;
  follow.follow_links_out = true;
  r = ScanFiles({tree}, follow);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Found(*r), (std::vector<std::string>{"tree/alias.txt", "tree/chain.txt",
                                                 "tree/inside.txt", "tree/secret.txt"}));
}

TEST_F(FileScannerTest, NamedFilesAreTakenWhateverTheGitignoreSays) {
  Write(".gitignore", "*.log\n");
  Write("x.log", "named");
  auto r = ScanFiles({(dir_.path() / "x.log").string(), (dir_.path() / "x.log").string()}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Found(*r), (std::vector<std::string>{"x.log"}));  // once
}

TEST_F(FileScannerTest, MissingRootIsNotFound) {
  auto r = ScanFiles({(dir_.path() / "nope").string()}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("nope': no such file or directory"), std::string::npos);
}

TEST_F(FileScannerTest, ReadTextFileRefusesBinaryAndInvalidUtf8) {
  Write("bin", std::string("abc\0def", 7));
  Write("latin1", "caf\xe9 au lait");
  Write("ok", "café");
  EXPECT_EQ(ReadTextFile(dir_.File("bin"), 1 << 20).skip_reason,
            "binary (NUL byte in the first 8 KiB)");
  EXPECT_EQ(ReadTextFile(dir_.File("latin1"), 1 << 20).skip_reason, "invalid UTF-8 at byte 3");
  const FileText ok = ReadTextFile(dir_.File("ok"), 1 << 20);
  EXPECT_EQ(ok.skip_reason, "");
  EXPECT_EQ(ok.text, "café");
  EXPECT_NE(ReadTextFile(dir_.File("ok"), 2).skip_reason.find("larger than 2 bytes"),
            std::string::npos);
}

TEST(AbsolutePathTest, NormalisesAndDropsTrailingSlashes) {
  EXPECT_EQ(AbsolutePath("/a/b/../c/"), "/a/c");
  EXPECT_EQ(AbsolutePath("/"), "/");
  EXPECT_EQ(AbsolutePath("x").front(), '/');
}

}  // namespace
}  // namespace engram
