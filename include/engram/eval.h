// Evaluation: index a BEIR-layout dataset into a temporary store, run every
// query through the engine's public API, and score the rankings with
// trec_eval's metrics (DESIGN §10).
//
// Corpus rows become facts (title and text joined by a newline) in their
// scope, created at their `created_at`; rows whose text is the same fact
// in one scope are merged, and the fact stands for all their ids. The clock
// is pinned to the newest `created_at` (or a fixed instant when there is
// none), so results do not depend on the day they are run. Each query
// searches only its own scope and records no access. Rankings are scored in
// the engine's order (run scores are rank-derived, so trec_eval's own tie
// order cannot reorder them). Averages are over queries with at least one
// relevant document.
#ifndef ENGRAM_EVAL_H_
#define ENGRAM_EVAL_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engram/export.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram {

struct EvalOptions {
  // Modes to run, side by side; the first is the baseline for deltas.
  std::vector<FusionMode> modes = {FusionMode::kBlended};
  // Extra blended runs after `modes`, one per weight set, on the same
  // indexed corpus (a weight sweep embeds the corpus once).
  std::vector<FusionWeights> blend_weights;
  // Results retrieved per query; metrics are cut at 1, 5, 10 and 100.
  size_t depth = 100;
  // Options of the temporary store (BM25, weights, ...); db_path and clock
  // are set by the evaluation.
  EngineOptions engine;
  // With HyDE on (engine.llm set and engine.hyde.enabled), each run above
  // is made twice on the same queries: without HyDE, then with it (named
  // "<name>+hyde"). Hypotheses come from the LLM (a scripted one replays
  // recorded hypotheses).
  // Evaluate only the queries the LLM writes a hypothesis for, so that a
  // recorded file covering a subset compares like with like. Default false.
  bool hyde_queries_only = false;
  // Another dataset's directory whose queries.jsonl is also asked of this
  // corpus, each query in every scope of the corpus, 10 results deep, to
  // count the searches that rightly find nothing (EvalModeResult::foreign).
  // Default empty: none.
  std::string foreign_queries;
  // Called with ("index" | "embed" | "search", done, total). May be empty.
  std::function<void(const std::string&, size_t, size_t)> progress;
};

// One ranked document of one query.
struct EvalRankedDoc {
  std::string doc_id;
  double score = 0.0;
};

// Knowledge updates (a dataset with qrels/stale.tsv; src/eval/update_metrics.h):
// over queries with superseded facts, how often the first result is current
// and how often a superseded fact ranks above every current one in the top
// 10; over queries with two or more relevant facts and none superseded, how
// often all of them are in the top 10.
struct EvalUpdateFigures {
  size_t update_queries = 0;
  double current_at_1 = 0.0;
  double stale_above_at_10 = 0.0;
  size_t pair_queries = 0;
  double both_at_10 = 0.0;
};

// Queries of another dataset asked of this corpus (EvalOptions::
// foreign_queries): nothing in it answers them, so each search should
// return nothing.
struct EvalForeignFigures {
  std::string dataset;   // the queries' dataset
  size_t searches = 0;   // queries x scopes
  size_t empty = 0;      // searches that returned no result
  double mean_hits = 0;  // results per search, of at most 10
};

struct EvalModeResult {
  FusionMode mode = FusionMode::kBlended;
  // The mode's name, or "blended[s/l/t]" for a run with its own weights.
  std::string name;
  // Macro averages: "P@k", "recall@k", "MRR@k", "nDCG@k" for k in 1, 5, 10,
  // 100, plus "MRR" (uncut) and "map".
  std::map<std::string, double> metrics;
  std::map<std::string, std::map<std::string, double>> per_query;
  std::map<std::string, std::vector<EvalRankedDoc>> run;  // query id -> ranking
  double seconds = 0.0;                                   // wall time of the queries
  bool hyde = false;                                      // HyDE was on for this run
  size_t hypotheses = 0;                      // queries that got a hypothesis (HyDE runs)
  size_t hyde_fallbacks = 0;                  // queries where HyDE fell back (HyDE runs)
  std::optional<EvalUpdateFigures> updates;   // when the dataset has qrels/stale.tsv
  std::optional<EvalForeignFigures> foreign;  // with EvalOptions::foreign_queries
};

struct EvalReport {
  std::string dataset;
  size_t documents = 0;          // corpus rows
  size_t facts = 0;              // facts after merging identical rows
  size_t skipped_documents = 0;  // rows no fact can hold (empty text, ...)
  size_t queries = 0;            // queries averaged
  // HyDE runs with hyde_queries_only: the queries kept, of how many.
  size_t hyde_queries_kept = 0;
  size_t hyde_queries_total = 0;
  double index_seconds = 0.0;
  std::vector<EvalModeResult> modes;
};

// The metric names of EvalModeResult::metrics, in reporting order.
ENGRAM_EXPORT std::vector<std::string> EvalMetricNames();

ENGRAM_EXPORT Result<EvalReport> RunEvaluation(const std::string& dataset_dir,
                                               const EvalOptions& options);

// Writes `result.run` as a TREC run file (qid Q0 doc rank score tag).
ENGRAM_EXPORT Status WriteEvalRun(const EvalModeResult& result, const std::string& tag,
                                  const std::string& path);

}  // namespace engram

#endif  // ENGRAM_EVAL_H_
