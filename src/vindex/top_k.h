// Top-k selection under the search order every index shares: score
// descending, then label ascending. Labels are unique within an index, so
// the order is total and any way of splitting and merging candidates gives
// the same k hits.
//
// Thread-safety: pure functions over caller-owned vectors.
#ifndef ENGRAM_SRC_VINDEX_TOP_K_H_
#define ENGRAM_SRC_VINDEX_TOP_K_H_

#include <algorithm>
#include <cstddef>
#include <vector>

#include "src/vindex/vector_index.h"

namespace engram {

// True when `a` ranks before `b`.
inline bool RanksBefore(const ScoredLabel& a, const ScoredLabel& b) {
  return a.score > b.score || (a.score == b.score && a.label < b.label);
}

// Keeps the best `k` (k > 0) hits offered so far in `heap`, a binary heap
// whose front is the worst hit kept: O(log k) per offer.
inline void OfferHit(const ScoredLabel& hit, size_t k, std::vector<ScoredLabel>* heap) {
  if (heap->size() < k) {
    heap->push_back(hit);
    std::push_heap(heap->begin(), heap->end(), RanksBefore);
  } else if (RanksBefore(hit, heap->front())) {
    std::pop_heap(heap->begin(), heap->end(), RanksBefore);
    heap->back() = hit;
    std::push_heap(heap->begin(), heap->end(), RanksBefore);
  }
}

// Keeps the best `k` of `hits`, sorted best first: O(n log k).
inline void SortHits(size_t k, std::vector<ScoredLabel>* hits) {
  if (hits->size() > k) {
    std::partial_sort(hits->begin(), hits->begin() + static_cast<std::ptrdiff_t>(k), hits->end(),
                      RanksBefore);
    hits->resize(k);
  } else {
    std::sort(hits->begin(), hits->end(), RanksBefore);
  }
}

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_TOP_K_H_
