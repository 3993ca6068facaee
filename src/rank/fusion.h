// Fusion: one score per candidate from its signals (DESIGN §4). Pure.
//
// blended: lexical and semantic are min-max normalised over the candidates
//   (a candidate without a lexical match counts as BM25 0, one without a
//   vector takes no part in the semantic range and normalises to 0); with
//   no spread (<= 1e-12: a lone candidate, or equal values) a value keeps
//   its own absolute terms instead: a BM25 match normalises to 1, a cosine
//   to itself clamped to [0, 1], so an exact match in a one-fact scope
//   scores high, not 0; temporal is scaled on its own absolute scale,
//   raw / max(1, largest raw among candidates), so uniformly old facts add ~0
//   instead of min-max noise. final = sum of weight x normalised value, the
//   weights being those of the signals present, renormalised to sum to 1.
// lexical / semantic / temporal: the raw value of that signal alone (a
//   candidate without the signal scores 0 for lexical, -1 for semantic).
// rrf: sum over the lexical and semantic rankings of 1 / (rrf_k + rank),
//   a candidate counting only in the rankings it appears in.
// Every signal also gets its rank among the candidates that have it, when
// the caller asks for ranks (FusionNeeds).
// Ties break by id, then scope, ascending, so rankings are deterministic;
// the same order ranks within a signal.
#ifndef ENGRAM_SRC_RANK_FUSION_H_
#define ENGRAM_SRC_RANK_FUSION_H_

#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/explain.h"
#include "engram/options.h"

namespace engram {

// id and scope view the caller's strings, which must outlive the Fuse call
// (fusion returns indexes into its input, not copies).
struct FusionCandidate {
  std::string_view id;  // tie-break key, then scope
  std::string_view scope;
  std::optional<double> lexical;   // BM25, when the fact matched a term
  std::optional<double> semantic;  // cosine, when the fact has a vector
  double temporal = 0.0;           // always present
};

struct FusedCandidate {
  size_t index = 0;  // into the input
  double score = 0.0;
  SignalValue lexical;
  SignalValue semantic;
  SignalValue temporal;
};

struct FusionResult {
  std::vector<FusedCandidate> ranked;  // best first, ties by id
  FusionWeights weights;               // effective weights used
};

// Weights with negatives as 0, all-zero replaced by the defaults, absent
// signals dropped and the rest renormalised to sum to 1.
FusionWeights EffectiveWeights(const FusionWeights& requested, bool has_semantic, bool has_lexical,
                               bool has_temporal);

// How much of the ranking a caller reads, so that Fuse does no more.
struct FusionNeeds {
  // The best `top` candidates come first, in order; the rest follow in no
  // particular order. Default: every candidate in order.
  size_t top = std::numeric_limits<size_t>::max();
  // Fill SignalValue::rank of every signal (explain output). When false the
  // ranks are 0, except under rrf, whose scores are made of them.
  bool signal_ranks = true;
};

FusionResult Fuse(const std::vector<FusionCandidate>& candidates, FusionMode mode,
                  const FusionOptions& options, const FusionNeeds& needs = {});

}  // namespace engram

#endif  // ENGRAM_SRC_RANK_FUSION_H_
