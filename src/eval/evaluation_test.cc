#include "src/eval/evaluation.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

// q1: relevant doc at rank 1. q2: judged, nothing relevant. q3: judged with
// a relevant doc, absent from the run. q4: in the run, not judged.
Qrels SampleQrels() { return {{"q1", {{"a", 1}}}, {"q2", {{"b", 0}}}, {"q3", {{"c", 1}}}}; }

EvalRun SampleRun() { return {{"q1", {{"a", 1.0}}}, {"q2", {{"b", 1.0}}}, {"q4", {{"x", 1.0}}}}; }

MetricOptions MrrOnly() {
  MetricOptions options;
  options.cutoffs = {1};
  return options;
}

std::vector<std::string> QueryIds(const Evaluation& evaluation) {
  std::vector<std::string> ids;
  for (const auto& [qid, values] : evaluation.per_query) ids.push_back(qid);
  return ids;
}

TEST(EvaluateTest, RunAndJudgedAveragesQueriesInBothLikeTrecEval) {
  Result<Evaluation> evaluation =
      Evaluate(SampleRun(), SampleQrels(), QuerySet::kRunAndJudged, MrrOnly());
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().ToString();
  EXPECT_EQ(QueryIds(*evaluation), (std::vector<std::string>{"q1", "q2"}));
  EXPECT_EQ(evaluation->num_queries, 2);
  EXPECT_DOUBLE_EQ(evaluation->mean.at("MRR"), 0.5);
  EXPECT_EQ(evaluation->num_unjudged_run_queries, 1);
  EXPECT_EQ(evaluation->num_missing_from_run, 1);
  EXPECT_EQ(evaluation->num_without_relevant, 1);
}

TEST(EvaluateTest, AllJudgedCountsMissingQueriesAsEmpty) {
  Result<Evaluation> evaluation =
      Evaluate(SampleRun(), SampleQrels(), QuerySet::kAllJudged, MrrOnly());
  ASSERT_TRUE(evaluation.ok());
  EXPECT_EQ(QueryIds(*evaluation), (std::vector<std::string>{"q1", "q2", "q3"}));
  EXPECT_DOUBLE_EQ(evaluation->mean.at("MRR"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(evaluation->per_query.at("q3").at("MRR"), 0.0);
}

TEST(EvaluateTest, WithRelevantSkipsQueriesWithoutRelevantDocs) {
  Result<Evaluation> evaluation =
      Evaluate(SampleRun(), SampleQrels(), QuerySet::kWithRelevant, MrrOnly());
  ASSERT_TRUE(evaluation.ok());
  EXPECT_EQ(QueryIds(*evaluation), (std::vector<std::string>{"q1", "q3"}));
  EXPECT_DOUBLE_EQ(evaluation->mean.at("MRR"), 0.5);
}

TEST(EvaluateTest, WithRelevantUsesTheRelevanceLevel) {
  MetricOptions options = MrrOnly();
  options.relevance_level = 2;
  Result<Evaluation> evaluation =
      Evaluate({{"q1", {{"a", 1.0}}}}, {{"q1", {{"a", 1}}}, {"q2", {{"b", 2}}}},
               QuerySet::kWithRelevant, options);
  ASSERT_TRUE(evaluation.ok());
  EXPECT_EQ(QueryIds(*evaluation), (std::vector<std::string>{"q2"}));
}

TEST(EvaluateTest, EmptyResultListIsNotInTheRun) {
  EvalRun run = {{"q1", {}}};
  Qrels qrels = {{"q1", {{"a", 1}}}};
  Result<Evaluation> trec = Evaluate(run, qrels, QuerySet::kRunAndJudged, MrrOnly());
  ASSERT_TRUE(trec.ok());
  EXPECT_EQ(trec->num_queries, 0);
  EXPECT_EQ(trec->num_missing_from_run, 1);
  Result<Evaluation> design = Evaluate(run, qrels, QuerySet::kWithRelevant, MrrOnly());
  ASSERT_TRUE(design.ok());
  EXPECT_EQ(design->num_queries, 1);
}

TEST(EvaluateTest, NoQueriesGivesZeroMeans) {
  Result<Evaluation> evaluation = Evaluate({}, {}, QuerySet::kRunAndJudged, MrrOnly());
  ASSERT_TRUE(evaluation.ok());
  EXPECT_EQ(evaluation->num_queries, 0);
  EXPECT_EQ(evaluation->mean.size(), MetricNames(MrrOnly()).size());
  for (const auto& [name, value] : evaluation->mean) EXPECT_EQ(value, 0.0);
}

TEST(EvaluateTest, MeanIsTheMacroAverage) {
  EvalRun run = {{"q1", {{"a", 2.0}, {"b", 1.0}}}, {"q2", {{"c", 2.0}, {"d", 1.0}}}};
  Qrels qrels = {{"q1", {{"a", 1}}}, {"q2", {{"d", 1}, {"e", 1}}}};
  Result<Evaluation> evaluation = Evaluate(run, qrels, QuerySet::kRunAndJudged);
  ASSERT_TRUE(evaluation.ok());
  // P@1: 1 and 0; recall@5: 1 and 1/2; map: 1 and (1/2)/2.
  EXPECT_DOUBLE_EQ(evaluation->mean.at("P@1"), 0.5);
  EXPECT_DOUBLE_EQ(evaluation->mean.at("recall@5"), 0.75);
  EXPECT_DOUBLE_EQ(evaluation->mean.at("map"), (1.0 + 0.25) / 2);
}

TEST(EvaluateTest, DuplicateDocNamesTheQuery) {
  EvalRun run = {{"q1", {{"a", 2.0}, {"a", 1.0}}}};
  Result<Evaluation> evaluation = Evaluate(run, {{"q1", {{"a", 1}}}}, QuerySet::kRunAndJudged);
  ASSERT_FALSE(evaluation.ok());
  EXPECT_EQ(evaluation.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(evaluation.status().message(), "eval: evaluate: query \"q1\": doc \"a\" appears twice");
}

TEST(EvaluateTest, RejectsBadOptions) {
  MetricOptions options;
  options.relevance_level = 0;
  EXPECT_FALSE(Evaluate({}, {}, QuerySet::kAllJudged, options).ok());
}

}  // namespace
}  // namespace engram
