#include "src/text/stop_words.h"

#include <gtest/gtest.h>

#include <set>
#include <string_view>

#include "src/common/unicode.h"

namespace engram {
namespace {

TEST(StopWordsTest, QuestionWordsAreStopWordsInBothLanguages) {
  for (std::string_view w : {"what", "when", "where", "who", "whom", "which", "why", "how", "did",
                             "does", "do", "is", "are", "was", "were"}) {
    EXPECT_TRUE(MatchStopWord(w).english) << w;
  }
  for (std::string_view w : {"que", "quando", "onde", "quem", "qual", "quais", "como", "porque"}) {
    EXPECT_TRUE(MatchStopWord(w).portuguese) << w;
  }
}

TEST(StopWordsTest, PortugueseWordsMatchInAccentFoldedForm) {
  EXPECT_TRUE(IsStopWord(FoldAccents("você")));
  EXPECT_TRUE(IsStopWord(FoldAccents("não")));
  EXPECT_TRUE(IsStopWord(FoldAccents("também")));
  EXPECT_TRUE(IsStopWord("voce"));
  // The accented spelling itself is not a key: callers fold first.
  EXPECT_FALSE(IsStopWord("você"));
}

TEST(StopWordsTest, ContentWordsAreNotStopWords) {
  for (std::string_view w : {"server", "coffee", "memory", "servidor", "cafe", "won", "may", ""}) {
    EXPECT_FALSE(IsStopWord(w)) << w;
  }
}

TEST(StopWordsTest, MatchReportsEachLanguageSeparately) {
  const StopWordMatch both = MatchStopWord("do");
  EXPECT_TRUE(both.english);
  EXPECT_TRUE(both.portuguese);
  const StopWordMatch english = MatchStopWord("the");
  EXPECT_TRUE(english.english);
  EXPECT_FALSE(english.portuguese);
  const StopWordMatch portuguese = MatchStopWord("uma");
  EXPECT_FALSE(portuguese.english);
  EXPECT_TRUE(portuguese.portuguese);
}

TEST(StopWordsTest, ContractionsAndTheirFragmentsAreEnglishStopWords) {
  for (std::string_view w : {"don't", "it's", "i'm", "don", "t", "s", "ll"}) {
    EXPECT_TRUE(MatchStopWord(w).english) << w;
  }
}

void ExpectFoldedLowerAndUnique(std::span<const std::string_view> words) {
  std::set<std::string_view> seen;
  for (std::string_view w : words) {
    EXPECT_EQ(FoldAccents(NfkcCaseFold(w)), w) << w;
    for (unsigned char c : w) EXPECT_LT(c, 0x80) << w;
    EXPECT_TRUE(seen.insert(w).second) << "duplicate: " << w;
  }
}

TEST(StopWordsTest, ListsAreStoredFoldedLowerCaseWithoutDuplicates) {
  ExpectFoldedLowerAndUnique(EnglishStopWords());
  ExpectFoldedLowerAndUnique(PortugueseStopWords());
}

TEST(StopWordsTest, ListsHaveAReasonableSize) {
  EXPECT_GE(EnglishStopWords().size(), 120u);
  EXPECT_LE(EnglishStopWords().size(), 260u);
  EXPECT_GE(PortugueseStopWords().size(), 120u);
  EXPECT_LE(PortugueseStopWords().size(), 260u);
}

}  // namespace
}  // namespace engram
