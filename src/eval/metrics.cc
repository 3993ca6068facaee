#include "src/eval/metrics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>
#include <string_view>
#include <unordered_set>

namespace engram {
namespace {

// trec_eval's comp_sim_docno: higher score first; on a tie the doc id that
// compares greater (byte-wise, as strcmp) first.
bool TrecEvalBefore(const ScoredDoc& a, const ScoredDoc& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.doc_id > b.doc_id;
}

// Relevant docs among the first `k` ranks.
int RelevantInTop(const JudgedRanking& ranking, int k) {
  const size_t n = std::min(ranking.grades.size(), static_cast<size_t>(k));
  int count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (ranking.grades[i] >= ranking.relevance_level) ++count;
  }
  return count;
}

// Rank (from 1) of the first relevant doc; 0 when none was retrieved.
size_t FirstRelevantRank(const JudgedRanking& ranking) {
  for (size_t i = 0; i < ranking.grades.size(); ++i) {
    if (ranking.grades[i] >= ranking.relevance_level) return i + 1;
  }
  return 0;
}

// Sum over the first `k` grades of grade / log2(rank + 1), positive grades
// only; rank i + 1 for index i.
double DiscountedGain(const std::vector<int>& grades, int k) {
  const size_t n = std::min(grades.size(), static_cast<size_t>(k));
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (grades[i] > 0) {
      sum += grades[i] / std::log2(static_cast<double>(i + 2));
    }
  }
  return sum;
}

}  // namespace

void SortTrecEvalOrder(std::vector<ScoredDoc>* docs) {
  std::sort(docs->begin(), docs->end(), TrecEvalBefore);
}

Result<JudgedRanking> JudgeRanking(std::span<const ScoredDoc> docs, const Judgments& judgments,
                                   int relevance_level) {
  if (relevance_level < 1) {
    return InvalidArgument("eval: judge ranking: relevance_level must be >= 1, got " +
                           std::to_string(relevance_level));
  }
  std::vector<const ScoredDoc*> order;
  order.reserve(docs.size());
  std::unordered_set<std::string_view> seen;
  for (const ScoredDoc& doc : docs) {
    if (std::isnan(doc.score)) {
      return InvalidArgument("eval: judge ranking: doc \"" + doc.doc_id + "\" has a NaN score");
    }
    if (!seen.insert(doc.doc_id).second) {
      return InvalidArgument("eval: judge ranking: doc \"" + doc.doc_id + "\" appears twice");
    }
    order.push_back(&doc);
  }
  std::sort(order.begin(), order.end(),
            [](const ScoredDoc* a, const ScoredDoc* b) { return TrecEvalBefore(*a, *b); });

  JudgedRanking ranking;
  ranking.relevance_level = relevance_level;
  ranking.grades.reserve(order.size());
  for (const ScoredDoc* doc : order) {
    auto it = judgments.find(doc->doc_id);
    if (it == judgments.end()) {
      ++ranking.num_unjudged;
      ranking.grades.push_back(0);
    } else {
      ranking.grades.push_back(it->second);
    }
  }
  for (const auto& [doc_id, grade] : judgments) {
    if (grade > 0) ranking.ideal_grades.push_back(grade);
    if (grade >= relevance_level) ++ranking.num_relevant;
  }
  std::sort(ranking.ideal_grades.begin(), ranking.ideal_grades.end(), std::greater<int>());
  return ranking;
}

double PrecisionAt(const JudgedRanking& ranking, int k) {
  assert(k >= 1);
  return static_cast<double>(RelevantInTop(ranking, k)) / k;
}

double RecallAt(const JudgedRanking& ranking, int k) {
  assert(k >= 1);
  if (ranking.num_relevant == 0) return 0.0;
  return static_cast<double>(RelevantInTop(ranking, k)) / ranking.num_relevant;
}

double ReciprocalRank(const JudgedRanking& ranking) {
  const size_t rank = FirstRelevantRank(ranking);
  return rank == 0 ? 0.0 : 1.0 / static_cast<double>(rank);
}

double ReciprocalRankAt(const JudgedRanking& ranking, int k) {
  assert(k >= 1);
  const size_t rank = FirstRelevantRank(ranking);
  if (rank == 0 || rank > static_cast<size_t>(k)) return 0.0;
  return 1.0 / static_cast<double>(rank);
}

double AveragePrecision(const JudgedRanking& ranking) {
  if (ranking.num_relevant == 0) return 0.0;
  double sum = 0.0;
  int hits = 0;
  for (size_t i = 0; i < ranking.grades.size(); ++i) {
    if (ranking.grades[i] >= ranking.relevance_level) {
      ++hits;
      sum += static_cast<double>(hits) / static_cast<double>(i + 1);
    }
  }
  return sum / ranking.num_relevant;
}

double NdcgAt(const JudgedRanking& ranking, int k) {
  assert(k >= 1);
  const double ideal = DiscountedGain(ranking.ideal_grades, k);
  if (ideal <= 0.0) return 0.0;
  return DiscountedGain(ranking.grades, k) / ideal;
}

std::vector<std::string> MetricNames(const MetricOptions& options) {
  std::vector<std::string> names;
  for (const char* prefix : {"P@", "recall@", "MRR@", "nDCG@"}) {
    for (const int k : options.cutoffs) {
      names.push_back(prefix + std::to_string(k));
    }
  }
  names.push_back("MRR");
  names.push_back("map");
  return names;
}

Status ValidateMetricOptions(const MetricOptions& options) {
  for (const int k : options.cutoffs) {
    if (k < 1) {
      return InvalidArgument("eval: metric options: cut-off must be >= 1, got " +
                             std::to_string(k));
    }
  }
  if (options.relevance_level < 1) {
    return InvalidArgument("eval: metric options: relevance_level must be >= 1, got " +
                           std::to_string(options.relevance_level));
  }
  return Status::OK();
}

Result<MetricValues> EvaluateQuery(std::span<const ScoredDoc> docs, const Judgments& judgments,
                                   const MetricOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateMetricOptions(options));
  ENGRAM_ASSIGN_OR_RETURN(JudgedRanking ranking,
                          JudgeRanking(docs, judgments, options.relevance_level));
  MetricValues values;
  for (const int k : options.cutoffs) {
    const std::string suffix = std::to_string(k);
    values["P@" + suffix] = PrecisionAt(ranking, k);
    values["recall@" + suffix] = RecallAt(ranking, k);
    values["MRR@" + suffix] = ReciprocalRankAt(ranking, k);
    values["nDCG@" + suffix] = NdcgAt(ranking, k);
  }
  values["MRR"] = ReciprocalRank(ranking);
  values["map"] = AveragePrecision(ranking);
  return values;
}

}  // namespace engram
