// BestWindowIndex: a VectorIndex over documents of several vectors each (a
// long text's windows), scoring a document by its best window: the maximum
// of the query's inner product with each of its vectors
// (docs/ARCHITECTURE.md, "Long texts").
//
// Each window is a vector of an inner index under the label
// label * max_windows + window, so the inner index's order (score
// descending, label ascending) puts a document's best window first and
// keeps the shared tie rule between documents. A search asks the inner
// index for k times the most windows any document has, which holds at least
// k distinct documents whenever the index has k, and keeps each document's
// first hit: exact when the inner index is (FlatIndex).
//
// Upsert takes 1 to max_windows vectors of Dimension() floats one after
// another (CheckWindows); Vector(label) is a document's first window, so a
// caller that needs one vector per document (version links, feedback) reads
// the beginning of the text as a first-window space would. Labels must be
// in [0, INT64_MAX / max_windows).
//
// Thread-safety: as VectorIndex.
#ifndef ENGRAM_SRC_VINDEX_BEST_WINDOW_INDEX_H_
#define ENGRAM_SRC_VINDEX_BEST_WINDOW_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "src/vindex/flat_index.h"
#include "src/vindex/vector_index.h"

namespace engram {

class BestWindowIndex final : public VectorIndex {
 public:
  // Over `inner` (empty), documents of at most `max_windows` (>= 1) vectors.
  BestWindowIndex(std::unique_ptr<VectorIndex> inner, size_t max_windows);

  size_t Dimension() const override { return inner_->Dimension(); }
  size_t size() const override { return windows_.size(); }  // documents

  Status Upsert(int64_t label, std::span<const float> vector) override;
  bool Remove(int64_t label) override;
  size_t Prune(const std::function<bool(int64_t)>& keep) override;
  Result<std::vector<ScoredLabel>> Search(std::span<const float> query, size_t k,
                                          float min_score) const override;
  std::optional<float> Score(std::span<const float> query, int64_t label) const override;
  std::span<const float> Vector(int64_t label) const override;
  Result<std::vector<ScoredLabel>> SearchAndScore(
      std::span<const float> query, size_t k, float min_score, std::span<const int64_t> labels,
      std::vector<std::optional<float>>* scores) const override;
  std::vector<int64_t> Labels() const override;

  // How many windows `label` has; 0 when it is absent.
  size_t WindowsOf(int64_t label) const;

 private:
  int64_t InnerLabel(int64_t label, size_t window) const {
    return (label * static_cast<int64_t>(max_windows_)) + static_cast<int64_t>(window);
  }
  // Removes `label`'s windows from the inner index and the counts.
  void Forget(int64_t label, size_t windows);
  // The most windows any document has now.
  size_t MostWindows() const;
  // Inner hits -> each document's first (best) hit, at most k.
  std::vector<ScoredLabel> BestPerDocument(const std::vector<ScoredLabel>& inner, size_t k) const;

  std::unique_ptr<VectorIndex> inner_;
  size_t max_windows_;
  std::unordered_map<int64_t, size_t> windows_;  // document -> its windows
  std::vector<size_t> documents_with_;           // [n]: documents of n windows
};

// The exact index for a space whose documents have up to `max_windows`
// vectors (EmbeddingSpace::MaxVectorsPerDocument): a FlatIndex with room
// for `reserve` vectors, wrapped in a BestWindowIndex when max_windows > 1.
std::unique_ptr<VectorIndex> NewExactIndex(size_t dimension, size_t max_windows, size_t reserve,
                                           FlatIndexOptions options = {});

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_BEST_WINDOW_INDEX_H_
