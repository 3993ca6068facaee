#include "src/common/private_files.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

namespace engram {
namespace {

unsigned ModeOf(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

class PrivateFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("private_files_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    old_umask_ = ::umask(0);  // the widest umask: nothing taken away
  }
  void TearDown() override {
    ::umask(old_umask_);
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  mode_t old_umask_ = 0;
};

TEST_F(PrivateFilesTest, DirectoriesItCreatesAre0700WhateverTheUmask) {
  std::filesystem::permissions(dir_, std::filesystem::perms(0755));
  ASSERT_TRUE(CreatePrivateDirectories((dir_ / "a" / "b" / "c").string()).ok());
  EXPECT_EQ(ModeOf(dir_ / "a"), 0700u);
  EXPECT_EQ(ModeOf(dir_ / "a" / "b"), 0700u);
  EXPECT_EQ(ModeOf(dir_ / "a" / "b" / "c"), 0700u);
  EXPECT_EQ(ModeOf(dir_), 0755u) << "an existing directory keeps its mode";
  EXPECT_TRUE(CreatePrivateDirectories((dir_ / "a" / "b").string()).ok()) << "already there";
}

TEST_F(PrivateFilesTest, FilesItCreatesAre0600AndExistingOnesAreLeftAlone) {
  bool created = false;
  const std::string path = (dir_ / "memory.db").string();
  ASSERT_TRUE(CreatePrivateFile(path, &created).ok());
  EXPECT_TRUE(created);
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_EQ(std::filesystem::file_size(path), 0u);

  const std::string mine = (dir_ / "mine.txt").string();
  std::ofstream(mine) << "user data";
  std::filesystem::permissions(mine, std::filesystem::perms(0644));
  ASSERT_TRUE(CreatePrivateFile(mine, &created).ok());
  EXPECT_FALSE(created);
  EXPECT_EQ(ModeOf(mine), 0644u);
  EXPECT_EQ(std::filesystem::file_size(mine), 9u);
}

TEST_F(PrivateFilesTest, WhatCannotBeCreatedIsNamed) {
  const std::string file = (dir_ / "file").string();
  std::ofstream(file) << "x";
  const Status s = CreatePrivateDirectories(file + "/sub");
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find(file + "/sub"), std::string::npos) << s.message();
  const Status f = CreatePrivateFile(file + "/sub/x");
  EXPECT_EQ(f.code(), StatusCode::kIOError);
  EXPECT_NE(f.message().find("cannot create '" + file + "/sub/x'"), std::string::npos)
      << f.message();
}

// An atomic write replaces the file whole, 0600, and leaves no temporary
// file behind, whether it succeeds or not.
TEST_F(PrivateFilesTest, AnAtomicWriteReplacesTheFileWholeAndLeavesNothingElse) {
  const std::string path = (dir_ / "index.flat").string();
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second, longer").ok());
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "second, longer");
  EXPECT_EQ(ModeOf(path), 0600u);
  const Status missing = WriteFileAtomically((dir_ / "no" / "such").string(), "x");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("write file " + (dir_ / "no" / "such").string() + ".tmp."),
            std::string::npos)
      << missing.message();
  std::filesystem::create_directory(dir_ / "taken");
  EXPECT_EQ(WriteFileAtomically((dir_ / "taken").string(), "x").code(), StatusCode::kIOError);
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    ++entries;
    EXPECT_TRUE(e.path().filename() == "index.flat" || e.path().filename() == "taken") << e.path();
  }
  EXPECT_EQ(entries, 2u);
}

// A file larger than several write-behind windows, appended in pieces
// that do not line up with them, and moved as it is written: the file in
// place holds every byte in order.
TEST_F(PrivateFilesTest, AFileWrittenBehindHoldsEveryByte) {
  const std::string path = (dir_ / "index.hnsw").string();
  const auto total = static_cast<size_t>(PrivateFileWriter::kWriteBehindBytes * 3 + 12345);
  std::string expected;
  expected.reserve(total);
  for (size_t i = 0; expected.size() < total; ++i)
    expected.push_back(static_cast<char>(i * 31 % 251));
  auto opened = PrivateFileWriter::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  PrivateFileWriter writer = std::move(*opened);
  const size_t piece = 1000003;
  for (size_t at = 0; at < total; at += piece) {
    if (at == 2 * piece) {
      PrivateFileWriter moved = std::move(writer);
      writer = std::move(moved);
    }
    ASSERT_TRUE(writer.Append(std::string_view(expected).substr(at, piece)).ok());
  }
  ASSERT_TRUE(writer.Commit().ok());
  std::ifstream in(path, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content.size(), total);
  EXPECT_TRUE(content == expected);
  EXPECT_EQ(ModeOf(path), 0600u);
}

}  // namespace
}  // namespace engram
