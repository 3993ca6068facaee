#include "src/common/mapped_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/test_util.h"

namespace engram {
namespace {

TEST(MappedFileTest, MapsTheWholeFilePageAligned) {
  const testing::TempDir dir;
  std::string content(10000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 7);
  testing::WriteFile(dir.File("data.bin"), content);
  auto mapped = MappedFile::Open(dir.File("data.bin"));
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ((*mapped)->Bytes(), content);
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*mapped)->Bytes().data()) % 4096, 0u);
}

TEST(MappedFileTest, EmptyFileMapsToNoBytes) {
  const testing::TempDir dir;
  testing::WriteFile(dir.File("empty"), "");
  auto mapped = MappedFile::Open(dir.File("empty"));
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_TRUE((*mapped)->Bytes().empty());
}

TEST(MappedFileTest, MissingFileIsNotFoundNamingIt) {
  const testing::TempDir dir;
  auto mapped = MappedFile::Open(dir.File("nowhere"));
  ASSERT_FALSE(mapped.ok());
  EXPECT_EQ(mapped.status().code(), StatusCode::kNotFound);
  EXPECT_NE(mapped.status().message().find(dir.File("nowhere")), std::string::npos);
}

TEST(MappedFileTest, ADirectoryIsAnErrorNamingIt) {
  const testing::TempDir dir;
  auto mapped = MappedFile::Open(dir.path().string());
  ASSERT_FALSE(mapped.ok());
  EXPECT_NE(mapped.status().message().find(dir.path().string()), std::string::npos);
}

}  // namespace
}  // namespace engram
