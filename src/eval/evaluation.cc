#include "src/eval/evaluation.h"

#include <span>
#include <string_view>
#include <vector>

namespace engram {

Result<Evaluation> Evaluate(const EvalRun& run, const Qrels& qrels, QuerySet query_set,
                            const MetricOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateMetricOptions(options));
  Evaluation evaluation;
  for (const auto& [qid, docs] : run) {
    if (!docs.empty() && qrels.find(qid) == qrels.end()) {
      ++evaluation.num_unjudged_run_queries;
    }
  }
  for (const auto& [qid, judgments] : qrels) {
    auto it = run.find(qid);
    const bool in_run = it != run.end() && !it->second.empty();
    const bool has_relevant = CountRelevant(judgments, options.relevance_level) > 0;
    if (!in_run) ++evaluation.num_missing_from_run;
    if (!has_relevant) ++evaluation.num_without_relevant;

    bool counts = false;
    switch (query_set) {
      case QuerySet::kRunAndJudged:
        counts = in_run;
        break;
      case QuerySet::kAllJudged:
        counts = true;
        break;
      case QuerySet::kWithRelevant:
        counts = has_relevant;
        break;
    }
    if (!counts) continue;

    std::span<const ScoredDoc> docs;
    if (in_run) docs = it->second;
    Result<MetricValues> values = EvaluateQuery(docs, judgments, options);
    if (!values.ok()) {
      // Re-prefix "eval: judge ranking: <cause>" with the query it is about.
      const Status status = values.status();
      std::string_view cause = status.message();
      constexpr std::string_view kPrefix = "eval: judge ranking: ";
      if (cause.starts_with(kPrefix)) cause.remove_prefix(kPrefix.size());
      return Status(status.code(), "eval: evaluate: query \"" + qid + "\": " + std::string(cause));
    }
    evaluation.per_query.emplace(qid, std::move(values).value());
  }

  evaluation.num_queries = static_cast<int>(evaluation.per_query.size());
  for (const std::string& name : MetricNames(options)) {
    double sum = 0.0;
    for (const auto& [qid, values] : evaluation.per_query) {
      sum += values.at(name);
    }
    evaluation.mean[name] = evaluation.num_queries == 0 ? 0.0 : sum / evaluation.num_queries;
  }
  return evaluation;
}

}  // namespace engram
