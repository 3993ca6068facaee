// Knowledge-update metrics: how a ranking treats facts that were replaced
// by newer ones (../shared/datasets/updates-dev/SOURCE.md).
//
// `stale` lists, per query, the superseded facts (qrels/stale.tsv, any
// grade); `qrels` the current ones (grade >= 1). Over the queries that have
// stale facts ("update" queries):
//  - current@1: the first result is a current fact;
//  - stale-above@10: a stale fact ranks within the top 10 above every
//    current fact of the top 10 (or the top 10 has a stale fact and no
//    current one).
// Over the queries without stale facts that have two or more relevant facts
// (pairs that are both true): both@10, every relevant fact is in the top 10.
// Each is a fraction in [0, 1]; a set with no query of its kind counts 0
// queries and 0.
//
// Thread-safety: plain values and a free function.
#ifndef ENGRAM_SRC_EVAL_UPDATE_METRICS_H_
#define ENGRAM_SRC_EVAL_UPDATE_METRICS_H_

#include <cstddef>

#include "engram/eval.h"
#include "src/eval/eval_run.h"
#include "src/eval/qrels.h"

namespace engram {

// `run` lists each query's results best first.
EvalUpdateFigures ComputeUpdateFigures(const EvalRun& run, const Qrels& qrels, const Qrels& stale);

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_UPDATE_METRICS_H_
