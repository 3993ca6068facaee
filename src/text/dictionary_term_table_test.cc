// The analysed dictionary's file: every term written is found with its
// translations, nothing else is, and a table from other files, cut short
// or with separators in its text is refused.
#include "src/text/dictionary_term_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/test_util.h"

namespace engram {
namespace {

using Translations = DictionaryTermTable::Translations;

std::map<std::string, Translations> SomeEntries() {
  return {
      {"a", {{"um"}, {"one"}}},
      {"ab", {{"x", "y"}, {"ex", "why"}}},
      {"abc", {{"z"}, {"zed"}}},
      {"idiom", {{"idiom", "languag", "tongu"}, {"idiom", "language", "tongue"}}},
      {"m", {{"n"}, {"a dog"}}},  // a word may hold spaces
      {"zz", {{"last"}, {"last"}}},
      {"\xc3\xa1gua", {{"water"}, {"water"}}},  // UTF-8 sorts after ASCII
  };
}

TEST(DictionaryTermTableTest, FindsEveryTermWrittenAndNoOther) {
  testing::TempDir dir;
  const std::string path = dir.File("t.terms");
  const auto entries = SomeEntries();
  ASSERT_TRUE(DictionaryTermTable::Write(path, "stamp 1", entries).ok());
  auto table = DictionaryTermTable::Open(path, "stamp 1");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->size(), entries.size());
  for (const auto& [term, want] : entries) {
    Translations found;
    ASSERT_TRUE(table->Find(term, &found)) << term;
    EXPECT_EQ(found.terms, want.terms) << term;
    EXPECT_EQ(found.words, want.words) << term;
  }
  // Before the first, between neighbours, prefixes and extensions, after
  // the last.
  for (const char* absent : {"", "0", "aa", "abd", "abcd", "i", "idioms", "zzz", "\xc3\xa1"}) {
    Translations found;
    EXPECT_FALSE(table->Find(absent, &found)) << absent;
  }
}

TEST(DictionaryTermTableTest, AnEmptyTableFindsNothing) {
  testing::TempDir dir;
  const std::string path = dir.File("t.terms");
  ASSERT_TRUE(DictionaryTermTable::Write(path, "s", {}).ok());
  auto table = DictionaryTermTable::Open(path, "s");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  Translations found;
  EXPECT_FALSE(table->Find("a", &found));
  EXPECT_EQ(table->size(), 0u);
}

TEST(DictionaryTermTableTest, TablesFromOtherFilesOrCutShortAreRefused) {
  testing::TempDir dir;
  const std::string path = dir.File("t.terms");
  EXPECT_EQ(DictionaryTermTable::Open(path, "s").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(DictionaryTermTable::Write(path, "stamp 1", SomeEntries()).ok());
  EXPECT_EQ(DictionaryTermTable::Open(path, "stamp 2").status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(DictionaryTermTable::Open(path, "stamp").status().code(),
            StatusCode::kFailedPrecondition);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 2);
  const auto cut = DictionaryTermTable::Open(path, "stamp 1");
  EXPECT_EQ(cut.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(cut.status().message().find("cut short"), std::string::npos) << cut.status().message();
}

TEST(DictionaryTermTableTest, SeparatorsInTheTextAreRefusedAndNothingIsWritten) {
  testing::TempDir dir;
  const std::string path = dir.File("t.terms");
  ASSERT_TRUE(DictionaryTermTable::Write(path, "s", SomeEntries()).ok());
  for (const auto& bad : std::vector<std::map<std::string, Translations>>{
           {{"a\nb", {{"x"}, {"x"}}}},
           {{"a", {{"x\x1f"}, {"x"}}}},
           {{"a", {{"x"}, {"x\x1e"}}}},
       }) {
    EXPECT_EQ(DictionaryTermTable::Write(path, "s", bad).code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(DictionaryTermTable::Write(path, "s\n", {}).code(), StatusCode::kInvalidArgument);
  auto table = DictionaryTermTable::Open(path, "s");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->size(), SomeEntries().size()) << "the table before is left whole";
}

}  // namespace
}  // namespace engram
