// The dictd reader against a small hand-written dictionary
// (tests/data/dictd), and Debian's FreeDict por-eng where installed.
#include "src/text/bilingual_dictionary.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/test_util.h"

namespace engram {
namespace {

const std::string kDir = std::string(ENGRAM_TEST_DATA_DIR) + "/dictd";

TEST(BilingualDictionaryTest, MapsAPortugueseStemToOneWordEnglishTranslations) {
  auto d = BilingualDictionary::Load(kDir, "test-por-eng");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  // "idioma" stems to "idiom"; its senses give idiom, language, tongue,
  // stemmed as English.
  EXPECT_EQ(d->Translations("idiom"), (std::vector<std::string>{"idiom", "languag", "tongu"}));
  // Semicolons separate too; at most three are kept.
  EXPECT_EQ(d->Translations("preferent"),
            (std::vector<std::string>{"prefer", "predilect", "like"}));
  // A translation of more than one term ("port (computing)") is left out.
  EXPECT_EQ(d->Translations("port"), (std::vector<std::string>{"door", "gate", "doorway"}));
  // Stop words and phrases are no headwords; nor is the metadata.
  EXPECT_TRUE(d->Translations("de").empty());
  EXPECT_TRUE(d->Translations("banc").empty());
  EXPECT_EQ(d->size(), 3u);
}

TEST(BilingualDictionaryTest, GlossReadsAPortugueseTextWordByWordInEnglish) {
  auto d = BilingualDictionary::Load(kDir, "test-por-eng");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  // Stop words go; a word with a translation becomes its first, as the
  // entry writes it; a word without one stays as the text writes it.
  EXPECT_EQ(d->Gloss("Qual é a minha preferência de idioma?"), "preference idiom");
  EXPECT_EQ(d->Gloss("a porta do Kafka"), "door Kafka");
  EXPECT_EQ(d->Gloss("de que"), "");
}

TEST(BilingualDictionaryTest, ReadsEnglishToPortugueseTheSameWay) {
  auto d =
      BilingualDictionary::Load(kDir, "test-eng-por", Language::kEnglish, Language::kPortuguese);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  // Headwords stemmed as English, translations as Portuguese.
  EXPECT_EQ(d->Translations("languag"), (std::vector<std::string>{"lingu", "idiom", "linguag"}));
  // "era" is a Portuguese stop word ("was"), so no translation.
  EXPECT_EQ(d->Translations("age"), (std::vector<std::string>{"idad", "geraca"}));
  // Phrases on either side are left out.
  EXPECT_TRUE(d->Translations("laptop").empty());
  EXPECT_TRUE(d->Translations("data").empty());
  EXPECT_EQ(d->size(), 3u);
  EXPECT_EQ(d->Gloss("Which language does the team use?"), "língua equipe use");
}

TEST(BilingualDictionaryTest, BadFilesAreNamed) {
  testing::TempDir dir;
  auto missing = BilingualDictionary::Load(dir.path().string(), "none");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  {
    std::ofstream(dir.File("bad.index")) << "idioma\tBB\n";
    std::filesystem::copy_file(kDir + "/test-por-eng.dict.dz", dir.File("bad.dict.dz"));
  }
  auto bad = BilingualDictionary::Load(dir.path().string(), "bad");
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("bad.index:1:"), std::string::npos)
      << bad.status().message();
  {
    std::ofstream(dir.File("past.index")) << "idioma\tBB\tzzzz\n";
    std::filesystem::copy_file(kDir + "/test-por-eng.dict.dz", dir.File("past.dict.dz"));
  }
  EXPECT_EQ(BilingualDictionary::Load(dir.path().string(), "past").status().code(),
            StatusCode::kInvalidArgument);
  {
    std::ofstream(dir.File("plain.index")) << "idioma\tA\tB\n";
    std::ofstream(dir.File("plain.dict.dz")) << "not gzip";
  }
  EXPECT_EQ(BilingualDictionary::Load(dir.path().string(), "plain").status().code(),
            StatusCode::kIOError);
}

TEST(BilingualDictionaryTest, DebiansFreeDictLoadsWhenInstalled) {
  if (!std::filesystem::exists("/usr/share/dictd/freedict-por-eng.index")) {
    GTEST_SKIP() << "dict-freedict-por-eng is not installed";
  }
  const BilingualDictionary& d = BilingualDictionary::PortugueseEnglish();
  EXPECT_GT(d.size(), 5000u);
  const std::vector<std::string>& idioma = d.Translations("idiom");
  EXPECT_NE(std::find(idioma.begin(), idioma.end(), "languag"), idioma.end());
}

TEST(BilingualDictionaryTest, DebiansEnglishPortugueseLoadsWhenInstalled) {
  if (!std::filesystem::exists("/usr/share/dictd/freedict-eng-por.index")) {
    GTEST_SKIP() << "dict-freedict-eng-por is not installed";
  }
  const BilingualDictionary& d = BilingualDictionary::EnglishPortuguese();
  EXPECT_GT(d.size(), 5000u);
  const std::vector<std::string>& language = d.Translations("languag");
  EXPECT_NE(std::find(language.begin(), language.end(), "idiom"), language.end());
}

}  // namespace
}  // namespace engram
