#include "src/lexical/bm25.h"

#include <cmath>

namespace engram {

double Bm25Idf(int64_t n_docs, int64_t doc_freq) {
  const double n = static_cast<double>(n_docs);
  const double df = static_cast<double>(doc_freq);
  return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

double Bm25Saturation(double tf, double field_len, double avg_field_len,
                      const Bm25Options& options) {
  if (tf <= 0) return 0.0;
  const double norm =
      avg_field_len > 0 ? 1.0 - options.b + options.b * field_len / avg_field_len : 1.0;
  return tf * (options.k1 + 1.0) / (tf + options.k1 * norm);
}

std::vector<double> Bm25Scores(const std::vector<Bm25Match>& matches,
                               const std::vector<double>& term_weights,
                               const Bm25Collection& collection, const Bm25Options& options,
                               std::vector<std::vector<size_t>>* matched,
                               std::vector<int64_t>* doc_freq_out) {
  const size_t n_fields = collection.field_weight.size();
  const size_t n_terms = term_weights.size();
  const auto holds = [&](const Bm25Match& m, size_t t) {
    for (size_t f = 0; f < n_fields; ++f) {
      if (m.tf[t * n_fields + f] > 0) return true;
    }
    return false;
  };
  std::vector<int64_t> doc_freq(n_terms, 0);
  for (const Bm25Match& m : matches) {
    for (size_t t = 0; t < n_terms; ++t) doc_freq[t] += holds(m, t) ? 1 : 0;
  }
  std::vector<double> idf(n_terms);
  for (size_t t = 0; t < n_terms; ++t) idf[t] = Bm25Idf(collection.n_docs, doc_freq[t]);
  if (doc_freq_out != nullptr) *doc_freq_out = doc_freq;
  std::vector<double> scores(matches.size(), 0.0);
  if (matched != nullptr) matched->assign(matches.size(), {});
  for (size_t i = 0; i < matches.size(); ++i) {
    const Bm25Match& m = matches[i];
    for (size_t t = 0; t < n_terms; ++t) {
      if (!holds(m, t)) continue;
      if (matched != nullptr) (*matched)[i].push_back(t);
      double sum = 0.0;
      for (size_t f = 0; f < n_fields; ++f) {
        sum += collection.field_weight[f] * Bm25Saturation(m.tf[t * n_fields + f], m.field_len[f],
                                                           collection.avg_field_len[f], options);
      }
      scores[i] += term_weights[t] * idf[t] * sum;
    }
  }
  return scores;
}

}  // namespace engram
