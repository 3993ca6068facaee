#include "src/context/chunker.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "src/common/utf8.h"

namespace engram {
namespace {

std::string Lines(int from, int to, size_t width) {
  std::string out;
  for (int i = from; i <= to; ++i) {
    std::string line = "line " + std::to_string(i) + " ";
    line.resize(width - 1, 'x');
    out += line + "\n";
  }
  return out;
}

TEST(ChunkerTest, EmptyAndBlankTextsGiveNoChunks) {
  EXPECT_TRUE(ChunkText("", {}).empty());
  EXPECT_TRUE(ChunkText("\n\n   \n\t\n", {}).empty());
}

TEST(ChunkerTest, SmallFileIsOneChunkWithItsLineRange) {
  const auto chunks = ChunkText("alpha\nbeta\ngamma", {});
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].start_line, 1);
  EXPECT_EQ(chunks[0].end_line, 3);
  EXPECT_EQ(chunks[0].text, "alpha\nbeta\ngamma");
}

TEST(ChunkerTest, WindowsFitTheBudgetAndOverlapByTwoLines) {
  // 100 lines of 100 bytes: 12 lines per 1,200-byte window, then 2 back.
  const std::string text = Lines(1, 100, 100);
  const auto chunks = ChunkText(text, {1200, 2});
  ASSERT_GE(chunks.size(), 9u);
  EXPECT_EQ(chunks[0].start_line, 1);
  EXPECT_EQ(chunks[0].end_line, 12);
  EXPECT_EQ(chunks[1].start_line, 11);
  EXPECT_EQ(chunks[1].end_line, 22);
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LE(chunks[i].text.size(), 1200u);
    if (i > 0) {
      EXPECT_EQ(chunks[i].start_line, chunks[i - 1].end_line - 1) << i;
    }
  }
  EXPECT_EQ(chunks.back().end_line, 100);
}

TEST(ChunkerTest, NoOverlapWhenAskedForNone) {
  const auto chunks = ChunkText(Lines(1, 30, 100), {1200, 0});
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[1].start_line, 13);
  EXPECT_EQ(chunks[2].start_line, 25);
}

TEST(ChunkerTest, OverlapShrinksSoEveryWindowBringsANewLine) {
  // Lines of 500 bytes: two fit, and the next window cannot carry two back.
  const auto chunks = ChunkText(Lines(1, 5, 500), {1200, 2});
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0].start_line, 1);
  EXPECT_EQ(chunks[0].end_line, 2);
  EXPECT_EQ(chunks[1].start_line, 2);
  EXPECT_EQ(chunks[1].end_line, 3);
  EXPECT_EQ(chunks[3].end_line, 5);
}

TEST(ChunkerTest, LongLineIsCutAtCodePointBoundaries) {
  std::string line;
  for (int i = 0; i < 1000; ++i) line += "é";  // 2 bytes each
  line = "a" + line;                           // odd offset: a naive cut splits "é"
  const std::string text = "before\n" + line + "\nafter\n";
  const auto chunks = ChunkText(text, {1200, 2});
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0].text, "before\n");
  std::string joined;
  for (size_t i = 1; i <= 2; ++i) {
    EXPECT_EQ(chunks[i].start_line, 2);
    EXPECT_EQ(chunks[i].end_line, 2);
    EXPECT_LE(chunks[i].text.size(), 1200u);
    EXPECT_TRUE(IsValidUtf8(chunks[i].text)) << i;
    joined += chunks[i].text;
  }
  EXPECT_EQ(joined, line + "\n");
  EXPECT_EQ(chunks[3].text, "after\n");
  EXPECT_EQ(chunks[3].start_line, 3);
}

TEST(ChunkerTest, EditingOneLineChangesOnlyTheWindowsHoldingIt) {
  const std::string before = Lines(1, 200, 80);
  std::string after = before;
  const size_t at = after.find("line 100 ");
  after.replace(at, 8, "LINE 100");
  const auto a = ChunkText(before, {});
  const auto b = ChunkText(after, {});
  ASSERT_EQ(a.size(), b.size());
  size_t changed = 0;
  for (size_t i = 0; i < a.size(); ++i) changed += a[i].text != b[i].text;
  EXPECT_GE(changed, 1u);
  EXPECT_LE(changed, 2u);  // the line may sit in an overlap
}

TEST(ChunkerTest, WindowsEndAtBlankLinesSoAnInsertionStaysLocal) {
  std::string before;
  for (int p = 0; p < 40; ++p) before += Lines(p * 10, p * 10 + 4, 60) + "\n";
  std::string after = before;
  after.insert(after.find("line 200 "), "an inserted line\n");
  const auto a = ChunkText(before, {});
  const auto b = ChunkText(after, {});
  for (const TextChunk& c : a) {
    EXPECT_TRUE(c.text.size() < 4 || c.text.substr(c.text.size() - 2) == "\n\n") << c.end_line;
  }
  std::set<std::string> old_texts;
  for (const TextChunk& c : a) old_texts.insert(c.text);
  size_t fresh = 0;
  for (const TextChunk& c : b) fresh += old_texts.count(c.text) == 0;
  EXPECT_EQ(fresh, 1u);
}

TEST(ChunkerTest, ChunkingKeyNamesTheSettings) { EXPECT_EQ(ChunkingKey({1200, 2}), "1200/2"); }

}  // namespace
}  // namespace engram
