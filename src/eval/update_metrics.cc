#include "src/eval/update_metrics.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace engram {
namespace {

constexpr size_t kDepth = 10;

bool Has(const Judgments* judgments, const std::string& doc, int level) {
  if (judgments == nullptr) return false;
  const auto it = judgments->find(doc);
  return it != judgments->end() && it->second >= level;
}

}  // namespace

EvalUpdateFigures ComputeUpdateFigures(const EvalRun& run, const Qrels& qrels, const Qrels& stale) {
  EvalUpdateFigures out;
  size_t current_first = 0;
  size_t stale_above = 0;
  size_t both = 0;
  const std::vector<ScoredDoc> no_results;
  for (const auto& [query, judgments] : qrels) {
    const auto ranked_it = run.find(query);
    const std::vector<ScoredDoc>& ranked = ranked_it == run.end() ? no_results : ranked_it->second;
    const size_t depth = std::min(kDepth, ranked.size());
    const auto stale_it = stale.find(query);
    const Judgments* stale_docs =
        stale_it == stale.end() || stale_it->second.empty() ? nullptr : &stale_it->second;
    if (stale_docs != nullptr) {
      ++out.update_queries;
      if (!ranked.empty() && Has(&judgments, ranked[0].doc_id, 1)) ++current_first;
      for (size_t i = 0; i < depth; ++i) {
        if (Has(&judgments, ranked[i].doc_id, 1)) break;
        if (Has(stale_docs, ranked[i].doc_id, std::numeric_limits<int>::min())) {
          ++stale_above;
          break;
        }
      }
      continue;
    }
    if (CountRelevant(judgments) < 2) continue;
    ++out.pair_queries;
    size_t found = 0;
    for (size_t i = 0; i < depth; ++i) found += Has(&judgments, ranked[i].doc_id, 1) ? 1 : 0;
    if (found == static_cast<size_t>(CountRelevant(judgments))) ++both;
  }
  const auto share = [](size_t part, size_t whole) {
    return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
  };
  out.current_at_1 = share(current_first, out.update_queries);
  out.stale_above_at_10 = share(stale_above, out.update_queries);
  out.both_at_10 = share(both, out.pair_queries);
  return out;
}

}  // namespace engram
