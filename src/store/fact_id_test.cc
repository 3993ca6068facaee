#include "src/store/fact_id.h"

#include <gtest/gtest.h>

#include "src/common/hash.h"

namespace engram {
namespace {

TEST(FactIdTest, NormalisesCaseWhitespaceAndCompatibilityForms) {
  EXPECT_EQ(NormalizeForId("  Prefers   TABS\tover\nspaces "), "prefers tabs over spaces");
  EXPECT_EQ(NormalizeForId("ﬁle ＡＢＣ"), "file abc");
  EXPECT_EQ(FactId("Prefers tabs"), FactId("  prefers   TABS  "));
  EXPECT_NE(FactId("prefers tabs"), FactId("prefers tab"));
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
