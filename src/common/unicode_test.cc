#include "src/common/unicode.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(UnicodeTest, NfkcFoldsCompatibilityForms) {
  EXPECT_EQ(Nfkc("ﬁle"), "file");          // ligature
  EXPECT_EQ(Nfkc("Ｈｅｌｌｏ"), "Hello");  // full-width
}

TEST(UnicodeTest, CaseFoldIsFullFolding) {
  EXPECT_EQ(NfkcCaseFold("Straße"), "strasse");
  EXPECT_EQ(NfkcCaseFold("AÇÃO"), "ação");
  EXPECT_EQ(NfkcCaseFold("MiXeD"), "mixed");
}

TEST(UnicodeTest, FoldAccentsStripsCombiningMarks) {
  EXPECT_EQ(FoldAccents("ação"), "acao");
  EXPECT_EQ(FoldAccents("você"), "voce");
  EXPECT_EQ(FoldAccents("naïve café"), "naive cafe");
  EXPECT_EQ(FoldAccents("plain"), "plain");
}

}  // namespace
}  // namespace engram
