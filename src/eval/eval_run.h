// ScoredDoc and EvalRun: what a retrieval system returned for a set of queries.
//
// An EvalRun maps a query id to that query's results. The order of the results
// within a query is the order the system produced; metrics re-rank them as
// trec_eval does (see metrics.h), so only the scores decide the ranking.
// Doc ids are compared byte-wise and must be unique within a query.
//
// Thread-safety: plain values.
#ifndef ENGRAM_SRC_EVAL_EVAL_RUN_H_
#define ENGRAM_SRC_EVAL_EVAL_RUN_H_

#include <map>
#include <string>
#include <vector>

namespace engram {

// One retrieved document. Higher scores rank first. NaN is an error
// everywhere; a run file holds only finite scores.
struct ScoredDoc {
  std::string doc_id;
  double score = 0.0;
};

// Query id -> that query's results. Ordered by query id, so iteration and
// written run files are deterministic.
using EvalRun = std::map<std::string, std::vector<ScoredDoc>>;

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_EVAL_RUN_H_
