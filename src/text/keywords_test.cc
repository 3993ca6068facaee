#include "src/text/keywords.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace engram {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(KeywordsTest, RanksByFrequencyThenAlphabetically) {
  EXPECT_THAT(ExtractKeywords("zebra apple mango apple zebra apple"),
              ElementsAre("apple", "zebra", "mango"));
}

TEST(KeywordsTest, PortugueseKeepsAccentsAndDropsFoldedStopWords) {
  EXPECT_THAT(ExtractKeywords("Você prefere café ou chá? O café é forte."),
              ElementsAre("café", "chá", "forte", "prefere"));
  EXPECT_THAT(ExtractKeywords("voce nao tambem"), IsEmpty());
}

TEST(KeywordsTest, EnglishDropsStopAndQuestionWords) {
  EXPECT_THAT(ExtractKeywords("What did Alice say when the deploy failed?"),
              ElementsAre("alice", "deploy", "failed", "say"));
}

TEST(KeywordsTest, LengthIsCountedInCodePoints) {
  // "çã" is 4 bytes but 2 code points: dropped. "ação" is 4: kept.
  EXPECT_THAT(ExtractKeywords("çã ação ab abc"), ElementsAre("abc", "ação"));
}

TEST(KeywordsTest, TrimsUnicodePunctuationButKeepsInnerPunctuation) {
  EXPECT_THAT(ExtractKeywords("“quoted” «citação» (file.cc) `engine.h`, …fim…"),
              ElementsAre("citação", "engine.h", "file.cc", "fim", "quoted"));
  EXPECT_THAT(ExtractKeywords("e-mail, couldn't—really?"),
              ElementsAre("couldn't—really", "e-mail"));
}

TEST(KeywordsTest, ContractionsWithEitherApostropheAreStopWords) {
  EXPECT_THAT(ExtractKeywords("don't don’t it's server"), ElementsAre("server"));
}

TEST(KeywordsTest, LowerCasesWithUnicodeCaseFolding) {
  EXPECT_THAT(ExtractKeywords("CAFÉ Café café"), ElementsAre("café"));
  EXPECT_THAT(ExtractKeywords("ÁRVORE"), ElementsAre("árvore"));
}

TEST(KeywordsTest, SplitsOnUnicodeWhitespace) {
  // U+2003 EM SPACE and U+3000 IDEOGRAPHIC SPACE separate tokens.
  EXPECT_THAT(ExtractKeywords("alpha\xE2\x80\x83"
                              "beta\xE3\x80\x80"
                              "gamma"),
              ElementsAre("alpha", "beta", "gamma"));
}

TEST(KeywordsTest, KeepsAtMostMaxKeywords) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "word" + std::to_string(100 + i) + " ";
  const std::vector<std::string> keywords = ExtractKeywords(text);
  ASSERT_EQ(keywords.size(), 20u);
  EXPECT_EQ(keywords.front(), "word100");
  EXPECT_EQ(keywords.back(), "word119");
  EXPECT_THAT(ExtractKeywords(text, 2), ElementsAre("word100", "word101"));
  EXPECT_THAT(ExtractKeywords(text, 0), IsEmpty());
}

TEST(KeywordsTest, TextWithoutKeywordsGivesNone) {
  EXPECT_THAT(ExtractKeywords(""), IsEmpty());
  EXPECT_THAT(ExtractKeywords("  \n\t "), IsEmpty());
  EXPECT_THAT(ExtractKeywords("... --- ?! ok no"), IsEmpty());
}

}  // namespace
}  // namespace engram
