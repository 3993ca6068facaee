// MappedFlatIndex: exact search over a flat snapshot (flat_snapshot.h)
// mapped read-only, plus what changed since, in memory. The snapshot's
// vectors are never copied: opening costs the checksum's one pass over the
// mapped pages (about 1 ms for 10,000 512-d vectors here, where copying them
// into fresh memory costs some 50 ms of page faults), which is what a
// process that searches once and exits needs. A label removed or replaced
// is marked gone in the snapshot; new and replaced vectors go to a FlatIndex
// of its own. A search scans both with the same scan (row_scan.h) and
// merges under the one search order (top_k.h), so it ranks exactly as a
// FlatIndex holding the same vectors, scores bit for bit.
//
// The mapping is private and read-only: a snapshot replaced by rename (as
// SaveFlatSnapshot writes them) leaves the mapped file whole, but one
// truncated in place would end the process with SIGBUS, which is why only
// one-shot processes use it (VectorOptions::flat_snapshots). Searches run
// on the calling thread.
//
// Thread-safety: as VectorIndex.
#ifndef ENGRAM_SRC_VINDEX_MAPPED_FLAT_INDEX_H_
#define ENGRAM_SRC_VINDEX_MAPPED_FLAT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/vindex/flat_index.h"
#include "src/vindex/flat_snapshot.h"
#include "src/vindex/vector_index.h"

namespace engram {

class MappedFlatIndex final : public VectorIndex {
 public:
  // The snapshot at `path` (OpenFlatSnapshot's errors); `stamp`, when not
  // null, receives its stamp.
  static Result<std::unique_ptr<MappedFlatIndex>> Open(const std::string& path, size_t dimension,
                                                       std::string* stamp);

  size_t Dimension() const override { return dimension_; }
  size_t size() const override { return snapshot_live_ + changed_.size(); }

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

  // The mapped snapshot as it was read: its stamp, origin, and each row's
  // label and fact, whatever changed since.
  const FlatSnapshot& Snapshot() const { return snapshot_; }

 private:
  MappedFlatIndex(size_t dimension, FlatSnapshot snapshot);
  // The snapshot row of `label` while it is live there.
  std::optional<size_t> LiveRow(int64_t label) const;
  // Search, with every snapshot row's score into row_scores when not null.
  Result<std::vector<ScoredLabel>> Scan(std::span<const float> query, size_t k, float min_score,
                                        float* row_scores) const;

  size_t dimension_;
  FlatSnapshot snapshot_;
  std::vector<bool> gone_;  // per snapshot row: removed or replaced since
  size_t snapshot_live_;
  FlatIndex changed_;  // vectors added or replaced since the snapshot
};

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_MAPPED_FLAT_INDEX_H_
