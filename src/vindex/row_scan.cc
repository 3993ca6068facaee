#include "src/vindex/row_scan.h"

#include <algorithm>
#include <array>

#include "src/vindex/top_k.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

// Rows scored per DotRows call: the scores fit in L1 beside the query.
constexpr size_t kBlockRows = 256;

}  // namespace

void ScanRowRange(const float* query, const float* rows, const int64_t* labels, size_t dimension,
                  size_t begin, size_t end, size_t k, float min_score,
                  const std::vector<bool>* skip, std::vector<ScoredLabel>* heap,
                  float* row_scores) {
  heap->reserve(k);
  std::array<float, kBlockRows> block_scores{};
  for (size_t block = begin; block < end; block += kBlockRows) {
    const size_t count = std::min(kBlockRows, end - block);
    float* scores = row_scores == nullptr ? block_scores.data() : row_scores + block;
    DotRows(query, rows + (block * dimension), count, dimension, scores);
    for (size_t i = 0; i < count; ++i) {
      const float score = scores[i];
      // Most rows lose to the worst hit kept; skip them before the heap.
      if (score < min_score || (heap->size() == k && score < heap->front().score)) continue;
      if (skip != nullptr && (*skip)[block + i]) continue;
      OfferHit({labels[block + i], score}, k, heap);
    }
  }
}

}  // namespace engram
