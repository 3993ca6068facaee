#include "src/lexical/bm25.h"

#include <algorithm>
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

void Bm25Matches::Reserve(size_t n) {
  tf.reserve(n * terms * fields);
  field_len.reserve(n * fields);
}

std::span<int32_t> Bm25Matches::Add(std::initializer_list<double> lengths) {
  const size_t at_len = field_len.size();
  field_len.resize(at_len + fields, 0.0);
  std::copy_n(lengths.begin(), std::min(lengths.size(), fields), field_len.begin() + at_len);
  const size_t at = tf.size();
  tf.resize(at + terms * fields, 0);
  return std::span<int32_t>(tf).subspan(at);
}

std::vector<double> Bm25Scores(const Bm25Matches& matches, const std::vector<double>& term_weights,
                               const Bm25Collection& collection, const Bm25Options& options,
                               std::vector<std::vector<size_t>>* matched,
                               std::vector<int64_t>* doc_freq_out) {
  const size_t n_fields = matches.fields;
  const size_t n_terms = matches.terms;
  const size_t n_docs = matches.size();
  // Whether document i holds term t in any field.
  const auto holds = [&](size_t i, size_t t) {
    const int32_t* tf = matches.tf.data() + (i * n_terms + t) * n_fields;
    for (size_t f = 0; f < n_fields; ++f) {
      if (tf[f] > 0) return true;
    }
    return false;
  };
  std::vector<int64_t> doc_freq(n_terms, 0);
  std::vector<uint32_t> terms_held(n_docs, 0);
  for (size_t i = 0; i < n_docs; ++i) {
    for (size_t t = 0; t < n_terms; ++t) {
      if (!holds(i, t)) continue;
      ++doc_freq[t];
      ++terms_held[i];
    }
  }
  std::vector<double> idf(n_terms);
  for (size_t t = 0; t < n_terms; ++t) idf[t] = Bm25Idf(collection.n_docs, doc_freq[t]);
  if (doc_freq_out != nullptr) *doc_freq_out = doc_freq;
  std::vector<double> scores(n_docs, 0.0);
  if (matched != nullptr) matched->assign(n_docs, {});
  for (size_t i = 0; i < n_docs; ++i) {
    if (matched != nullptr) (*matched)[i].reserve(terms_held[i]);
    const double* field_len = matches.field_len.data() + i * n_fields;
    for (size_t t = 0; t < n_terms; ++t) {
      if (!holds(i, t)) continue;
      if (matched != nullptr) (*matched)[i].push_back(t);
      const int32_t* tf = matches.tf.data() + (i * n_terms + t) * n_fields;
      double sum = 0.0;
      for (size_t f = 0; f < n_fields; ++f) {
        sum += collection.field_weight[f] *
               Bm25Saturation(tf[f], field_len[f], collection.avg_field_len[f], options);
      }
      scores[i] += term_weights[t] * idf[t] * sum;
    }
  }
  return scores;
}

}  // namespace engram
