// The semantic side of the CLI with the real embedded model: config shows
// the vector provider, provider switches (local -> hash -> local) never
// serve a vector from the wrong space and re-embed nothing still valid,
// and a missing model degrades to keyword-only with a warning.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/embed/hash_embedder.h"
#include "src/embed/local_embedder.h"
#include "src/text/bilingual_dictionary.h"
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

// local:use-lite-en-best-window stores a long fact as one vector per
// window and scores it by the best: a query about the end of a long fact
// finds it, where the first-128-token reading sees only its beginning.
TEST(VectorCliTest, ABestWindowSpaceScoresALongFactByItsBestWindow) {
  std::string long_fact;
  for (int i = 0; i < 12; ++i) long_fact += "The chef slowly simmers the tomato soup with basil. ";
  for (int i = 0; i < 12; ++i) long_fact += "The rocket engine burns liquid oxygen at launch. ";
  const std::string query = "rocket engine propellant";
  const auto raw = [&](const testing::CliResult& r) {
    const nlohmann::json response = nlohmann::json::parse(r.out);
    for (const auto& hit : response["hits"]) {
      if (hit["fact"]["content"] == long_fact)
        return hit["signals"]["semantic"]["raw"].get<double>();
    }
    ADD_FAILURE() << "the long fact is not among the hits: " << r.out;
    return 0.0;
  };
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "local:use-lite-en-best-window");
  ASSERT_EQ(cli.Run({"add", long_fact}).exit_code, 0);
  ASSERT_EQ(cli.Run({"add", kFacts[3]}).exit_code, 0);
  auto best = cli.Run({"search", query, "--mode", "semantic", "--json", "--no-record"});
  ASSERT_EQ(best.exit_code, 0) << best.err;

  // The cosine reported is the best of the fact's windows, as the embedder
  // gives them here.
  EmbedderOptions options;
  options.models_dir = std::filesystem::path(ENGRAM_TEST_MODEL_FILE).parent_path().string();
  auto embedder = CreateEmbedder("local:use-lite-en-best-window", options);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  auto q = (*embedder)->Embed({query}, EmbedPurpose::kQuery);
  auto d = (*embedder)->Embed({long_fact}, EmbedPurpose::kDocument);
  ASSERT_TRUE(q.ok() && d.ok());
  ASSERT_GE((*d)[0].size(), 2u * 512);
  double best_window = -1.0;
  for (size_t begin = 0; begin < (*d)[0].size(); begin += 512) {
    double dot = 0.0;
    for (size_t i = 0; i < 512; ++i) dot += (*q)[0][i] * (*d)[0][begin + i];
    best_window = std::max(best_window, dot);
  }
  EXPECT_NEAR(raw(best), best_window, 1e-4);

  // The default reading sees only the soup.
  auto first_only = CreateEmbedder("local", options);
  ASSERT_TRUE(first_only.ok());
  auto fq = (*first_only)->Embed({query}, EmbedPurpose::kQuery);
  auto fd = (*first_only)->Embed({long_fact}, EmbedPurpose::kDocument);
  ASSERT_TRUE(fq.ok() && fd.ok());
  double first_window = 0.0;
  for (size_t i = 0; i < 512; ++i) first_window += (*fq)[0][i] * (*fd)[0][i];
  EXPECT_GT(best_window, first_window + 0.1);

  // Blobs of several windows are what the space stores: check finds no fault.
  auto check = cli.Run({"check"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("no problem"), std::string::npos) << check.out;
}

// A Portuguese query is embedded with its English gloss for the English-only
// local model: the cosine reported is against the normalised sum of the two
// vectors, and query.translate_vector = false searches the query's own.
TEST(VectorCliTest, APortugueseQueryIsEmbeddedWithItsEnglishGloss) {
  if (BilingualDictionary::PortugueseEnglish().size() == 0) {
    GTEST_SKIP() << "dict-freedict-por-eng is not installed";
  }
  const std::string query = "qual é a minha preferência de idioma";
  const std::string gloss = BilingualDictionary::PortugueseEnglish().Gloss(query);
  ASSERT_FALSE(gloss.empty());
  CliRunner cli;
  cli.SetEnv("ENGRAM_VECTOR_MATCH_COSINE", "0");
  ASSERT_EQ(cli.Run({"add", "I prefer answers in English"}).exit_code, 0);
  const auto semantic_raw = [&]() {
    auto r = cli.Run({"search", query, "--mode", "semantic", "--json", "--no-record"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json response = nlohmann::json::parse(r.out);
    EXPECT_EQ(response["hits"].size(), 1u) << r.out;
    return std::make_pair(response["translation"].get<std::string>(),
                          response["hits"][0]["signals"]["semantic"]["raw"].get<double>());
  };
  const auto [translation, with_gloss] = semantic_raw();
  EXPECT_EQ(translation, gloss);

  auto local = LocalEmbedder::Load(ENGRAM_TEST_MODEL_FILE);
  ASSERT_TRUE(local.ok());
  auto v = (*local)->Embed({query, gloss, "I prefer answers in English"}, EmbedPurpose::kQuery);
  ASSERT_TRUE(v.ok());
  std::vector<float> sum(512);
  double norm2 = 0.0;
  for (size_t i = 0; i < 512; ++i) {
    sum[i] = (*v)[0][i] + (*v)[1][i];
    norm2 += static_cast<double>(sum[i]) * sum[i];
  }
  double dot_sum = 0.0;
  double dot_own = 0.0;
  for (size_t i = 0; i < 512; ++i) {
    dot_sum += sum[i] * (*v)[2][i];
    dot_own += (*v)[0][i] * (*v)[2][i];
  }
  EXPECT_NEAR(with_gloss, dot_sum / std::sqrt(norm2), 1e-4);

  cli.SetEnv("ENGRAM_QUERY_TRANSLATE_VECTOR", "false");
  const auto [none, own] = semantic_raw();
  EXPECT_EQ(none, "");
  EXPECT_NEAR(own, dot_own, 1e-4);
}

// `engram embed` prints the active space's vectors: the real model's match
// the original model's outputs (tests/data/use-lite), the hash provider's
// match the embedder run here, and a windowed space gives a long document a
// vector per window.
TEST(VectorCliTest, EmbedPrintsTheActiveSpacesVectors) {
  CliRunner cli;
  const nlohmann::json golden = nlohmann::json::parse(
      testing::ReadFile(std::string(ENGRAM_TEST_DATA_DIR) + "/use-lite/golden-small.json"));
  const std::vector<std::string> sentences = golden["sentences"];
  std::vector<std::string> args = {"embed", "--json"};
  args.insert(args.end(), sentences.begin(), sentences.end());
  auto local = cli.Run(args);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  const nlohmann::json out = nlohmann::json::parse(local.out);
  EXPECT_EQ(out["space"], "local:use-lite-en:512");
  EXPECT_EQ(out["dimension"], 512);
  EXPECT_EQ(out["purpose"], "query");
  ASSERT_EQ(out["texts"].size(), sentences.size());
  for (size_t i = 0; i < sentences.size(); ++i) {
    EXPECT_EQ(out["texts"][i]["text"], sentences[i]);
    ASSERT_EQ(out["texts"][i]["vectors"].size(), 1u);
    const std::vector<float> got = out["texts"][i]["vectors"][0];
    const std::vector<float> want = golden["embeddings"][i];
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    for (size_t c = 0; c < got.size(); ++c) {
      worst = std::max(worst, static_cast<double>(std::fabs(got[c] - want[c])));
    }
    EXPECT_LE(worst, 1e-5) << sentences[i];
  }

  // Text output: the text's number, then the floats, shortest exact form.
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "hash:dim=16");
  auto hashed = cli.Run({"embed", "--document", "blue tin", "spare keys"});
  ASSERT_EQ(hashed.exit_code, 0) << hashed.err;
  const HashEmbedder hash(16);
  auto want = hash.Embed({"blue tin", "spare keys"}, EmbedPurpose::kDocument);
  ASSERT_TRUE(want.ok());
  std::istringstream lines(hashed.out);
  for (size_t i = 0; i < 2; ++i) {
    size_t number = 0;
    lines >> number;
    EXPECT_EQ(number, i + 1);
    std::vector<float> row(16);
    for (float& x : row) lines >> x;
    std::vector<float> unit = (*want)[i];
    double norm = 0;
    for (float x : unit) norm += static_cast<double>(x) * x;
    for (float& x : unit) x = static_cast<float>(x / std::sqrt(norm));
    for (size_t c = 0; c < 16; ++c) EXPECT_NEAR(row[c], unit[c], 1e-6) << i << " " << c;
  }

  // A long document in a windowed space: one vector per window.
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "local:use-lite-en-best-window");
  std::string long_text;
  for (int i = 0; i < 60; ++i) long_text += "The river carried stone and cloud past the desk. ";
  auto windows = cli.Run({"embed", "--document", "--json", long_text});
  ASSERT_EQ(windows.exit_code, 0) << windows.err;
  EXPECT_GT(nlohmann::json::parse(windows.out)["texts"][0]["vectors"].size(), 1u);

  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  auto none = cli.Run({"embed", "x"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no embedding provider is configured"), std::string::npos) << none.err;
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

// `engram search` loads the model beside the store's open: a model file
// that does not load still leaves a keyword search that answers, and says
// why the vectors are off, naming the file.
TEST(VectorCliTest, AModelThatDoesNotLoadLeavesSearchKeywordOnlyWithAWarning) {
  CliRunner cli;
  const std::string models = cli.File("bad-models");
  std::filesystem::create_directories(models);
  const std::string model = models + "/use-lite-en.bin";
  {
    std::ofstream file(model, std::ios::binary);
    file << "not a model";
  }
  cli.SetEnv("ENGRAM_EMBED_MODELS_DIR", models);
  auto r = cli.Run({"add", kFacts[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("semantic signal off (keyword-only)"), std::string::npos) << r.err;
  r = cli.Run({"search", "postgres port"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("5433"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("query not embedded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(model), std::string::npos) << r.err;
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
