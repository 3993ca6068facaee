// Vector index (vindex, DESIGN §6): nearest neighbours by inner product over
// unit vectors, so the score is the cosine.
//
// Labels are caller-chosen int64 keys (the engine uses fact rowids). Every
// index keeps a copy of its vectors; Score() returns the exact cosine of one
// label, which the engine uses to give lexical candidates their true cosine.
//
// Search contract, shared by every implementation:
//  - returns at most k hits whose score is >= min_score, best first;
//  - ties (equal float scores) break by label ascending, so the same index
//    and query always give the same list;
//  - an empty index, or k == 0, gives an empty list;
//  - scores are exact (Dot of vector_math.h), also from an approximate
//    index, which may only miss some of the true top k.
// Upsert checks the vector (CheckVector) and L2-normalises it; a label that
// is present is replaced.
//
// Thread-safety: const methods may run concurrently with each other; any
// mutation needs exclusive access (the engine holds its mutex).
#ifndef ENGRAM_SRC_VINDEX_VECTOR_INDEX_H_
#define ENGRAM_SRC_VINDEX_VECTOR_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engram/status.h"

namespace engram {

struct ScoredLabel {
  int64_t label = 0;
  float score = 0.0f;  // exact inner product with the query

  bool operator==(const ScoredLabel&) const = default;
};

class VectorIndex {
 public:
  virtual ~VectorIndex() = default;

  virtual size_t Dimension() const = 0;  // floats per vector
  virtual size_t size() const = 0;

  // Adds or replaces `label`'s vector. InvalidArgument (see CheckVector)
  // for a wrong dimension, NaN/Inf or a zero norm; the index is unchanged.
  virtual Status Upsert(int64_t label, std::span<const float> vector) = 0;

  // Removes `label`; false when it was not there.
  virtual bool Remove(int64_t label) = 0;

  // Removes every label for which keep(label) is false; returns how many.
  virtual size_t Prune(const std::function<bool(int64_t)>& keep) = 0;

  // The k best labels for a unit-length `query` (see the contract above).
  // InvalidArgument for a query that fails CheckVector: wrong dimension,
  // NaN/Inf, or zero norm (which has no direction).
  virtual Result<std::vector<ScoredLabel>> Search(std::span<const float> query, size_t k,
                                                  float min_score) const = 0;

  // Exact inner product of `query` with `label`'s vector, the same float a
  // search reports for it; nullopt when the label is absent or the query has
  // the wrong dimension.
  virtual std::optional<float> Score(std::span<const float> query, int64_t label) const = 0;

  // `label`'s vector as stored, empty when the label is absent; valid until
  // the index next changes.
  virtual std::span<const float> Vector(int64_t label) const = 0;

  // Search, and besides Score(query, labels[i]) into (*scores)[i] (nullopt
  // when absent), in one call: an index that visits every vector anyway
  // scores the labels on the way. The hits and scores are those the two
  // calls give. This default makes the two calls.
  virtual Result<std::vector<ScoredLabel>> SearchAndScore(
      std::span<const float> query, size_t k, float min_score, std::span<const int64_t> labels,
      std::vector<std::optional<float>>* scores) const {
    Result<std::vector<ScoredLabel>> hits = Search(query, k, min_score);
    if (!hits.ok()) return hits;
    scores->clear();
    scores->reserve(labels.size());
    for (const int64_t label : labels) scores->push_back(Score(query, label));
    return hits;
  }

  // Every label present, ascending.
  virtual std::vector<int64_t> Labels() const = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_VECTOR_INDEX_H_
