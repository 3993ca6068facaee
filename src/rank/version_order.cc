#include "src/rank/version_order.h"

#include <algorithm>
#include <numeric>

namespace engram {

std::vector<VersionLift> OrderNewerFirst(const std::vector<Timestamp>& created_at,
                                         const std::vector<VersionEdge>& edges, double min_share,
                                         size_t max_successors, FusionResult* result) {
  std::vector<FusedCandidate>& ranked = result->ranked;
  const size_t n = created_at.size();
  // Position of each candidate in the fused order, and its score.
  std::vector<size_t> position(n, n);
  std::vector<double> score(n, 0.0);
  for (size_t p = 0; p < ranked.size(); ++p) {
    position[ranked[p].index] = p;
    score[ranked[p].index] = ranked[p].score;
  }
  // Each older fact passes its score on to at most `max_successors` of its
  // newer versions, the best scoring first (the newest on a tie), so
  // versions that merely look alike do not all crowd in above it.
  std::vector<std::vector<size_t>> newer_of(n);
  for (const VersionEdge& e : edges) {
    if (e.older >= n || e.newer >= n || position[e.older] == n || position[e.newer] == n) continue;
    if (created_at[e.newer] <= created_at[e.older]) continue;
    newer_of[e.older].push_back(e.newer);
  }
  std::vector<std::vector<size_t>> older_of(n);
  for (size_t o = 0; o < n; ++o) {
    std::vector<size_t>& newer = newer_of[o];
    std::sort(newer.begin(), newer.end(), [&](size_t a, size_t b) {
      if (score[a] != score[b]) return score[a] > score[b];
      if (created_at[a] != created_at[b]) return created_at[a] > created_at[b];
      return position[a] < position[b];
    });
    newer.erase(std::unique(newer.begin(), newer.end()), newer.end());
    if (newer.size() > max_successors) newer.resize(max_successors);
    for (size_t c : newer) older_of[c].push_back(o);
  }
  // Oldest first, so a score climbs a chain to its newest fact.
  std::vector<size_t> by_age(n);
  std::iota(by_age.begin(), by_age.end(), 0);
  std::stable_sort(by_age.begin(), by_age.end(),
                   [&](size_t a, size_t b) { return created_at[a] < created_at[b]; });
  std::vector<double> effective = score;
  std::vector<std::optional<size_t>> lifted_by(n);
  // Links climbed to reach the score taken: ranks a lifted fact above the
  // fact it took its score from, and nothing else.
  std::vector<size_t> generation(n, 0);
  for (size_t c : by_age) {
    for (size_t o : older_of[c]) {
      if (score[c] < min_share * effective[o]) continue;  // not about what the query asks
      if (effective[o] > effective[c] ||
          (effective[o] == effective[c] && generation[o] + 1 > generation[c])) {
        effective[c] = effective[o];
        lifted_by[c] = lifted_by[o] ? lifted_by[o] : std::optional<size_t>(o);
        generation[c] = generation[o] + 1;
      }
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const FusedCandidate& a, const FusedCandidate& b) {
                     if (effective[a.index] != effective[b.index]) {
                       return effective[a.index] > effective[b.index];
                     }
                     if (generation[a.index] != generation[b.index]) {
                       return generation[a.index] > generation[b.index];
                     }
                     return position[a.index] < position[b.index];
                   });
  std::vector<VersionLift> lifts(ranked.size());
  for (size_t p = 0; p < ranked.size(); ++p) {
    FusedCandidate& c = ranked[p];
    lifts[p].own_score = c.score;
    if (lifted_by[c.index]) {
      lifts[p].lifted_by = lifted_by[c.index];
      c.score = effective[c.index];
    }
  }
  return lifts;
}

}  // namespace engram
