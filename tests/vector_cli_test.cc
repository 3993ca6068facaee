// The semantic side of the CLI with the real embedded model: config shows
// the vector provider, provider switches (local -> hash -> local) never
// serve a vector from the wrong space and re-embed nothing still valid,
// and a missing model degrades to keyword-only with a warning.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/embed/hash_embedder.h"
#include "src/embed/local_embedder.h"
#include "tests/cli_runner.h"

namespace engram {
namespace {

using testing::CliRunner;

const char* const kFacts[] = {
    "The staging database is Postgres 15 on port 5433",
    "Deploys to production happen on Tuesday mornings",
    "I prefer fish as my interactive shell",
    "The billing service is written in Go",
    "Vacation days must be requested two weeks ahead",
};

// Cosine of every hit of `search --json`, against `embedder` recomputed
// here: equal only when the engine used that space's vectors.
void ExpectCosinesFrom(const nlohmann::json& response, const std::string& query,
                       const Embedder& embedder) {
  ASSERT_FALSE(response["hits"].empty());
  auto q = embedder.Embed({query}, EmbedPurpose::kQuery);
  ASSERT_TRUE(q.ok());
  for (const auto& hit : response["hits"]) {
    const std::string content = hit["fact"]["content"];
    auto d = embedder.Embed({content}, EmbedPurpose::kDocument);
    ASSERT_TRUE(d.ok());
    double dot = 0;
    for (size_t i = 0; i < embedder.Space().dimension; ++i) dot += (*q)[0][i] * (*d)[0][i];
    ASSERT_TRUE(hit["signals"]["semantic"]["present"].get<bool>()) << content;
    EXPECT_NEAR(hit["signals"]["semantic"]["raw"].get<double>(), dot, 1e-4) << content;
  }
}

TEST(VectorCliTest, SwitchingProviderBackAndForthKeepsSpacesApart) {
  auto local = LocalEmbedder::Load(ENGRAM_TEST_MODEL_FILE);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  const HashEmbedder hash(64);
  const std::string query = "which shell do I like";

  CliRunner cli;
  for (const char* f : kFacts) ASSERT_EQ(cli.Run({"add", f}).exit_code, 0);
  auto r = cli.Run({"config"});
  EXPECT_NE(r.out.find("vector provider: local"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector model: use-lite-en"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector dimension: 512"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector entries: 5 (0 fact(s) without one)"), std::string::npos) << r.out;
  r = cli.Run({"search", query, "--json", "--no-record", "-k", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["hits"][0]["fact"]["content"], kFacts[2]);  // no shared word but "I"
  ExpectCosinesFrom(j, query, **local);

  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "hash:dim=64");
  r = cli.Run({"config"});
  EXPECT_NE(r.out.find("vector provider: hash"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector entries: 0 (5 fact(s) without one)"), std::string::npos) << r.out;
  r = cli.Run({"backfill"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "embedded 5 fact(s) into hash:fnv1a:64; 0 still without a vector\n");
  r = cli.Run({"search", query, "--json", "--no-record", "-k", "5"});
  ExpectCosinesFrom(nlohmann::json::parse(r.out), query, hash);
  ASSERT_EQ(cli.Run({"add", "Lunch is at noon"}).exit_code, 0);  // embedded in hash only

  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "local");
  r = cli.Run({"config"});
  EXPECT_NE(r.out.find("vector entries: 5 (1 fact(s) without one)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("space local:use-lite-en:512: 5 vector(s) (active)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("space hash:fnv1a:64: 6 vector(s)"), std::string::npos) << r.out;
  r = cli.Run({"backfill"});
  EXPECT_EQ(r.out, "embedded 1 fact(s) into local:use-lite-en:512; 0 still without a vector\n");
  r = cli.Run({"search", query, "--json", "--no-record", "-k", "6"});
  ExpectCosinesFrom(nlohmann::json::parse(r.out), query, **local);

  r = cli.Run({"prune"});
  EXPECT_EQ(r.out, "removed 6 vector(s) of other spaces\n");
  r = cli.Run({"config"});
  EXPECT_EQ(r.out.find("space hash"), std::string::npos) << r.out;
}

TEST(VectorCliTest, ModesAndExplainShowTheSemanticSignal) {
  CliRunner cli;
  for (const char* f : kFacts) ASSERT_EQ(cli.Run({"add", f}).exit_code, 0);
  // No word in common, and a cosine of 0.40 to the deploys fact: by default
  // not evidence enough for a blended search (vector.match_cosine 0.42)...
  auto r = cli.Run({"search", "when do we ship releases", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("share only minor words"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("Deploys to production"), std::string::npos) << r.out;
  // ...and enough when the caller says a cosine of 0.35 is.
  cli.SetEnv("ENGRAM_VECTOR_MATCH_COSINE", "0.35");
  r = cli.Run({"search", "when do we ship releases", "--explain", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("from the vector search"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("semantic raw"), std::string::npos) << r.out;
  r = cli.Run({"search", "when do we ship releases", "--mode", "semantic", "-k", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Deploys to production"), std::string::npos) << r.out;
  r = cli.Run({"search", "when do we ship releases", "--mode", "rrf", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("-> 1/(60+"), std::string::npos) << r.out;
}

TEST(VectorCliTest, AMissingModelMeansKeywordOnlyWithAWarning) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_MODELS_DIR", cli.File("no-models"));
  auto r = cli.Run({"add", kFacts[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("semantic signal off (keyword-only)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no model at"), std::string::npos) << r.err;
  r = cli.Run({"search", "postgres port"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("5433"), std::string::npos) << r.out;
  r = cli.Run({"backfill"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no model at"), std::string::npos) << r.err;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  r = cli.Run({"search", "postgres port"});
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// ENGRAM_HOME pointed at a project keeps semantic search: the model is
// looked up in $ENGRAM_HOME/models, then the user's data directory, and
// `engram config` says which file is used and why.
TEST(VectorCliTest, TheModelIsFoundInTheUsersDataDirectoryWhenEngramHomeHasNone) {
  CliRunner cli;
  cli.UnsetEnv("ENGRAM_EMBED_MODELS_DIR");  // looked up
  const std::filesystem::path user_models =
      std::filesystem::path(cli.File(".local/share/engram/models"));
  std::filesystem::create_directories(user_models);
  std::filesystem::create_symlink(ENGRAM_TEST_MODEL_FILE, user_models / "use-lite-en.bin");

  auto r = cli.Run({"config"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("embed model file    " + (user_models / "use-lite-en.bin").string() +
                       "  (found in " + user_models.string() + " (the user's data directory))"),
            std::string::npos)
      << r.out;
  r = cli.Run({"add", kFacts[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  r = cli.Run({"search", "postgres port", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out).value("semantic", false)) << r.out;

  // Without it: one line naming every place looked in, on every command
  // that would have used it.
  std::filesystem::remove(user_models / "use-lite-en.bin");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"add", kFacts[1]}, {"search", "postgres port"}}) {
    r = cli.Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(
        r.err.find("semantic signal off (keyword-only): embed: local: no use-lite-en.bin in " +
                   cli.home() + "/models or " + user_models.string()),
        std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace engram
