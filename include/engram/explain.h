// How a result's score came about: each signal raw and normalised, the
// weights in force and the final score (DESIGN §4, "every result can explain
// itself"). Plain values.
#ifndef ENGRAM_EXPLAIN_H_
#define ENGRAM_EXPLAIN_H_

#include <cstddef>
#include <string>
#include <vector>

#include "engram/options.h"

namespace engram {

// One signal of one result: its raw value and its value after
// normalisation over the candidates, and its rank among the candidates that
// have it (1 = best; reciprocal rank fusion uses it). `present` is false when
// the signal does not apply (no lexical match, no vector).
struct SignalValue {
  bool present = false;
  double raw = 0.0;
  double normalized = 0.0;
  size_t rank = 0;  // 0 when absent
};

struct Explanation {
  SignalValue semantic;  // cosine with the query vector
  SignalValue lexical;
  SignalValue temporal;
  FusionWeights weights;                   // effective, after renormalisation
  std::vector<std::string> matched_terms;  // analysed query terms found
  double final_score = 0.0;
  // Set when the result ranks as the newer version of another result
  // (docs/ARCHITECTURE.md, "Facts that change"): that fact's id, and the
  // score this one had on its own signals (final_score is the older's).
  std::string newer_version_of;
  double own_score = 0.0;
};

}  // namespace engram

#endif  // ENGRAM_EXPLAIN_H_
