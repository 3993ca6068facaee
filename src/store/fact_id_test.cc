#include "src/store/fact_id.h"

#include <gtest/gtest.h>
#include <unicode/uchar.h>

#include "src/common/hash.h"

namespace engram {
namespace {

TEST(FactIdTest, NormalisesCaseWhitespaceAndCompatibilityForms) {
  EXPECT_EQ(NormalizeForId("  Prefers   TABS\tover\nspaces "), "prefers tabs over spaces");
  EXPECT_EQ(NormalizeForId("ﬁle ＡＢＣ"), "file abc");
  EXPECT_EQ(FactId("Prefers tabs"), FactId("  prefers   TABS  "));
  EXPECT_NE(FactId("prefers tabs"), FactId("prefers tab"));
}

// The ASCII shortcut answers as ICU's White_Space property does, and the
// non-ASCII spaces still separate words.
TEST(FactIdTest, WhiteSpaceIsUnicodesPropertyForEveryAsciiCharacter) {
  for (char32_t c = 1; c < 0x80; ++c) {
    if (c >= 'A' && c <= 'Z') continue;  // folded to lower case, not spaces
    const std::string text = std::string("a") + static_cast<char>(c) + "b";
    const bool space = u_isUWhiteSpace(static_cast<UChar32>(c)) != 0;
    EXPECT_EQ(NormalizeForId(text), space ? "a b" : text) << "code point " << static_cast<int>(c);
  }
  EXPECT_EQ(NormalizeForId("a\u00a0b\u2003c\u0085d"), "a b c d");
}

TEST(FactIdTest, IsFirstTwelveBytesOfSha256AsHex) {
  const std::string id = FactId("Hello  World");
  EXPECT_EQ(id.size(), 24u);
  EXPECT_EQ(id, Sha256Hex("hello world").substr(0, 24));
}

TEST(FactIdTest, RecognisesIdPrefixes) {
  EXPECT_TRUE(LooksLikeIdPrefix("3f2a"));
  EXPECT_FALSE(LooksLikeIdPrefix("3F2A"));
  EXPECT_FALSE(LooksLikeIdPrefix("xyz1"));
  EXPECT_FALSE(LooksLikeIdPrefix(""));
  EXPECT_FALSE(LooksLikeIdPrefix(std::string(25, 'a')));
}

}  // namespace
}  // namespace engram
