#include "src/config/config.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

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

TEST(ConfigTest, ContextKeysSetTheChunkerAndAreClamped) {
  auto env = FakeEnv({{"HOME", "/h"},
                      {"ENGRAM_CONTEXT_CHUNK_BYTES", "800"},
                      {"ENGRAM_CONTEXT_OVERLAP_LINES", "1000"}});
  auto c = ResolveConfig(env, {{"context.max_file_bytes", "4096"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->engine.context.chunk_bytes, 800u);
  EXPECT_EQ(c->engine.context.overlap_lines, 100u);
  EXPECT_EQ(c->engine.context.max_file_bytes, 4096u);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("context.overlap_lines"), std::string::npos) << c->warnings[0];
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

// A table header holding control characters is an error naming the line
// (toml++ built with its assertions, as a header-only build without
// NDEBUG would be, aborts on it instead).
TEST(ConfigTest, ControlCharactersInATableHeaderAreAnErrorNamingTheLine) {
  testing::TempDir dir;
  const std::string file = dir.File("config.toml");
  std::string text = "[search]\nk = 10\n[\x04";
  text += '\0';
  text += "sion]\n";
  testing::WriteFile(file, text);
  auto c = ResolveConfig(FakeEnv({{"HOME", "/h"}, {"ENGRAM_CONFIG", file}}), {});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("line 3"), std::string::npos) << c.status().message();
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

namespace engram {
namespace {

bool AnyContains(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& l : lines) {
    if (l.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(ConfigProviderTest, SeedAliasesSetTheQualityKeysAndOutrankCanonicalNames) {
  auto env = FakeEnv({{"HOME", "/h"},
                      {"CHATCLI_QUALITY_HYDE_ENABLED", "true"},
                      {"CHATCLI_QUALITY_HYDE_USE_VECTORS", "false"},
                      {"CHATCLI_QUALITY_HYDE_NUM_KEYWORDS", "8"},
                      {"CHATCLI_EMBED_PROVIDER", "openai"},
                      {"ENGRAM_EMBED_PROVIDER", "voyage"},
                      {"CHATCLI_EMBED_MODEL", "text-embedding-3-large"},
                      {"CHATCLI_EMBED_DIMENSIONS", "256"}});
  auto c = ResolveConfig(env, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->engine.hyde.enabled);
  EXPECT_FALSE(c->engine.hyde.use_vectors);
  EXPECT_EQ(c->engine.hyde.num_keywords, 8u);
  EXPECT_EQ(c->embed_provider, "openai");
  EXPECT_EQ(Entry(*c, "embed.provider").origin, "CHATCLI_EMBED_PROVIDER");
  EXPECT_TRUE(AnyContains(c->warnings, "CHATCLI_EMBED_PROVIDER overrides ENGRAM_EMBED_PROVIDER"));
  EXPECT_EQ(c->embedder.model, "text-embedding-3-large");
  EXPECT_EQ(c->embedder.dimensions, 256u);
  // A flag still wins over every variable.
  auto flagged = ResolveConfig(env, {{"embed.provider", "local"}});
  ASSERT_TRUE(flagged.ok());
  EXPECT_EQ(flagged->embed_provider, "local");
}

TEST(ConfigProviderTest, OutOfRangeHydeAndHttpValuesAreClampedNamingTheKey) {
  auto env = FakeEnv({{"HOME", "/h"},
                      {"CHATCLI_QUALITY_HYDE_NUM_KEYWORDS", "50"},
                      {"ENGRAM_HTTP_MAX_ATTEMPTS", "0"},
                      {"ENGRAM_HYDE_EMBED", "sideways"}});
  auto c = ResolveConfig(env, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->engine.hyde.num_keywords, 20u);
  EXPECT_EQ(c->http.max_attempts, 1);
  EXPECT_EQ(c->engine.hyde.embed, HydeEmbed::kBoth);
  EXPECT_TRUE(AnyContains(c->warnings, "hyde.num_keywords from CHATCLI_QUALITY_HYDE_NUM_KEYWORDS"));
  EXPECT_TRUE(AnyContains(c->warnings, "http.max_attempts from ENGRAM_HTTP_MAX_ATTEMPTS"));
  EXPECT_TRUE(AnyContains(c->warnings, "hyde.embed from ENGRAM_HYDE_EMBED"));
}

TEST(ConfigProviderTest, ApiKeysGoToTheProviderThatUsesThemAndAreNeverListed) {
  auto env = FakeEnv({{"HOME", "/h"},
                      {"ENGRAM_EMBED_PROVIDER", "voyage"},
                      {"ENGRAM_LLM_PROVIDER", "anthropic"},
                      {"ENGRAM_LLM_MODEL", "claude-3-5-haiku-latest"},
                      {"ENGRAM_HTTP_TIMEOUT_MS", "1234"},
                      {"VOYAGE_API_KEY", "pa-voyage-secret"},
                      {"ANTHROPIC_API_KEY", "sk-ant-secret"},
                      {"OPENAI_API_KEY", "sk-openai-secret"}});
  auto c = ResolveConfig(env, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->embedder.remote.api_key, "pa-voyage-secret");
  EXPECT_EQ(c->llm_spec, "anthropic:claude-3-5-haiku-latest");
  EXPECT_EQ(c->llm.remote.api_key, "sk-ant-secret");
  EXPECT_EQ(c->embedder.remote.timeout_ms, 1234);
  // The LLM has its own, tighter budget: a search waits for it.
  EXPECT_EQ(c->llm.remote.timeout_ms, 10000);
  EXPECT_EQ(c->llm.remote.max_attempts, 2);
  EXPECT_EQ(c->embedder.remote.max_attempts, 4);
  EXPECT_TRUE(AnyContains(c->credentials, "VOYAGE_API_KEY set"));
  for (const auto& e : c->entries) {
    EXPECT_EQ(e.value.find("secret"), std::string::npos) << e.key;
  }
  for (const auto& line : c->credentials) EXPECT_EQ(line.find("secret"), std::string::npos);
}

TEST(ConfigProviderTest, OllamaHostAndBedrockRegionAndProfile) {
  testing::TempDir dir;
  const std::string credentials = dir.File("credentials");
  const std::string aws_config = dir.File("config");
  testing::WriteFile(credentials,
                     "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = s3cr3t\n");
  testing::WriteFile(aws_config, "[profile work]\nregion = eu-west-1\n");
  auto base = std::map<std::string, std::string>{{"HOME", "/h"},
                                                 {"ENGRAM_EMBED_PROVIDER", "bedrock"},
                                                 {"ENGRAM_LLM_PROVIDER", "ollama"},
                                                 {"OLLAMA_HOST", "127.0.0.1:11999"},
                                                 {"AWS_PROFILE", "work"},
                                                 {"AWS_SHARED_CREDENTIALS_FILE", credentials},
                                                 {"AWS_CONFIG_FILE", aws_config}};
  auto c = ResolveConfig(FakeEnv(base), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->llm.remote.base_url, "http://127.0.0.1:11999");
  EXPECT_EQ(c->embedder.remote.aws.access_key_id, "AKIDWORK");
  EXPECT_EQ(c->embedder.remote.aws_region, "eu-west-1");  // the profile's region
  EXPECT_EQ(Entry(*c, "aws.region").source, ConfigSource::kFile);

  // AWS_REGION beats the profile; BEDROCK_REGION beats AWS_REGION.
  base["AWS_REGION"] = "us-west-2";
  c = ResolveConfig(FakeEnv(base), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->embedder.remote.aws_region, "us-west-2");
  base["BEDROCK_REGION"] = "ap-south-1";
  c = ResolveConfig(FakeEnv(base), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->embedder.remote.aws_region, "ap-south-1");
  EXPECT_EQ(Entry(*c, "aws.region").origin, "BEDROCK_REGION");

  // The environment's keys come before the files.
  base["AWS_ACCESS_KEY_ID"] = "AKIDENV";
  base["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  base["AWS_SESSION_TOKEN"] = "envtoken";
  c = ResolveConfig(FakeEnv(base), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->embedder.remote.aws.access_key_id, "AKIDENV");
  EXPECT_EQ(c->embedder.remote.aws.session_token, "envtoken");

  // No credentials anywhere: a warning that names where it looked.
  auto none = ResolveConfig(
      FakeEnv({{"HOME", dir.path().string()}, {"ENGRAM_EMBED_PROVIDER", "bedrock"}}), {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->embedder.remote.aws.access_key_id.empty());
  EXPECT_TRUE(AnyContains(none->warnings, "bedrock"));
  EXPECT_EQ(none->embedder.remote.aws_region, "us-east-1");
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

TEST(ConfigTest, ServerTokenIsUsedButNeverShown) {
  const std::string secret = "tok-9f8e7d6c5b4a";
  auto c = ResolveConfig(FakeEnv({{"HOME", "/h"},
                                  {"ENGRAM_SERVER_TOKEN", secret},
                                  {"ENGRAM_SERVER_HOST", "0.0.0.0"},
                                  {"ENGRAM_SERVER_PORT", "99999"}}),
                         {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->server.token, secret);
  EXPECT_EQ(c->server.host, "0.0.0.0");
  EXPECT_EQ(c->server.port, 65535) << "clamped";
  for (const auto& e : c->entries) {
    EXPECT_EQ(e.value.find(secret), std::string::npos) << e.key;
    if (e.key == "server.token") {
      EXPECT_EQ(e.value, "(set)");
    }
  }
  for (const auto& w : c->warnings) EXPECT_EQ(w.find(secret), std::string::npos) << w;
  auto unset = ResolveConfig(FakeEnv({{"HOME", "/h"}}), {});
  ASSERT_TRUE(unset.ok());
  EXPECT_TRUE(unset->server.token.empty());
  EXPECT_EQ(unset->server.host, "127.0.0.1");
}

TEST(ConfigTest, CredentialsInAUrlAreUsedButNeverShown) {
  auto c = ResolveConfig(
      FakeEnv({{"HOME", "/h"},
               {"ENGRAM_EMBED_BASE_URL", "https://alice:pw-5e6f7a@embed.example/v1?key=k-1a2b"},
               {"ENGRAM_LLM_BASE_URL", "http://127.0.0.1:11434"},
               {"ENGRAM_STORE_URL", "postgresql://engram:pw-5e6f7a@db.internal/memory"}}),
      {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->embedder.remote.base_url, "https://alice:pw-5e6f7a@embed.example/v1?key=k-1a2b");
  EXPECT_EQ(c->engine.store_url, "postgresql://engram:pw-5e6f7a@db.internal/memory");
  std::map<std::string, std::string> shown;
  for (const auto& e : c->entries) {
    EXPECT_EQ(e.value.find("pw-5e6f7a"), std::string::npos) << e.key;
    EXPECT_EQ(e.value.find("k-1a2b"), std::string::npos) << e.key;
    shown[e.key] = e.value;
  }
  EXPECT_EQ(shown["embed.base_url"], "https://embed.example/v1 (credentials hidden)");
  EXPECT_EQ(shown["llm.base_url"], "http://127.0.0.1:11434") << "nothing to hide";
  EXPECT_EQ(shown["store.url"], "postgresql://db.internal/memory (credentials hidden)");
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// docs/CONFIG.md's table of keys: key -> its default column, backquotes
// dropped.
std::map<std::string, std::string> DocumentedDefaults() {
  const std::string doc = testing::ReadFile(std::string(ENGRAM_SOURCE_DIR) + "/docs/CONFIG.md");
  std::map<std::string, std::string> rows;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const size_t key_end = line.find('`', 3);
    const size_t cell = line.find('|', key_end);
    const size_t cell_end = line.find('|', cell + 1);
    std::string value = line.substr(cell + 1, cell_end - cell - 1);
    std::erase(value, '`');
    rows[line.substr(3, key_end - 3)] = value;
  }
  return rows;
}

// One table of settings (src/config/config.cc) with the defaults of the
// structs (engram/options.h) and DefaultsForProvider: the documentation
// names every key and no other, with the default they give, and every
// help line ends with it.
TEST(ConfigDocTest, TheDocumentedDefaultsAreTheTablesAndEveryKeyIsDocumented) {
  auto c = ResolveConfig(FakeEnv({{"HOME", "/home/ana"}}), {}, /*read_file=*/false);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const std::map<std::string, std::string> documented = DocumentedDefaults();
  ASSERT_GT(documented.size(), 50u);
  std::set<std::string> keys;
  for (const ConfigEntry& e : c->entries) {
    keys.insert(e.key);
    const auto row = documented.find(e.key);
    ASSERT_NE(row, documented.end()) << e.key << " is not in docs/CONFIG.md";
    if (!e.value.empty() && e.key != "home" && e.key != "db") {
      EXPECT_NE(row->second.find(e.value), std::string::npos)
          << e.key << ": the table's default is " << e.value << ", the documentation says "
          << row->second;
    }
    EXPECT_NE(e.help.find("default"), std::string::npos) << e.key << ": " << e.help;
  }
  for (const auto& [key, value] : documented) {
    EXPECT_TRUE(keys.count(key)) << "docs/CONFIG.md documents '" << key << "', which is no key";
  }
  // The provider's defaults, documented beside the key they set.
  const ProviderDefaults remote = DefaultsForProvider("openai");
  for (const auto& [key, value] : {std::pair{"fusion.w_semantic", remote.weights.semantic},
                                   std::pair{"fusion.w_lexical", remote.weights.lexical},
                                   std::pair{"vector.min_cosine", remote.min_cosine}}) {
    std::ostringstream text;
    text << value;
    EXPECT_NE(documented.at(key).find("others " + text.str()), std::string::npos)
        << key << ": " << documented.at(key);
  }
}

}  // namespace
}  // namespace engram
