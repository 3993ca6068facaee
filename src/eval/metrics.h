// Per-query IR metrics with trec_eval 10.0 semantics.
//
// Ranking: a query's results are re-sorted by score descending, ties broken
// by doc id in descending byte order (trec_eval compares docnos with
// strcmp(b, a)); the order the system returned them in does not matter.
// Relevance: a doc is relevant when its grade is >= relevance_level (1 by
// default, trec_eval's -l); docs absent from the judgments are not relevant.
// Gain for nDCG is the grade itself when positive, else 0 (linear gains).
//
//   P@k        relevant docs in the top k, divided by k (even if fewer were
//              retrieved)
//   recall@k   relevant docs in the top k / relevant docs judged for the
//              query; 0 when the query has none
//   MRR        1 / rank of the first relevant doc; 0 when none was retrieved
//              (trec_eval's recip_rank)
//   MRR@k      as MRR, but 0 when the first relevant doc is past rank k
//   map        average precision: sum over retrieved relevant docs of the
//              precision at their rank, divided by the number judged
//              relevant (trec_eval's map, uncut)
//   nDCG@k     DCG of the top k, gain / log2(rank + 1), divided by the DCG
//              of the ideal ranking of ALL judged docs of the query cut at k;
//              0 when that ideal is 0 (trec_eval's ndcg_cut.k)
//
// Every value lies in [0, 1]. Thread-safety: pure functions.
#ifndef ENGRAM_SRC_EVAL_METRICS_H_
#define ENGRAM_SRC_EVAL_METRICS_H_

#include <map>
#include <span>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/eval/eval_run.h"
#include "src/eval/qrels.h"

namespace engram {

// Which metrics EvaluateQuery computes.
struct MetricOptions {
  // Cut-offs k for P@k, recall@k, MRR@k and nDCG@k; each must be >= 1.
  // Default {1, 5, 10, 100}. MRR and map are always computed, uncut.
  std::vector<int> cutoffs = {1, 5, 10, 100};
  // Minimum grade that counts as relevant (trec_eval -l); must be >= 1.
  // Default 1. Raising it makes graded qrels stricter for P, recall, MRR and
  // map; nDCG still gains from every positive grade, as in trec_eval.
  int relevance_level = 1;
};

// Metric name -> value, e.g. "P@10" -> 0.3, "map" -> 0.17.
using MetricValues = std::map<std::string, double>;

// A query's results in trec_eval order, looked up in its judgments: the
// input of every metric below.
struct JudgedRanking {
  // grades[i]: grade of the doc at rank i + 1; 0 when it is not judged.
  std::vector<int> grades;
  // Positive grades of all judged docs of the query, descending: the ideal
  // ranking for nDCG.
  std::vector<int> ideal_grades;
  // Judged docs with grade >= relevance_level (retrieved or not).
  int num_relevant = 0;
  // Retrieved docs absent from the judgments.
  int num_unjudged = 0;
  int relevance_level = 1;
};

// Sorts `docs` into trec_eval's ranking order (score descending, then doc id
// descending). NaN scores must not be present.
void SortTrecEvalOrder(std::vector<ScoredDoc>* docs);

// Ranks `docs` as trec_eval does and judges each one. InvalidArgument when a
// doc id repeats, a score is NaN, or relevance_level < 1.
Result<JudgedRanking> JudgeRanking(std::span<const ScoredDoc> docs, const Judgments& judgments,
                                   int relevance_level = 1);

// The metrics, defined in the header comment; k >= 1.
double PrecisionAt(const JudgedRanking& ranking, int k);
double RecallAt(const JudgedRanking& ranking, int k);
double ReciprocalRank(const JudgedRanking& ranking);
double ReciprocalRankAt(const JudgedRanking& ranking, int k);
double AveragePrecision(const JudgedRanking& ranking);
double NdcgAt(const JudgedRanking& ranking, int k);

// Names of the metrics `options` asks for, grouped by metric, cut-offs in
// the given order: "P@1", "P@5", ..., "recall@1", ..., "MRR@1", ...,
// "nDCG@1", ..., "MRR", "map".
std::vector<std::string> MetricNames(const MetricOptions& options);

// InvalidArgument when a cut-off is < 1 or relevance_level < 1.
Status ValidateMetricOptions(const MetricOptions& options);

// Every metric named by MetricNames(options) for one query.
Result<MetricValues> EvaluateQuery(std::span<const ScoredDoc> docs, const Judgments& judgments,
                                   const MetricOptions& options = {});

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_METRICS_H_
