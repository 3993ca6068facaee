#include "src/common/file_contents.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/test_util.h"

namespace engram {
namespace {

TEST(FileContentsTest, ReadsTheWholeFilePageAligned) {
  const testing::TempDir dir;
  std::string content(10000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 7);
  testing::WriteFile(dir.File("data.bin"), content);
  auto bytes = FileContents::Read(dir.File("data.bin"));
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ((*bytes)->Bytes(), content);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*bytes)->Bytes().data()) % 4096, 0u);
}

// The reason it reads rather than maps: with a map, touching a page of a
// file truncated meanwhile raises SIGBUS and ends the process.
TEST(FileContentsTest, TheBytesSurviveTheFileBeingTruncatedOrReplaced) {
  const testing::TempDir dir;
  const std::string content(3 * 4096 + 17, 'm');
  testing::WriteFile(dir.File("model.bin"), content);
  auto bytes = FileContents::Read(dir.File("model.bin"));
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  ASSERT_EQ(::truncate(dir.File("model.bin").c_str(), 0), 0);
  EXPECT_EQ((*bytes)->Bytes(), content);
  testing::WriteFile(dir.File("model.bin"), std::string(100, 'x'));
  EXPECT_EQ((*bytes)->Bytes(), content);
}

TEST(FileContentsTest, MapGivesTheSameBytesAndAStampThatARewriteChanges) {
  const testing::TempDir dir;
  std::string content(3 * 4096 + 5, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 13);
  testing::WriteFile(dir.File("data.bin"), content);
  auto mapped = FileContents::Map(dir.File("data.bin"));
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ((*mapped)->Bytes(), content);
  // On a large-page boundary (file_contents.h).
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*mapped)->Bytes().data()) % (uintptr_t{2} << 20), 0u);
  auto read = FileContents::Read(dir.File("data.bin"));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)->FileStamp(), (*mapped)->FileStamp());
  EXPECT_EQ((*read)->FileStamp().size, content.size());

  testing::WriteFile(dir.File("data.bin"), content + "x");
  auto again = FileContents::Read(dir.File("data.bin"));
  ASSERT_TRUE(again.ok());
  EXPECT_NE((*again)->FileStamp(), (*read)->FileStamp());
  EXPECT_EQ(FileContents::Map(dir.File("missing.bin")).status().code(), StatusCode::kNotFound);
}

TEST(FileContentsTest, AStampReadsAsItsFiveNumbersInOrder) {
  FileContents::Stamp stamp;
  stamp.device = 2049;
  stamp.inode = 1234567;
  stamp.size = 47722568;
  stamp.mtime_ns = 1765000000123456789;
  stamp.ctime_ns = -1;
  EXPECT_EQ(stamp.ToString(), "2049 1234567 47722568 1765000000123456789 -1");
}

TEST(FileContentsTest, EmptyFileGivesNoBytes) {
  const testing::TempDir dir;
  testing::WriteFile(dir.File("empty"), "");
  auto bytes = FileContents::Read(dir.File("empty"));
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_TRUE((*bytes)->Bytes().empty());
}

TEST(FileContentsTest, MissingFileIsNotFoundNamingIt) {
  const testing::TempDir dir;
  auto bytes = FileContents::Read(dir.File("nowhere"));
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kNotFound);
  EXPECT_NE(bytes.status().message().find(dir.File("nowhere")), std::string::npos);
}

TEST(FileContentsTest, ADirectoryIsAnErrorNamingIt) {
  const testing::TempDir dir;
  auto bytes = FileContents::Read(dir.path().string());
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find(dir.path().string()), std::string::npos);
  EXPECT_NE(bytes.status().message().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace engram
