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

}  // namespace engram
