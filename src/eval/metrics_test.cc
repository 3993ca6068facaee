#include "src/eval/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/eval/evaluation.h"
#include "src/eval/qrels.h"
#include "src/eval/text_file.h"
#include "src/eval/trec_run.h"

namespace engram {
namespace {

constexpr double kEps = 1e-12;

JudgedRanking Judge(const std::vector<ScoredDoc>& docs, const Judgments& judgments,
                    int relevance_level = 1) {
  Result<JudgedRanking> ranking = JudgeRanking(docs, judgments, relevance_level);
  EXPECT_TRUE(ranking.ok()) << ranking.status().ToString();
  return ranking.ok() ? *ranking : JudgedRanking{};
}

std::vector<std::string> Ids(const std::vector<ScoredDoc>& docs) {
  std::vector<std::string> ids;
  ids.reserve(docs.size());
  for (const ScoredDoc& doc : docs) ids.push_back(doc.doc_id);
  return ids;
}

// --- Ranking order -----------------------------------------------------

TEST(SortTrecEvalOrderTest, SortsByScoreThenDocIdDescending) {
  std::vector<ScoredDoc> docs = {{"a", 1.0}, {"c", 1.0}, {"b", 1.0}, {"z", 0.5}, {"d", 2.0}};
  SortTrecEvalOrder(&docs);
  EXPECT_EQ(Ids(docs), (std::vector<std::string>{"d", "c", "b", "a", "z"}));
}

TEST(SortTrecEvalOrderTest, TieBreakIsByteWiseLikeStrcmp) {
  // strcmp: "B" (0x42) < "a" (0x61) < "ab"; descending puts "ab" first.
  std::vector<ScoredDoc> docs = {{"B", 1.0}, {"ab", 1.0}, {"a", 1.0}};
  SortTrecEvalOrder(&docs);
  EXPECT_EQ(Ids(docs), (std::vector<std::string>{"ab", "a", "B"}));
}

TEST(JudgeRankingTest, IgnoresInputOrderAndRanksTiesByDocIdDescending) {
  const Judgments judgments = {{"a", 1}, {"b", 0}};
  // Tied scores: "b" ranks before "a", so the relevant doc is at rank 2.
  const JudgedRanking forward = Judge({{"a", 3.0}, {"b", 3.0}}, judgments);
  const JudgedRanking backward = Judge({{"b", 3.0}, {"a", 3.0}}, judgments);
  EXPECT_EQ(forward.grades, (std::vector<int>{0, 1}));
  EXPECT_EQ(backward.grades, forward.grades);
  EXPECT_DOUBLE_EQ(ReciprocalRank(forward), 0.5);
  EXPECT_DOUBLE_EQ(PrecisionAt(forward, 1), 0.0);
}

TEST(JudgeRankingTest, CountsRelevantUnjudgedAndIdealGrades) {
  const Judgments judgments = {{"a", 2}, {"b", 0}, {"c", -1}, {"d", 1}, {"e", 3}};
  const JudgedRanking ranking = Judge({{"a", 5.0}, {"x", 4.0}, {"c", 3.0}, {"b", 2.0}}, judgments);
  EXPECT_EQ(ranking.grades, (std::vector<int>{2, 0, -1, 0}));
  EXPECT_EQ(ranking.ideal_grades, (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(ranking.num_relevant, 3);
  EXPECT_EQ(ranking.num_unjudged, 1);  // "x"; "c" is judged (negative)
}

TEST(JudgeRankingTest, RejectsDuplicateDocNaNScoreAndBadLevel) {
  const Judgments judgments = {{"a", 1}};
  Result<JudgedRanking> duplicate =
      JudgeRanking(std::vector<ScoredDoc>{{"a", 1.0}, {"a", 0.5}}, judgments);
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(duplicate.status().message().find("\"a\" appears twice"), std::string::npos);

  Result<JudgedRanking> nan = JudgeRanking(
      std::vector<ScoredDoc>{{"a", std::numeric_limits<double>::quiet_NaN()}}, judgments);
  EXPECT_FALSE(nan.ok());

  EXPECT_FALSE(JudgeRanking({}, judgments, 0).ok());
}

// --- Metrics, hand-computed --------------------------------------------

TEST(PrecisionAtTest, DividesByKEvenWhenFewerRetrieved) {
  const JudgedRanking ranking = Judge({{"a", 2.0}, {"b", 1.0}}, {{"a", 1}, {"c", 1}});
  EXPECT_DOUBLE_EQ(PrecisionAt(ranking, 1), 1.0);
  EXPECT_DOUBLE_EQ(PrecisionAt(ranking, 2), 0.5);
  EXPECT_DOUBLE_EQ(PrecisionAt(ranking, 5), 0.2);
}

TEST(RecallAtTest, DividesByAllJudgedRelevant) {
  // Three relevant docs, one never retrieved; grade 0 is not relevant.
  const JudgedRanking ranking =
      Judge({{"a", 3.0}, {"b", 2.0}, {"c", 1.0}}, {{"a", 1}, {"b", 0}, {"c", 2}, {"d", 1}});
  EXPECT_DOUBLE_EQ(RecallAt(ranking, 1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(RecallAt(ranking, 2), 1.0 / 3);
  EXPECT_DOUBLE_EQ(RecallAt(ranking, 3), 2.0 / 3);
  EXPECT_DOUBLE_EQ(RecallAt(ranking, 100), 2.0 / 3);
}

TEST(RecallAtTest, IsZeroWithoutRelevantDocs) {
  const JudgedRanking ranking = Judge({{"a", 1.0}}, {{"a", 0}});
  EXPECT_DOUBLE_EQ(RecallAt(ranking, 10), 0.0);
  EXPECT_DOUBLE_EQ(AveragePrecision(ranking), 0.0);
  EXPECT_DOUBLE_EQ(NdcgAt(ranking, 10), 0.0);
}

TEST(ReciprocalRankTest, UncutAndCut) {
  const JudgedRanking ranking = Judge({{"a", 3.0}, {"b", 2.0}, {"c", 1.0}}, {{"c", 1}, {"a", 0}});
  EXPECT_DOUBLE_EQ(ReciprocalRank(ranking), 1.0 / 3);
  EXPECT_DOUBLE_EQ(ReciprocalRankAt(ranking, 2), 0.0);
  EXPECT_DOUBLE_EQ(ReciprocalRankAt(ranking, 3), 1.0 / 3);
  EXPECT_DOUBLE_EQ(ReciprocalRankAt(ranking, 10), 1.0 / 3);
}

TEST(ReciprocalRankTest, ZeroWhenNothingRelevantRetrieved) {
  const JudgedRanking ranking = Judge({{"a", 1.0}}, {{"b", 1}});
  EXPECT_DOUBLE_EQ(ReciprocalRank(ranking), 0.0);
  EXPECT_DOUBLE_EQ(ReciprocalRankAt(ranking, 1), 0.0);
}

TEST(AveragePrecisionTest, SumsPrecisionAtRelevantRanksOverAllRelevant) {
  // Relevant at ranks 1 and 3; a third relevant doc is never retrieved.
  const JudgedRanking ranking =
      Judge({{"a", 3.0}, {"b", 2.0}, {"c", 1.0}}, {{"a", 1}, {"c", 1}, {"d", 1}});
  EXPECT_NEAR(AveragePrecision(ranking), (1.0 + 2.0 / 3) / 3, kEps);
}

TEST(NdcgAtTest, LinearGainsLog2DiscountIdealOverAllJudged) {
  // Ranked x(unjudged), y(2), z(1); w(3) is judged but not retrieved.
  const JudgedRanking ranking =
      Judge({{"x", 3.0}, {"y", 2.0}, {"z", 1.0}}, {{"y", 2}, {"z", 1}, {"w", 3}, {"v", 0}});
  const double dcg3 = 2 / std::log2(3.0) + 1 / std::log2(4.0);
  const double idcg3 = 3 / std::log2(2.0) + 2 / std::log2(3.0) + 1 / std::log2(4.0);
  EXPECT_NEAR(NdcgAt(ranking, 3), dcg3 / idcg3, kEps);
  EXPECT_NEAR(NdcgAt(ranking, 1), 0.0, kEps);
  const double dcg2 = 2 / std::log2(3.0);
  const double idcg2 = 3 + 2 / std::log2(3.0);
  EXPECT_NEAR(NdcgAt(ranking, 2), dcg2 / idcg2, kEps);
  EXPECT_NEAR(NdcgAt(ranking, 10), dcg3 / idcg3, kEps);
}

TEST(NdcgAtTest, PerfectRankingScoresOne) {
  const JudgedRanking ranking = Judge({{"a", 3.0}, {"b", 2.0}, {"c", 1.0}}, {{"a", 3}, {"b", 1}});
  EXPECT_NEAR(NdcgAt(ranking, 1), 1.0, kEps);
  EXPECT_NEAR(NdcgAt(ranking, 5), 1.0, kEps);
}

TEST(NdcgAtTest, NegativeGradesGiveNoGain) {
  const JudgedRanking ranking = Judge({{"a", 2.0}, {"b", 1.0}}, {{"a", -1}, {"b", 1}});
  EXPECT_NEAR(NdcgAt(ranking, 2), 1 / std::log2(3.0), kEps);
}

TEST(RelevanceLevelTest, HigherLevelNarrowsRelevanceButNotGain) {
  const Judgments judgments = {{"a", 1}, {"b", 2}};
  const JudgedRanking ranking = Judge({{"a", 2.0}, {"b", 1.0}}, judgments, /*relevance_level=*/2);
  EXPECT_EQ(ranking.num_relevant, 1);
  EXPECT_DOUBLE_EQ(ReciprocalRank(ranking), 0.5);
  EXPECT_DOUBLE_EQ(PrecisionAt(ranking, 1), 0.0);
  EXPECT_DOUBLE_EQ(AveragePrecision(ranking), 0.5);
  const double dcg = 1 + 2 / std::log2(3.0);
  const double idcg = 2 + 1 / std::log2(3.0);
  EXPECT_NEAR(NdcgAt(ranking, 2), dcg / idcg, kEps);
}

TEST(EvaluateQueryTest, ComputesExactlyTheNamedMetrics) {
  MetricOptions options;
  options.cutoffs = {1, 3};
  EXPECT_EQ(MetricNames(options),
            (std::vector<std::string>{"P@1", "P@3", "recall@1", "recall@3", "MRR@1", "MRR@3",
                                      "nDCG@1", "nDCG@3", "MRR", "map"}));
  Result<MetricValues> values =
      EvaluateQuery(std::vector<ScoredDoc>{{"a", 2.0}, {"b", 1.0}}, {{"b", 1}}, options);
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  std::vector<std::string> keys;
  for (const auto& [name, value] : *values) keys.push_back(name);
  std::vector<std::string> names = MetricNames(options);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(keys, names);
  EXPECT_DOUBLE_EQ(values->at("P@1"), 0.0);
  EXPECT_DOUBLE_EQ(values->at("P@3"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(values->at("MRR@1"), 0.0);
  EXPECT_DOUBLE_EQ(values->at("MRR@3"), 0.5);
  EXPECT_DOUBLE_EQ(values->at("MRR"), 0.5);
  EXPECT_DOUBLE_EQ(values->at("map"), 0.5);
  EXPECT_DOUBLE_EQ(values->at("recall@3"), 1.0);
  EXPECT_NEAR(values->at("nDCG@3"), 1 / std::log2(3.0), kEps);
}

TEST(EvaluateQueryTest, DefaultCutoffs) {
  EXPECT_EQ(MetricOptions().cutoffs, (std::vector<int>{1, 5, 10, 100}));
  Result<MetricValues> values = EvaluateQuery({}, {{"a", 1}});
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(values->size(), 18u);
  for (const auto& [name, value] : *values) EXPECT_EQ(value, 0.0) << name;
}

TEST(EvaluateQueryTest, RejectsNonPositiveCutoff) {
  MetricOptions options;
  options.cutoffs = {5, 0};
  Result<MetricValues> values = EvaluateQuery({}, {}, options);
  ASSERT_FALSE(values.ok());
  EXPECT_EQ(values.status().code(), StatusCode::kInvalidArgument);
}

// --- trec_eval 10.0 reference outputs ----------------------------------

// Path of a file in tests/data/trec_eval.
std::string TrecEvalFile(const std::string& name) {
  return std::string(ENGRAM_TEST_DATA_DIR) + "/trec_eval/" + name;
}

struct ExpectedLine {
  std::string measure;  // trec_eval's name, e.g. "ndcg_cut_10"
  std::string qid;      // or "all"
  std::string value;    // as printed, 4 decimals
  size_t line = 0;
};

std::vector<ExpectedLine> ReadExpected(const std::string& path) {
  std::vector<ExpectedLine> expected;
  Result<std::string> text = ReadTextFile(path, "test");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  if (!text.ok()) return expected;
  const std::vector<std::string_view> lines = SplitLines(*text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string_view> fields = SplitWhitespace(lines[i]);
    if (fields.empty()) continue;
    EXPECT_EQ(fields.size(), 3u) << path << ":" << i + 1;
    if (fields.size() != 3) continue;
    expected.push_back(
        {std::string(fields[0]), std::string(fields[1]), std::string(fields[2]), i + 1});
  }
  return expected;
}

// Maps a trec_eval measure name to ours: P_5 -> P@5, recall_5 -> recall@5,
// ndcg_cut_5 -> nDCG@5, recip_rank -> MRR, map -> map; "" if unknown.
std::string OurMetricName(const std::string& measure) {
  if (measure == "map") return "map";
  if (measure == "recip_rank") return "MRR";
  for (const auto& [prefix, ours] : std::vector<std::pair<std::string, std::string>>{
           {"P_", "P@"}, {"recall_", "recall@"}, {"ndcg_cut_", "nDCG@"}}) {
    if (measure.rfind(prefix, 0) == 0) return ours + measure.substr(prefix.size());
  }
  return "";
}

std::string Format4(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

void ExpectReproducesTrecEval(const std::string& qrels_name) {
  SCOPED_TRACE(qrels_name);
  Result<Qrels> qrels = LoadTrecQrels(TrecEvalFile(qrels_name));
  ASSERT_TRUE(qrels.ok()) << qrels.status().ToString();
  Result<EvalRun> run = LoadTrecRun(TrecEvalFile("results.test"));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  MetricOptions options;
  options.cutoffs = {5, 10, 100};
  Result<Evaluation> evaluation = Evaluate(*run, *qrels, QuerySet::kRunAndJudged, options);
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().ToString();

  const std::string expected_path = TrecEvalFile("expected.results.test." + qrels_name + ".txt");
  const std::vector<ExpectedLine> expected = ReadExpected(expected_path);
  ASSERT_EQ(expected.size(), 36u);  // 9 measures x (3 queries + all)
  std::set<std::string> expected_qids;
  size_t compared = 0;
  for (const ExpectedLine& want : expected) {
    SCOPED_TRACE(expected_path + ":" + std::to_string(want.line));
    if (want.measure == "num_q") {
      EXPECT_EQ(std::to_string(evaluation->num_queries), want.value);
      ++compared;
      continue;
    }
    const std::string name = OurMetricName(want.measure);
    ASSERT_FALSE(name.empty()) << "unhandled measure " << want.measure;
    double got = 0.0;
    if (want.qid == "all") {
      got = evaluation->mean.at(name);
    } else {
      expected_qids.insert(want.qid);
      auto it = evaluation->per_query.find(want.qid);
      ASSERT_NE(it, evaluation->per_query.end()) << "query " << want.qid;
      got = it->second.at(name);
    }
    EXPECT_EQ(Format4(got), want.value) << want.measure << " " << want.qid << " got " << got;
    ++compared;
  }
  EXPECT_EQ(compared, expected.size());
  // The same queries were averaged as trec_eval's `all`.
  std::set<std::string> ours;
  for (const auto& [qid, values] : evaluation->per_query) ours.insert(qid);
  EXPECT_EQ(ours, expected_qids);
  EXPECT_EQ(evaluation->num_queries, 3);
}

TEST(TrecEvalReferenceTest, ReproducesQrelsTest) { ExpectReproducesTrecEval("qrels.test"); }

TEST(TrecEvalReferenceTest, ReproducesQrelsRelLevel) {
  ExpectReproducesTrecEval("qrels.rel_level");
}

TEST(TrecEvalReferenceTest, TiedScoresInReferenceRunRankDocIdDescending) {
  // In results.test, query 301 ranks FBIS3-58025 (grade 0) and FBIS3-58055
  // (grade 1) with the same score. trec_eval's comp_sim_docno puts the
  // greater docno first, so the relevant FBIS3-58055 takes the better rank;
  // ascending order would give AP 0.032417009710783. Both round to the
  // 0.0324 that trec_eval prints, so pin the full value here.
  Result<Qrels> qrels = LoadTrecQrels(TrecEvalFile("qrels.test"));
  Result<EvalRun> run = LoadTrecRun(TrecEvalFile("results.test"));
  ASSERT_TRUE(qrels.ok() && run.ok());
  const JudgedRanking ranking = Judge(run->at("301"), qrels->at("301"));
  EXPECT_NEAR(AveragePrecision(ranking), 0.03242534480374725, 1e-15);
}

}  // namespace
}  // namespace engram
