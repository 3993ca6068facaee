#include <gtest/gtest.h>

#include "engram/eval.h"
#include "src/eval/trec_run.h"
#include "src/store/testing/store_backends.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using testing::TempDir;
using testing::WriteFile;

// Four rows, two of them the same text; two scopes; three queries of which
// one has no relevant document (left out of the averages).
void WriteDataset(const TempDir& dir) {
  std::filesystem::create_directories(dir.path() / "qrels");
  WriteFile(
      dir.File("corpus.jsonl"),
      R"({"_id": "d1", "title": "", "text": "Postgres listens on port 5433", "metadata": {"scope": "s1", "created_at": "2024-01-01T00:00:00Z"}})"
      "\n"
      R"({"_id": "d2", "title": "", "text": "The editor is Neovim", "metadata": {"scope": "s1", "created_at": "2024-01-02T00:00:00Z"}})"
      "\n"
      R"({"_id": "d3", "title": "", "text": "the editor is neovim", "metadata": {"scope": "s1", "created_at": "2024-01-03T00:00:00Z"}})"
      "\n"
      R"({"_id": "d4", "title": "", "text": "Postgres backups run nightly", "metadata": {"scope": "s2"}})"
      "\n");
  WriteFile(dir.File("queries.jsonl"),
            R"({"_id": "q1", "text": "which port does postgres use", "metadata": {"scope": "s1"}})"
            "\n"
            R"({"_id": "q2", "text": "editor", "metadata": {"scope": "s1"}})"
            "\n"
            R"({"_id": "q3", "text": "postgres backups", "metadata": {"scope": "s2"}})"
            "\n");
  WriteFile(dir.File("qrels/test.tsv"),
            "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\nq3\td4\t0\n");
}

TEST(EvalRunnerTest, ScoresEachScopeAndMapsMergedRowsToAllIds) {
  TempDir dir;
  WriteDataset(dir);
  EvalOptions options;
  options.modes = {FusionMode::kLexical, FusionMode::kBlended};
  auto report = RunEvaluation(dir.path().string(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->documents, 4u);
  EXPECT_EQ(report->facts, 3u);    // d2 and d3 are one fact
  EXPECT_EQ(report->queries, 2u);  // q3 has no relevant document
  ASSERT_EQ(report->modes.size(), 2u);
  const EvalModeResult& lexical = report->modes[0];
  // q1 finds only d1 (scope s1 has no other postgres fact); q2 finds the
  // merged fact, which stands for d2 and d3 in corpus order.
  ASSERT_EQ(lexical.run.at("q1").size(), 1u);
  EXPECT_EQ(lexical.run.at("q1")[0].doc_id, "d1");
  ASSERT_EQ(lexical.run.at("q2").size(), 2u);
  EXPECT_EQ(lexical.run.at("q2")[0].doc_id, "d2");
  EXPECT_EQ(lexical.run.at("q2")[1].doc_id, "d3");
  EXPECT_DOUBLE_EQ(lexical.per_query.at("q1").at("P@1"), 1.0);
  EXPECT_DOUBLE_EQ(lexical.per_query.at("q2").at("MRR"), 0.5);
  // q3 searched only s2: its ranking holds only d4.
  ASSERT_EQ(lexical.run.at("q3").size(), 1u);
  EXPECT_EQ(lexical.run.at("q3")[0].doc_id, "d4");
  EXPECT_DOUBLE_EQ(lexical.metrics.at("recall@10"), 1.0);
}

TEST(EvalRunnerTest, HonoursCreatedAt) {
  TempDir dir;
  WriteDataset(dir);
  EvalOptions options;
  options.modes = {FusionMode::kTemporal};
  auto report = RunEvaluation(dir.path().string(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  // Temporal ranks the whole scope by recency: the merged fact (created
  // 2024-01-02) before d1 (2024-01-01).
  const auto& q1 = report->modes[0].run.at("q1");
  ASSERT_EQ(q1.size(), 3u);
  EXPECT_EQ(q1[0].doc_id, "d2");
  EXPECT_EQ(q1[2].doc_id, "d1");
}

TEST(EvalRunnerTest, WritesARunFileThatReadsBack) {
  TempDir dir;
  WriteDataset(dir);
  auto report = RunEvaluation(dir.path().string(), {});
  ASSERT_TRUE(report.ok());
  const std::string path = dir.File("run.txt");
  ASSERT_TRUE(WriteEvalRun(report->modes[0], "engram", path).ok());
  auto run = LoadTrecRun(path);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->at("q1").size(), report->modes[0].run.at("q1").size());
}

TEST(EvalRunnerTest, ForeignQueriesAreAskedInEveryScopeAndEmptySearchesCounted) {
  TempDir dir;
  WriteDataset(dir);
  TempDir other;
  const std::filesystem::path foreign = other.path() / "claims";
  std::filesystem::create_directories(foreign);
  // One query shares only "editor" with the corpus; the other is about its
  // postgres facts (in both scopes).
  WriteFile(
      (foreign / "queries.jsonl").string(),
      R"({"_id": "c1", "text": "zero-dimensional biomaterials show inductive editor properties"})"
      "\n"
      R"({"_id": "c2", "text": "postgres port"})"
      "\n");
  EvalOptions options;
  options.modes = {FusionMode::kLexical, FusionMode::kBlended};
  options.foreign_queries = foreign.string();
  auto report = RunEvaluation(dir.path().string(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->modes.size(), 2u);
  const std::optional<EvalForeignFigures>& lexical = report->modes[0].foreign;
  const std::optional<EvalForeignFigures>& blended = report->modes[1].foreign;
  ASSERT_TRUE(lexical && blended);
  EXPECT_EQ(lexical->dataset, "claims");
  EXPECT_EQ(lexical->searches, 4u);  // 2 queries x 2 scopes
  // BM25 returns the editor fact for c1 in s1; c1 finds nothing in s2.
  EXPECT_EQ(lexical->empty, 1u);
  EXPECT_DOUBLE_EQ(lexical->mean_hits, 0.75);
  // Blended asks for evidence: one word of six is not, so c1 gets nothing.
  EXPECT_EQ(blended->searches, 4u);
  EXPECT_EQ(blended->empty, 2u);
  EXPECT_DOUBLE_EQ(blended->mean_hits, 0.5);
  // Without the option, no figures.
  options.foreign_queries.clear();
  auto plain = RunEvaluation(dir.path().string(), options);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->modes[0].foreign.has_value());
}

// Into a PostgreSQL store, an evaluation ranks as on SQLite, writes only
// into a database that holds no fact, and leaves it holding none.
TEST(EvalRunnerTest, APostgresStoreRanksAsSqliteAndIsLeftAsItWas) {
  TempDir dir;
  WriteDataset(dir);
  EvalOptions options;
  options.modes = {FusionMode::kLexical, FusionMode::kBlended};
  auto on_sqlite = RunEvaluation(dir.path().string(), options);
  ASSERT_TRUE(on_sqlite.ok()) << on_sqlite.status().ToString();
  auto place = testing::StorePlace::Create(testing::Backend::kPostgres);
  ASSERT_TRUE(place.ok()) << place.status().ToString();
  (*place)->Apply(&options.engine);
  auto on_postgres = RunEvaluation(dir.path().string(), options);
  ASSERT_TRUE(on_postgres.ok()) << on_postgres.status().ToString();
  ASSERT_EQ(on_postgres->modes.size(), on_sqlite->modes.size());
  for (size_t m = 0; m < on_sqlite->modes.size(); ++m) {
    EXPECT_EQ(on_postgres->modes[m].per_query, on_sqlite->modes[m].per_query) << m;
  }
  auto store = (*place)->OpenStore();
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->facts().CountFacts()->facts, 0) << "the evaluation's scopes are gone";

  ASSERT_TRUE((*store)
                  ->Transact([&] {
                    return (*store)->facts().Insert(testing::FactRowForTest("a memory")).status();
                  })
                  .ok());
  auto refused = RunEvaluation(dir.path().string(), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("holds 1 facts"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ((*store)->facts().CountFacts()->facts, 1);
}

TEST(EvalRunnerTest, MissingDatasetIsAClearError) {
  auto report = RunEvaluation("/nonexistent/dataset", {});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("/nonexistent/dataset"), std::string::npos);
}

}  // namespace
}  // namespace engram
