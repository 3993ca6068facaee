#include "src/config/config.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/test_util.h"

namespace engram {
namespace {

Environment FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

const ConfigEntry& Entry(const ResolvedConfig& c, const std::string& key) {
  for (const auto& e : c.entries) {
    if (e.key == key) return e;
  }
  static ConfigEntry none;
  ADD_FAILURE() << "no key " << key;
  return none;
}

TEST(ConfigTest, DefaultsComeFromHome) {
  auto c = ResolveConfig(FakeEnv({{"HOME", "/home/ana"}}), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->home, "/home/ana/.local/share/engram");
  EXPECT_EQ(c->engine.db_path, "/home/ana/.local/share/engram/memory.db");
  EXPECT_EQ(c->config_path, "/home/ana/.config/engram/config.toml");
  EXPECT_EQ(Entry(*c, "bm25.k1").source, ConfigSource::kDefault);
  EXPECT_DOUBLE_EQ(c->engine.bm25.k1, 0.9);
}

TEST(ConfigTest, PrecedenceIsFileThenEnvThenFlag) {
  testing::TempDir dir;
  const std::string file = dir.File("config.toml");
  testing::WriteFile(file, "home = \"/data/e\"\n[bm25]\nk1 = 1.5\nb = 0.7\n[search]\nk = 7\n");
  auto env = FakeEnv({{"HOME", "/h"}, {"ENGRAM_CONFIG", file}, {"ENGRAM_BM25_B", "0.2"}});
  auto c = ResolveConfig(env, {{"search.k", "3"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_DOUBLE_EQ(c->engine.bm25.k1, 1.5);
  EXPECT_EQ(Entry(*c, "bm25.k1").source, ConfigSource::kFile);
  EXPECT_EQ(Entry(*c, "bm25.k1").origin, file);
  EXPECT_DOUBLE_EQ(c->engine.bm25.b, 0.2);
  EXPECT_EQ(Entry(*c, "bm25.b").origin, "ENGRAM_BM25_B");
  EXPECT_EQ(c->search_k, 3u);
  EXPECT_EQ(Entry(*c, "search.k").source, ConfigSource::kFlag);
  EXPECT_EQ(c->engine.db_path, "/data/e/memory.db");
}

TEST(ConfigTest, OutOfRangeIsClampedAndGarbageRefusedWithWarnings) {
  auto env = FakeEnv({{"HOME", "/h"},
                      {"ENGRAM_BM25_B", "3"},
                      {"ENGRAM_BM25_K1", "fast"},
                      {"ENGRAM_SEARCH_MODE", "magic"}});
  auto c = ResolveConfig(env, {});
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->engine.bm25.b, 1.0);
  EXPECT_DOUBLE_EQ(c->engine.bm25.k1, 0.9);
  EXPECT_EQ(c->search_mode, FusionMode::kBlended);
  ASSERT_EQ(c->warnings.size(), 3u);
  std::string all;
  for (const auto& w : c->warnings) all += w + "\n";
  EXPECT_NE(all.find("bm25.b from ENGRAM_BM25_B: clamped 3 to 1"), std::string::npos) << all;
  EXPECT_NE(all.find("bm25.k1 from ENGRAM_BM25_K1: 'fast' is not a number"), std::string::npos)
      << all;
  EXPECT_NE(all.find("search.mode"), std::string::npos) << all;
}

TEST(ConfigTest, WrongTomlTypesAreRefused) {
  testing::TempDir dir;
  const std::string file = dir.File("config.toml");
  testing::WriteFile(file, "home = [\"x\"]\n[search]\nk = 2024-01-01\n");
  auto c = ResolveConfig(FakeEnv({{"HOME", "/h"}, {"ENGRAM_CONFIG", file}}), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->home, "/h/.local/share/engram");
  EXPECT_EQ(c->search_k, 10u);
  ASSERT_EQ(c->warnings.size(), 2u);
  EXPECT_NE(c->warnings[0].find("home from " + file + ": an array is not a value"),
            std::string::npos)
      << c->warnings[0];
}

TEST(ConfigTest, BrokenConfigFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  const std::string file = dir.File("config.toml");
  testing::WriteFile(file, "[bm25\nk1 = \n");
  auto c = ResolveConfig(FakeEnv({{"HOME", "/h"}, {"ENGRAM_CONFIG", file}}), {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(file), std::string::npos);
}

TEST(ConfigTest, UnknownFileKeysAreWarned) {
  testing::TempDir dir;
  const std::string file = dir.File("config.toml");
  testing::WriteFile(file, "[bm25]\nk2 = 1\n");
  auto c = ResolveConfig(FakeEnv({{"HOME", "/h"}, {"ENGRAM_CONFIG", file}}), {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("unknown key 'bm25.k2'"), std::string::npos);
}

TEST(ConfigTest, EveryKeyIsDocumented) {
  auto c = ResolveConfig(FakeEnv({{"HOME", "/h"}}), {});
  ASSERT_TRUE(c.ok());
  const std::string doc = testing::ReadFile(std::string(ENGRAM_SOURCE_DIR) + "/docs/CONFIG.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& e : c->entries) {
    EXPECT_NE(doc.find("| `" + e.key + "` |"), std::string::npos) << e.key;
  }
}

}  // namespace
}  // namespace engram
