#include "src/text/stemmer.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "src/common/unicode.h"

namespace engram {
namespace {

TEST(StemmerTest, EnglishReducesInflections) {
  EXPECT_EQ(Stem("running", Language::kEnglish), "run");
  EXPECT_EQ(Stem("runs", Language::kEnglish), "run");
  EXPECT_EQ(Stem("configuration", Language::kEnglish), "configur");
}

TEST(StemmerTest, EnglishStemsTheAccentFoldedWord) {
  EXPECT_EQ(Stem("naïve", Language::kEnglish), Stem("naive", Language::kEnglish));
  EXPECT_EQ(Stem("café", Language::kEnglish), "cafe");
}

TEST(StemmerTest, PortugueseConflatesSingularAndPlural) {
  EXPECT_EQ(Stem("configuração", Language::kPortuguese), "configur");
  EXPECT_EQ(Stem("configurações", Language::kPortuguese), "configur");
  EXPECT_EQ(Stem("servidores", Language::kPortuguese), "servidor");
}

TEST(StemmerTest, PortugueseStemIsAccentFolded) {
  EXPECT_EQ(Stem("ação", Language::kPortuguese), "aca");
  EXPECT_EQ(Stem("órgão", Language::kPortuguese), "orga");
}

// Words whose accents sit on a suffix the stemmer knows: written with or
// without accents they must give one stem.
TEST(StemmerTest, PortugueseUnaccentedSpellingGivesTheAccentedStem) {
  const std::vector<std::string> words = {
      "ação",       "ações",    "configuração", "configurações", "informações", "importância",
      "ciência",    "ciências", "possível",     "possíveis",     "amáveis",     "falávamos",
      "falaríamos", "comíamos", "falássemos",   "questões",      "irmãos",      "falarão",
      "alemães",    "países",   "histórico",    "público",       "análise",     "razões"};
  for (const std::string& word : words) {
    EXPECT_EQ(Stem(FoldAccents(word), Language::kPortuguese), Stem(word, Language::kPortuguese))
        << word;
  }
}

TEST(StemmerTest, NumbersAndEmptyInputPassThrough) {
  EXPECT_EQ(Stem("2024", Language::kEnglish), "2024");
  EXPECT_EQ(Stem("2024", Language::kPortuguese), "2024");
  EXPECT_EQ(Stem("", Language::kEnglish), "");
  EXPECT_EQ(Stem("", Language::kPortuguese), "");
}

TEST(StemmerTest, RepeatedAndLongWordsGiveTheSameStemEveryTime) {
  // The second call is served by the per-thread memo; the long words (over
  // 31 bytes) bypass it.
  const std::string long_word = "pneumonoultramicroscopicsilicovolcanoconiosis";
  const std::string long_stem = Stem(long_word, Language::kEnglish);
  EXPECT_EQ(long_stem, "pneumonoultramicroscopicsilicovolcanoconiosi");
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(Stem("running", Language::kEnglish), "run");
    EXPECT_EQ(Stem(long_word, Language::kEnglish), long_stem);
  }
}

TEST(StemmerTest, EachLanguageHasItsOwnMemo) {
  EXPECT_EQ(Stem("configurações", Language::kPortuguese), "configur");
  EXPECT_EQ(Stem("configurações", Language::kEnglish), "configuraco");
  EXPECT_EQ(Stem("configurações", Language::kPortuguese), "configur");
}

TEST(StemmerTest, ConcurrentThreadsGetConsistentStems) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (size_t t = 0; t < mismatches.size(); ++t) {
    threads.emplace_back([t, &mismatches] {
      for (int i = 0; i < 2000; ++i) {
        if (Stem("running", Language::kEnglish) != "run") ++mismatches[t];
        if (Stem("configurações", Language::kPortuguese) != "configur") {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

}  // namespace
}  // namespace engram
