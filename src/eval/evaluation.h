// Evaluate: per-query metrics for a whole run and their macro average.
//
// Which queries are averaged is a choice that changes the numbers, so the
// caller names it (QuerySet). kRunAndJudged reproduces trec_eval's `all`
// line; kWithRelevant is the project's reporting rule (DESIGN §10).
//
// Thread-safety: pure function over its arguments.
#ifndef ENGRAM_SRC_EVAL_EVALUATION_H_
#define ENGRAM_SRC_EVAL_EVALUATION_H_

#include <map>
#include <string>

#include "engram/status.h"
#include "src/eval/eval_run.h"
#include "src/eval/metrics.h"
#include "src/eval/qrels.h"

namespace engram {

enum class QuerySet {
  // Queries with at least one result in the run that also have judgments:
  // trec_eval's default (without -c). Judged queries the run lacks are
  // skipped; so are queries whose results list is empty, since a run file
  // cannot express them.
  kRunAndJudged,
  // Every judged query; one absent from the run scores as an empty ranking
  // (trec_eval -c).
  kAllJudged,
  // Every judged query with at least one relevant doc (grade >=
  // relevance_level); one absent from the run scores as an empty ranking.
  // DESIGN §10: "macro-averaged over queries with at least one relevant
  // document".
  kWithRelevant,
};

struct Evaluation {
  // Metrics of each query that counted, by query id.
  std::map<std::string, MetricValues> per_query;
  // Each metric's mean over per_query; every metric is 0 when no query
  // counted.
  MetricValues mean;
  // per_query.size(): trec_eval's num_q.
  int num_queries = 0;
  // Run queries without judgments; never counted.
  int num_unjudged_run_queries = 0;
  // Judged queries absent from the run (or with no results); counted as
  // empty rankings except under kRunAndJudged.
  int num_missing_from_run = 0;
  // Judged queries without a relevant doc; left out under kWithRelevant.
  int num_without_relevant = 0;
};

// Evaluates `run` against `qrels`. InvalidArgument, naming the query, when
// a query's results repeat a doc id or hold a NaN score, or when `options`
// is invalid.
Result<Evaluation> Evaluate(const EvalRun& run, const Qrels& qrels, QuerySet query_set,
                            const MetricOptions& options = {});

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_EVALUATION_H_
