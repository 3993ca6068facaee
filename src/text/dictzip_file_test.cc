// DictzipFile against dictzip files written here with small chunks, so
// pieces span chunk boundaries, and against plain gzip.
#include "src/text/dictzip_file.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <string>

#include "src/text/dictzip_writer_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

std::string SampleText() {
  std::string text;
  for (int i = 0; i < 60; ++i) text += "entry " + std::to_string(i) + " /x/\ntranslation\n";
  return text;
}

TEST(DictzipFileTest, EveryPieceReadsAsTheTextHasIt) {
  testing::TempDir dir;
  const std::string text = SampleText();
  ASSERT_TRUE(testing::WriteDictzip(dir.File("a.dict.dz"), text, 97));
  auto file = DictzipFile::Open(dir.File("a.dict.dz"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ(file->size(), text.size());
  // Read out of order, so chunks are inflated in any order.
  for (size_t length : {size_t{0}, size_t{1}, size_t{40}, size_t{97}, size_t{250}}) {
    for (size_t offset = text.size() - length;; offset -= std::min<size_t>(offset, 13)) {
      auto piece = file->Read(offset, length);
      ASSERT_TRUE(piece.ok()) << piece.status().ToString();
      EXPECT_EQ(*piece, text.substr(offset, length)) << offset << "+" << length;
      if (offset == 0) break;
    }
  }
  auto past = file->Read(text.size() - 3, 4);
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
}

TEST(DictzipFileTest, PlainGzipIsReadWhole) {
  testing::TempDir dir;
  const std::string text = SampleText();
  gzFile packed = gzopen(dir.File("p.dict.dz").c_str(), "wb");
  ASSERT_NE(packed, nullptr);
  ASSERT_EQ(gzwrite(packed, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(packed), Z_OK);
  auto file = DictzipFile::Open(dir.File("p.dict.dz"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ(file->size(), text.size());
  EXPECT_EQ(*file->Read(100, 300), text.substr(100, 300));
}

TEST(DictzipFileTest, ABrokenChunkFailsOnlyTheReadsThatNeedIt) {
  testing::TempDir dir;
  const std::string text = SampleText();
  bool ok = false;
  std::string bytes = testing::Dictzip(text, 400, &ok);
  ASSERT_TRUE(ok);
  // The header is 10 + 2 + 10 + 2 * chunks bytes; damage the middle of the
  // file, well into a later chunk than the first.
  const size_t middle = bytes.size() / 2;
  for (size_t i = middle; i < middle + 8; ++i) bytes[i] = static_cast<char>(~bytes[i]);
  std::ofstream(dir.File("b.dict.dz"), std::ios::binary) << bytes;
  auto file = DictzipFile::Open(dir.File("b.dict.dz"));
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(*file->Read(0, 100), text.substr(0, 100));
  size_t failed = 0;
  for (size_t offset = 0; offset < text.size(); offset += 400) {
    auto piece = file->Read(offset, 1);
    if (piece.ok()) {
      EXPECT_EQ(*piece, text.substr(offset, 1));
      continue;
    }
    ++failed;
    EXPECT_EQ(piece.status().code(), StatusCode::kIOError);
    EXPECT_NE(piece.status().message().find("b.dict.dz: chunk "), std::string::npos)
        << piece.status().message();
  }
  EXPECT_GE(failed, 1u);
}

TEST(DictzipFileTest, AChunkTableThatDoesNotFitIsNamedAtOpen) {
  testing::TempDir dir;
  bool ok = false;
  std::string bytes = testing::Dictzip(SampleText(), 400, &ok);
  ASSERT_TRUE(ok);
  std::ofstream(dir.File("cut.dict.dz"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  auto cut = DictzipFile::Open(dir.File("cut.dict.dz"));
  ASSERT_EQ(cut.status().code(), StatusCode::kIOError);
  EXPECT_NE(cut.status().message().find("cut.dict.dz: "), std::string::npos)
      << cut.status().message();
  std::ofstream(dir.File("short.dict.dz"), std::ios::binary) << "\x1f\x8b";
  EXPECT_EQ(DictzipFile::Open(dir.File("short.dict.dz")).status().code(), StatusCode::kIOError);
  EXPECT_EQ(DictzipFile::Open(dir.File("none.dict.dz")).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram
