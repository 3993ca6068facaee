#include "src/eval/trec_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>

#include "src/eval/evaluation.h"
#include "src/eval/metrics.h"
#include "src/eval/qrels.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using ::testing::HasSubstr;

// Path of a file in tests/data/trec_eval.
std::string TrecEvalFile(const std::string& name) {
  return std::string(ENGRAM_TEST_DATA_DIR) + "/trec_eval/" + name;
}

TEST(ParseTrecRunTest, KeepsFileOrderAndIgnoresRankColumn) {
  Result<EvalRun> run = ParseTrecRun(
      "q1 Q0 d2 1 0.5 tag\nq1 Q0 d1 7 +2.25 tag\n\nq0\tQ0\td3\t1\t-1e-3\ttag\n", "run.txt");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->size(), 2u);
  const std::vector<ScoredDoc>& q1 = run->at("q1");
  ASSERT_EQ(q1.size(), 2u);
  EXPECT_EQ(q1[0].doc_id, "d2");
  EXPECT_EQ(q1[0].score, 0.5);
  EXPECT_EQ(q1[1].doc_id, "d1");
  EXPECT_EQ(q1[1].score, 2.25);
  EXPECT_EQ(run->at("q0")[0].score, -0.001);
}

TEST(ParseTrecRunTest, ErrorsNameFileAndLine) {
  Result<EvalRun> fields = ParseTrecRun("q1 Q0 d1 1 0.5\n", "run.txt");
  ASSERT_FALSE(fields.ok());
  EXPECT_EQ(fields.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fields.status().message(),
            "eval: load trec run: run.txt:1: want 6 fields \"qid Q0 docno "
            "rank score tag\", got 5");

  Result<EvalRun> score = ParseTrecRun("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 x t\n", "r");
  ASSERT_FALSE(score.ok());
  EXPECT_THAT(score.status().message(), HasSubstr("r:2: score \"x\""));

  Result<EvalRun> nan = ParseTrecRun("q1 Q0 d1 1 nan t\n", "r");
  EXPECT_FALSE(nan.ok());

  Result<EvalRun> twice = ParseTrecRun("q1 Q0 d1 1 2 t\nq1 Q0 d1 2 1 t\n", "r");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("r:2: doc \"d1\" listed twice for query \"q1\""));
}

TEST(ParseTrecRunTest, SameDocUnderTwoQueriesIsFine) {
  Result<EvalRun> run = ParseTrecRun("q1 Q0 d1 1 2 t\nq2 Q0 d1 1 1 t\n", "r");
  EXPECT_TRUE(run.ok());
}

TEST(FormatTrecRunTest, NumbersRanksFromOneInGivenOrder) {
  EvalRun run = {{"q2", {{"b", 0.25}, {"a", 0.125}}}, {"q1", {{"c", 3.0}}}, {"q3", {}}};
  Result<std::string> text = FormatTrecRun(run, "engram");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text,
            "q1 Q0 c 1 3 engram\n"
            "q2 Q0 b 1 0.25 engram\n"
            "q2 Q0 a 2 0.125 engram\n");
}

TEST(FormatTrecRunTest, ScoresReadBackExactly) {
  const std::vector<double> scores = {0.1,    1.0 / 3, 2.129133, -3.5,
                                      1e-300, 1e300,   0.0,      123456789.125};
  EvalRun run;
  for (size_t i = 0; i < scores.size(); ++i) {
    run["q"].push_back({"d" + std::to_string(i), scores[i]});
  }
  Result<std::string> text = FormatTrecRun(run, "t");
  ASSERT_TRUE(text.ok());
  Result<EvalRun> back = ParseTrecRun(*text, "formatted");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->at("q").size(), scores.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    EXPECT_EQ(back->at("q")[i].score, scores[i]) << i;
  }
}

TEST(FormatTrecRunTest, RejectsWhitespaceIdsAndNonFiniteScores) {
  EXPECT_FALSE(FormatTrecRun({{"q", {{"d", 1.0}}}}, "my run").ok());
  EXPECT_FALSE(FormatTrecRun({{"q", {{"d", 1.0}}}}, "").ok());
  EXPECT_FALSE(FormatTrecRun({{"q 1", {{"d", 1.0}}}}, "t").ok());
  EXPECT_FALSE(FormatTrecRun({{"q", {{"d\t1", 1.0}}}}, "t").ok());
  Result<std::string> inf =
      FormatTrecRun({{"q", {{"d", std::numeric_limits<double>::infinity()}}}}, "t");
  ASSERT_FALSE(inf.ok());
  EXPECT_THAT(inf.status().message(), HasSubstr("non-finite score"));
}

class TrecRunFileTest : public ::testing::Test {
 protected:
  engram::testing::TempDir temp_;
  const std::filesystem::path dir_ = temp_.path();
};

TEST_F(TrecRunFileTest, WriteThenLoadRoundTrips) {
  EvalRun run = {{"q1", {{"d1", 2.5}, {"d2", -1.0}}}, {"q2", {{"d9", 0.75}}}};
  ASSERT_TRUE(WriteTrecRun(run, "t", dir_ / "run.txt").ok());
  Result<EvalRun> back = LoadTrecRun(dir_ / "run.txt");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(back->at("q1")[1].doc_id, "d2");
  EXPECT_EQ(back->at("q1")[1].score, -1.0);
  EXPECT_EQ(back->at("q2")[0].score, 0.75);
}

TEST_F(TrecRunFileTest, WriteToMissingDirectoryIsIOError) {
  Status status = WriteTrecRun({}, "t", dir_ / "no" / "run.txt");
  EXPECT_EQ(status.code(), StatusCode::kIOError);
}

TEST_F(TrecRunFileTest, RewrittenReferenceRunScoresTheSame) {
  // Load trec_eval's results.test, write it sorted in trec_eval order, read
  // it back: every metric is unchanged.
  Result<EvalRun> run = LoadTrecRun(TrecEvalFile("results.test"));
  Result<Qrels> qrels = LoadTrecQrels(TrecEvalFile("qrels.rel_level"));
  ASSERT_TRUE(run.ok() && qrels.ok());
  EvalRun sorted = *run;
  for (auto& [qid, docs] : sorted) SortTrecEvalOrder(&docs);
  ASSERT_TRUE(WriteTrecRun(sorted, "STANDARD", dir_ / "run.txt").ok());
  Result<EvalRun> back = LoadTrecRun(dir_ / "run.txt");
  ASSERT_TRUE(back.ok());
  Result<Evaluation> before = Evaluate(*run, *qrels, QuerySet::kRunAndJudged);
  Result<Evaluation> after = Evaluate(*back, *qrels, QuerySet::kRunAndJudged);
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_EQ(before->per_query, after->per_query);
}

}  // namespace
}  // namespace engram
