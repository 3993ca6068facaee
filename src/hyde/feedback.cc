#include "src/hyde/feedback.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "src/text/analyzer.h"

namespace engram {

std::vector<WeightedTerm> RelevanceModel(const std::vector<FeedbackDoc>& docs, size_t max_terms) {
  double total_weight = 0.0;
  for (const FeedbackDoc& d : docs) total_weight += std::max(0.0, d.weight);
  std::map<std::string, double> model;  // ordered: ties fall by term
  for (const FeedbackDoc& d : docs) {
    const std::vector<AnalyzedToken> tokens = Analyze(d.text);
    if (tokens.empty()) continue;
    const double doc_weight = total_weight > 0.0 ? std::max(0.0, d.weight) / total_weight
                                                 : 1.0 / static_cast<double>(docs.size());
    const double per_occurrence = doc_weight / static_cast<double>(tokens.size());
    for (const AnalyzedToken& t : tokens) model[t.term] += per_occurrence;
  }
  std::vector<WeightedTerm> terms;
  terms.reserve(model.size());
  for (auto& [term, p] : model) terms.push_back({term, p});
  const size_t keep = std::min(max_terms, terms.size());
  std::stable_sort(terms.begin(), terms.end(), [](const WeightedTerm& a, const WeightedTerm& b) {
    return a.weight > b.weight;
  });
  terms.resize(keep);
  double kept = 0.0;
  for (const WeightedTerm& t : terms) kept += t.weight;
  if (kept <= 0.0) return {};
  for (WeightedTerm& t : terms) t.weight /= kept;
  return terms;
}

std::vector<float> RocchioVector(const std::vector<float>& query,
                                 const std::vector<std::vector<float>>& docs, double beta) {
  std::vector<double> sum(query.begin(), query.end());
  if (!docs.empty() && beta != 0.0) {
    const double scale = beta / static_cast<double>(docs.size());
    for (const std::vector<float>& d : docs) {
      for (size_t i = 0; i < sum.size() && i < d.size(); ++i) sum[i] += scale * d[i];
    }
  }
  double norm = 0.0;
  for (const double x : sum) norm += x * x;
  norm = std::sqrt(norm);
  std::vector<float> out(sum.size());
  for (size_t i = 0; i < sum.size(); ++i) {
    out[i] = static_cast<float>(norm > 0.0 ? sum[i] / norm : sum[i]);
  }
  return out;
}

}  // namespace engram
