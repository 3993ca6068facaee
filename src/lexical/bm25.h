// BM25 scoring with Lucene's idf (DESIGN §4). Pure functions.
//
// score(d, q) = sum over query terms t found in d of
//   w(t) * idf(t) * ( sat(tf_content, len_content, avg_content)
//                   + tag_boost * sat(tf_tags, len_tags, avg_tags) )
// with w(t) the term's query weight: how many times the query holds it
// (Lucene's query term frequency), or an expansion term's own weight.
// with idf(t) = ln(1 + (N - n + 0.5) / (n + 0.5)), N the facts in the
// searched scopes and n those containing t in content or tags, and
// sat(tf, len, avg) = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg)).
// Scores are >= 0; idf never goes negative, unlike SQLite's bm25().
#ifndef ENGRAM_SRC_LEXICAL_BM25_H_
#define ENGRAM_SRC_LEXICAL_BM25_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "engram/options.h"

namespace engram {

// Lucene idf. `n_docs` >= `doc_freq` >= 0.
double Bm25Idf(int64_t n_docs, int64_t doc_freq);

// Saturated term frequency of one field. An average length of 0 (an empty
// field everywhere) counts as no length normalisation.
double Bm25Saturation(double tf, double field_len, double avg_field_len,
                      const Bm25Options& options);

// The documents that matched a query, in two flat arrays (one allocation
// each, not two per document): document i's frequency of query term t in
// field f is tf[(i * terms + t) * fields + f], and its length of field f
// in analysed terms field_len[i * fields + f].
struct Bm25Matches {
  Bm25Matches(size_t n_terms, size_t n_fields) : terms(n_terms), fields(n_fields) {}
  size_t terms;
  size_t fields;
  std::vector<int32_t> tf;
  std::vector<double> field_len;

  size_t size() const { return fields == 0 ? 0 : field_len.size() / fields; }
  // Room for `n` documents.
  void Reserve(size_t n);
  // Appends a document with the field lengths `lengths` (one per field)
  // and returns its term frequencies, zero, for the caller to fill; valid
  // until the next Add.
  std::span<int32_t> Add(std::initializer_list<double> lengths);
};

// The collection a query is scored against, field by field.
struct Bm25Collection {
  int64_t n_docs = 0;
  std::vector<double> avg_field_len;
  std::vector<double> field_weight;  // e.g. {1, tag_boost}
};

// The score of each match: for each term it holds in any field, the term's
// weight (`term_weights`, one per query term) times idf times the weighted
// sum of the fields' saturations. Document frequencies are counted over
// `matches`, which must therefore be every document of the collection
// holding any of the terms; matches.terms is term_weights.size() and
// matches.fields collection.field_weight.size(). `matched` (when given)
// receives, per match, the terms it holds in first-to-last order;
// `doc_freq` (when given) each term's document frequency.
std::vector<double> Bm25Scores(const Bm25Matches& matches, const std::vector<double>& term_weights,
                               const Bm25Collection& collection, const Bm25Options& options,
                               std::vector<std::vector<size_t>>* matched,
                               std::vector<int64_t>* doc_freq_out = nullptr);

}  // namespace engram

#endif  // ENGRAM_SRC_LEXICAL_BM25_H_
