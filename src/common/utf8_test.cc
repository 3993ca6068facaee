#include "src/common/utf8.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(Utf8Test, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("ação você 日本 😀"));
  EXPECT_TRUE(IsValidUtf8(""));
}

TEST(Utf8Test, ReportsOffsetOfFirstBadSequence) {
  size_t bad = 99;
  EXPECT_FALSE(IsValidUtf8(std::string("ok\xff rest"), &bad));
  EXPECT_EQ(bad, 2u);
  EXPECT_FALSE(IsValidUtf8(std::string("ab\xc3"), &bad));  // truncated
  EXPECT_EQ(bad, 2u);
  EXPECT_FALSE(IsValidUtf8(std::string("\xc0\xaf"), &bad));  // overlong '/'
  EXPECT_EQ(bad, 0u);
  EXPECT_FALSE(IsValidUtf8(std::string("x\xed\xa0\x80"), &bad));  // surrogate
  EXPECT_EQ(bad, 1u);
}

TEST(Utf8Test, CountsCodePointsNotBytes) {
  EXPECT_EQ(CodePointCount("ação"), 4u);
  EXPECT_EQ(CodePointCount("😀a"), 2u);
}

TEST(Utf8Test, DecodesAndEncodesRoundTrip) {
  const std::string text = "aç日😀";
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) AppendUtf8(NextCodePoint(text, &pos), &out);
  EXPECT_EQ(out, text);
}

}  // namespace
}  // namespace engram
