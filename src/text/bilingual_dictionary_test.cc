// The dictd reader against a small hand-written dictionary
// (tests/data/dictd), and Debian's FreeDict por-eng where installed.
#include "src/text/bilingual_dictionary.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "src/text/analyzer.h"
#include "src/text/dictzip_writer_for_test.h"
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

// dictd's base 64 of `n`.
std::string DictNumber(size_t n) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[n % 64]);
    n /= 64;
  } while (n > 0);
  return out;
}

TEST(BilingualDictionaryTest, HeadwordsInEveryBucketAreFoundFromAnyThread) {
  // Headwords upper-case, accented first and plain: each is filed under its
  // first two bytes or, for "Água" and "Ação", under its term's; "Casa" and
  // "casas" share a stem and a list, and so do "Ação" and "acao", whose
  // lists join in the index's order wherever the headwords were filed.
  const std::vector<std::pair<std::string, std::string>> entries = {
      {"Água", "Água /x/\nwater\n"},    {"Ação", "Ação /x/\naction\n"},
      {"acao", "acao /x/\nact\n"},      {"Casa", "Casa /x/\nhouse, home\n"},
      {"casas", "casas /x/\nhouses\n"}, {"porta", "porta /x/\ndoor\n"}};
  testing::TempDir dir;
  std::string text;
  {
    std::ofstream index(dir.File("mixed.index"));
    for (const auto& [headword, entry] : entries) {
      index << headword << '\t' << DictNumber(text.size()) << '\t' << DictNumber(entry.size())
            << '\n';
      text += entry;
    }
  }
  gzFile packed = gzopen(dir.File("mixed.dict.dz").c_str(), "wb");
  ASSERT_NE(packed, nullptr);
  ASSERT_EQ(gzwrite(packed, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(packed), Z_OK);
  // The same text as dictzip in chunks of 16 bytes, so entries span chunks.
  std::filesystem::copy_file(dir.File("mixed.index"), dir.File("chunked.index"));
  ASSERT_TRUE(testing::WriteDictzip(dir.File("chunked.dict.dz"), text, 16));
  const auto term = [](const std::string& word) {
    return Analyze(word, Language::kPortuguese).front().term;
  };
  const std::vector<std::pair<std::string, std::vector<std::string>>> want = {
      {term("água"), {"water"}},
      {term("ação"), {"action", "act"}},
      {term("casa"), {"hous", "home"}},
      {term("porta"), {"door"}}};
  for (const std::string name : {"mixed", "chunked"}) {
    auto d = BilingualDictionary::Load(dir.path().string(), name);
    ASSERT_TRUE(d.ok()) << name << ": " << d.status().ToString();
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (size_t t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (size_t i = 0; i < want.size(); ++i) {
          const auto& [stem, translations] = want[(i + t) % want.size()];
          if (d->Translations(stem) != translations) ++wrong[t];
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(wrong, std::vector<int>(4, 0)) << name;
    EXPECT_EQ(d->size(), 4u) << name;
  }
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

// The first line of the file at `path`.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(BilingualDictionaryTest, ATableAnswersForTheDictionaryItWasMadeFrom) {
  testing::TempDir dir;
  std::filesystem::copy(kDir, dir.File("dictd"));
  const std::string cache = dir.File("cache/engram");
  const std::string table = cache + "/test-por-eng.terms";
  const auto load = [&] {
    return BilingualDictionary::LoadThroughTable(dir.File("dictd"), "test-por-eng",
                                                 Language::kPortuguese, Language::kEnglish, cache);
  };
  // The first load analyses the dictionary and writes the table.
  auto first = load();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(std::filesystem::exists(table));
  EXPECT_EQ(std::filesystem::status(cache).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  auto through_table = load();
  ASSERT_TRUE(through_table.ok()) << through_table.status().ToString();
  auto whole = BilingualDictionary::Load(kDir, "test-por-eng");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  for (const char* term : {"idiom", "preferent", "port", "de", "banc", "absent"}) {
    EXPECT_EQ(through_table->Translations(term), whole->Translations(term)) << term;
    EXPECT_EQ(first->Translations(term), whole->Translations(term)) << term;
  }
  EXPECT_EQ(through_table->Gloss("Qual é a minha preferência de idioma?"), "preference idiom");
  EXPECT_EQ(through_table->size(), whole->size());

  // What the lookups answer comes from the table: one written by hand
  // under the same stamp is what they read.
  ASSERT_TRUE(
      DictionaryTermTable::Write(table, FirstLine(table), {{"idiom", {{"handmad"}, {"handmade"}}}})
          .ok());
  auto handmade = load();
  ASSERT_TRUE(handmade.ok()) << handmade.status().ToString();
  EXPECT_EQ(handmade->Translations("idiom"), std::vector<std::string>{"handmad"});
  EXPECT_TRUE(handmade->Translations("port").empty());

  // A dictionary file changed since: the table is made again from it.
  std::filesystem::last_write_time(
      dir.File("dictd/test-por-eng.index"),
      std::filesystem::last_write_time(dir.File("dictd/test-por-eng.index")) +
          std::chrono::seconds(1));
  auto remade = load();
  ASSERT_TRUE(remade.ok()) << remade.status().ToString();
  EXPECT_EQ(remade->Translations("idiom"), whole->Translations("idiom"));
  EXPECT_EQ(load()->Translations("port"), whole->Translations("port"));
}

TEST(BilingualDictionaryTest, WithoutAWritableCacheTheDictionaryStillAnswers) {
  testing::TempDir dir;
  std::ofstream(dir.File("file")) << "a file where the cache directory would be";
  auto d = BilingualDictionary::LoadThroughTable(kDir, "test-por-eng", Language::kPortuguese,
                                                 Language::kEnglish, dir.File("file/engram"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->Translations("idiom"), (std::vector<std::string>{"idiom", "languag", "tongu"}));
  auto missing = BilingualDictionary::LoadThroughTable(
      dir.path().string(), "none", Language::kPortuguese, Language::kEnglish, dir.File("cache"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// Through the table, every headword of Debian's dictionaries finds what the
// whole dictionary finds.
TEST(BilingualDictionaryTest, DebiansDictionariesReadThroughATableAnswerTheSame) {
  for (const auto& [name, from, to] :
       {std::tuple{"freedict-por-eng", Language::kPortuguese, Language::kEnglish},
        std::tuple{"freedict-eng-por", Language::kEnglish, Language::kPortuguese}}) {
    const std::string index = std::string("/usr/share/dictd/") + name + ".index";
    if (!std::filesystem::exists(index)) {
      GTEST_SKIP() << name << " is not installed";
    }
    testing::TempDir cache;
    auto whole = BilingualDictionary::Load("/usr/share/dictd", name, from, to);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    ASSERT_TRUE(BilingualDictionary::LoadThroughTable("/usr/share/dictd", name, from, to,
                                                      cache.path().string())
                    .ok());
    auto through_table = BilingualDictionary::LoadThroughTable("/usr/share/dictd", name, from, to,
                                                               cache.path().string());
    ASSERT_TRUE(through_table.ok()) << through_table.status().ToString();
    EXPECT_EQ(through_table->size(), whole->size()) << name;
    std::ifstream lines(index);
    size_t checked = 0;
    for (std::string line; std::getline(lines, line);) {
      for (const AnalyzedToken& token : Analyze(line.substr(0, line.find('\t')), from)) {
        ASSERT_EQ(through_table->Translations(token.term), whole->Translations(token.term))
            << name << ": " << token.term;
        ++checked;
      }
    }
    EXPECT_GT(checked, 5000u) << name;
  }
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
