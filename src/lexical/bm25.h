// BM25 scoring with Lucene's idf (DESIGN §4). Pure functions.
//
// score(d, q) = sum over query terms t found in d of
//   idf(t) * ( sat(tf_content, len_content, avg_content)
//            + tag_boost * sat(tf_tags, len_tags, avg_tags) )
// with idf(t) = ln(1 + (N - n + 0.5) / (n + 0.5)), N the facts in the
// searched scopes and n those containing t in content or tags, and
// sat(tf, len, avg) = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg)).
// Scores are >= 0; idf never goes negative, unlike SQLite's bm25().
#ifndef ENGRAM_SRC_LEXICAL_BM25_H_
#define ENGRAM_SRC_LEXICAL_BM25_H_

#include <cstdint>

#include "engram/options.h"

namespace engram {

// Lucene idf. `n_docs` >= `doc_freq` >= 0.
double Bm25Idf(int64_t n_docs, int64_t doc_freq);

// Saturated term frequency of one field. An average length of 0 (an empty
// field everywhere) counts as no length normalisation.
double Bm25Saturation(double tf, double field_len, double avg_field_len,
                      const Bm25Options& options);

}  // namespace engram

#endif  // ENGRAM_SRC_LEXICAL_BM25_H_
