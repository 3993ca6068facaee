// docs/FEATURES.md names, for every feature, the tests that show it. This
// test keeps the table honest: every test it names must exist.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "tests/test_util.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

// "Suite, Name" of every TEST, TEST_F and TEST_P under src/ and tests/.
std::set<std::string> DefinedTests() {
  std::set<std::string> out;
  const std::regex def(R"(TEST(?:_F|_P)?\((\w+), (\w+)\))");
  for (const char* dir : {"src", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(ENGRAM_SOURCE_DIR) / dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".cc") continue;
      const std::string text = testing::ReadFile(entry.path().string());
      for (std::sregex_iterator it(text.begin(), text.end(), def), end; it != end; ++it) {
        out.insert((*it)[1].str() + "." + (*it)[2].str());
      }
    }
  }
  return out;
}

TEST(FeaturesDocTest, EveryNamedTestExists) {
  const std::string doc =
      testing::ReadFile((fs::path(ENGRAM_SOURCE_DIR) / "docs" / "FEATURES.md").string());
  ASSERT_FALSE(doc.empty());
  const std::set<std::string> defined = DefinedTests();
  // `Suite.Name` in backquotes, with an optional "Instantiation/" prefix.
  const std::regex named(R"(`(?:\w+/)?([A-Z]\w*Test)\.([A-Z]\w*)`)");
  size_t checked = 0;
  for (std::sregex_iterator it(doc.begin(), doc.end(), named), end; it != end; ++it) {
    const std::string name = (*it)[1].str() + "." + (*it)[2].str();
    EXPECT_TRUE(defined.count(name)) << "docs/FEATURES.md names " << name << ", which is no test";
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace engram
