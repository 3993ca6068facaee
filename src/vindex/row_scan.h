// The scan of an exact index: the best k of a run of rows by dot product
// with the query, under the search order of top_k.h. FlatIndex and
// MappedFlatIndex both scan with it, so their scores and ties agree bit for
// bit.
//
// Thread-safety: a pure function over caller-owned memory.
#ifndef ENGRAM_SRC_VINDEX_ROW_SCAN_H_
#define ENGRAM_SRC_VINDEX_ROW_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/vindex/vector_index.h"

namespace engram {

// Rows [begin, end) of `rows` (row-major, `dimension` floats each; row i is
// labels[i]) offered to `heap`, a top_k.h heap of at most k (k > 0) hits
// scoring >= min_score. When `row_scores` is not null every row's score is
// written to row_scores[row]. A row for which (*skip)[row] is true, when
// `skip` is not null, is scored but never offered.
void ScanRowRange(const float* query, const float* rows, const int64_t* labels, size_t dimension,
                  size_t begin, size_t end, size_t k, float min_score,
                  const std::vector<bool>* skip, std::vector<ScoredLabel>* heap, float* row_scores);

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_ROW_SCAN_H_
