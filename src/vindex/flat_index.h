// FlatIndex: exact search by scanning every vector (DESIGN §6). The
// baseline every approximate index is measured against.
//
// Storage is one contiguous float32 array of rows, `dimension` floats each,
// plus a row -> label array and a label -> row map. Remove moves the last
// row into the hole, so rows stay dense. A search computes the dot product
// with every row (SIMD, row after row; see vector_math.h) and keeps the
// best k in a size-k heap: O(n d + n log k). Large indexes are scanned by
// several threads, each over its own slice of rows; the slices' heaps are
// merged under the same total order (score desc, label asc), so the result
// does not depend on the thread count.
//
// Scores are the exact float dot product as computed by Dot(): Score() and
// Search() agree bit for bit, and HnswIndex gives the same score for the
// same vector. SearchAndScore takes the labels' scores from the scan itself.
//
// With int8_scan, each row also keeps int8 codes (vector_math.h), a quarter
// of its bytes, and a search first scans the codes, keeping the best
// candidates by approximate score, then scores those exactly from the
// float rows: the hits and their scores are exact, and a true hit is missed
// only when the codes rank it below every kept candidate (recall measured
// in bench/RESULTS-scan.md). It costs a quarter more memory.
//
// Thread-safety: as VectorIndex. Search() may start threads of its own
// (FlatIndexOptions); it joins them before it returns.
#ifndef ENGRAM_SRC_VINDEX_FLAT_INDEX_H_
#define ENGRAM_SRC_VINDEX_FLAT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "src/vindex/vector_index.h"

namespace engram {

struct FlatIndexOptions {
  // Threads one search may use. Default 0 = std::thread::hardware_concurrency().
  // 1 never starts a thread. A large scan is bound by memory bandwidth, so
  // more threads help only as far as one core cannot use it all (on the
  // 2-core benchmark VM one already does: bench/RESULTS-vector.md); they
  // also compete with searches running at the same time.
  size_t threads = 0;
  // Below this many rows a search runs on the calling thread only. Default
  // 32,768: starting a thread costs tens of microseconds, under 1% of
  // scanning that many rows of 512 floats; smaller scans often run from
  // cache and gain little.
  size_t parallel_min_rows = 32768;
  // Scan int8 codes first and rescore the best candidates exactly (see
  // above). Default false: every row is scored in float. Ignored above
  // kMaxInt8Dimension.
  bool int8_scan = false;
  // int8_scan: candidates kept for exact rescoring per thread's slice,
  // max(int8_rescore_factor * k, int8_rescore_min). Defaults 4 and 40,
  // chosen on the benchmark's uniform and lowrank data (recall@10 >= 0.99
  // at 100,000 vectors; bench/RESULTS-scan.md).
  size_t int8_rescore_factor = 4;
  size_t int8_rescore_min = 40;
};

class FlatIndex final : public VectorIndex {
 public:
  explicit FlatIndex(size_t dimension, FlatIndexOptions options = {});

  size_t Dimension() const override { return dimension_; }
  size_t size() const override { return labels_.size(); }

  Status Upsert(int64_t label, std::span<const float> vector) override;
  bool Remove(int64_t label) override;
  size_t Prune(const std::function<bool(int64_t)>& keep) override;
  Result<std::vector<ScoredLabel>> Search(std::span<const float> query, size_t k,
                                          float min_score) const override;
  std::optional<float> Score(std::span<const float> query, int64_t label) const override;
  std::span<const float> Vector(int64_t label) const override;
  // The scan's own dot products are the scores: no vector is read twice.
  Result<std::vector<ScoredLabel>> SearchAndScore(
      std::span<const float> query, size_t k, float min_score, std::span<const int64_t> labels,
      std::vector<std::optional<float>>* scores) const override;
  std::vector<int64_t> Labels() const override;

  // Reserves room for `rows` vectors, so that many Upserts do not reallocate.
  void Reserve(size_t rows);

  // Approximate heap bytes held: rows, labels and the label map.
  size_t MemoryBytes() const;

 private:
  // Search; when `row_scores` is not null, every row's score is also
  // written to row_scores[row].
  Result<std::vector<ScoredLabel>> Scan(std::span<const float> query, size_t k, float min_score,
                                        float* row_scores) const;
  // The best k of rows [begin, end) into `heap` (a heap whose front is the
  // worst hit kept); row scores into row_scores[begin, end) when not null.
  void ScanRows(const float* query, size_t begin, size_t end, size_t k, float min_score,
                std::vector<ScoredLabel>* heap, float* row_scores) const;
  // ScanRows with int8 codes: the best candidates of rows [begin, end) by
  // `query_codes` (scaled by `query_scale`), rescored exactly into `heap`.
  void ScanCodes(const float* query, const int16_t* query_codes, float query_scale, size_t begin,
                 size_t end, size_t k, float min_score, std::vector<ScoredLabel>* heap) const;
  // How many threads a search over the current rows uses.
  size_t SearchThreads() const;
  // Whether rows keep int8 codes.
  bool KeepsCodes() const;
  // Row `from`'s vector, codes and label copied over row `to`.
  void MoveRow(size_t from, size_t to);
  // Keeps the first `rows` rows.
  void Truncate(size_t rows);

  size_t dimension_;
  FlatIndexOptions options_;
  std::vector<float> rows_;                     // size() * dimension_ floats
  std::vector<int64_t> labels_;                 // row -> label
  std::unordered_map<int64_t, size_t> row_of_;  // label -> row
  std::vector<int8_t> codes_;                   // int8_scan: size() * dimension_ codes
  std::vector<float> code_scales_;              // int8_scan: row -> its codes' scale
};

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_FLAT_INDEX_H_
