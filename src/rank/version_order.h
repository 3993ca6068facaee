// Newer versions first (docs/ARCHITECTURE.md, "Facts that change"). Pure.
//
// Given the fused ranking and the version links among its candidates, each
// older fact has up to `max_successors` successors, the best scoring of its
// newer versions; a successor takes the score of its older version (directly or through a
// chain of successors) when that is higher than its own, and ranks just
// above it; the older keeps its own score and place below.
// Scores propagate from the oldest fact of a chain to the newest, so in
// A -> B -> C the newest, C, ranks above B above A wherever the best of
// them stood. A fact that took a score ranks before the fact it took it
// from; other ties keep the fused order.
#ifndef ENGRAM_SRC_RANK_VERSION_ORDER_H_
#define ENGRAM_SRC_RANK_VERSION_ORDER_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "engram/clock.h"
#include "src/rank/fusion.h"

namespace engram {

// A link between two candidates: `newer` is a later version of `older`
// (indexes into the fused candidates, FusedCandidate::index).
struct VersionEdge {
  size_t older = 0;
  size_t newer = 0;
};

// What the reordering did to one ranked candidate.
struct VersionLift {
  std::optional<size_t> lifted_by;  // candidate index whose score it took
  double own_score = 0.0;           // its score before
};

// Reorders `result->ranked` in place; `created_at[i]` is the creation time
// of candidate i. A newer fact takes an older one's score only when its own
// score is at least `min_share` of it (a link between facts that are close
// to each other but not both about what the query asks lifts nothing).
// Edges whose newer fact is not created after the older one are ignored.
// Returns one entry per ranked candidate, in the new order.
std::vector<VersionLift> OrderNewerFirst(const std::vector<Timestamp>& created_at,
                                         const std::vector<VersionEdge>& edges, double min_share,
                                         size_t max_successors, FusionResult* result);

}  // namespace engram

#endif  // ENGRAM_SRC_RANK_VERSION_ORDER_H_
