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
// of its bytes, with a bound on how far its codes' score can be from its
// float score, and a search first scans the codes, then scores exactly
// from the float rows only the rows whose bound reaches the k-th best
// lower bound: every other row scores below k rows for certain. So the
// hits, their order and their scores are those of the float scan, bit for
// bit, whatever the data; what the codes save is the reading of every
// float row (a quarter of the bytes). It costs a quarter more memory.
//
// The bound of row v, stored as int8 codes c with scale s, against query q,
// as int16 codes d with scale t: v.q = s t (c.d) + s c.(q - t d) + (v - s c).q,
// so |v.q - s t (c.d)| <= |s c| |q - t d| + |v - s c| |q| (Cauchy-Schwarz),
// plus an allowance of twice n 2^-24 |q| for the rounding of the float dot
// product of a unit row (3.1e-5 |q| at 512 dimensions, at most).
//
// Thread-safety: as VectorIndex. Search() may start threads of its own
// (FlatIndexOptions); it joins them before it returns.
#ifndef ENGRAM_SRC_VINDEX_FLAT_INDEX_H_
#define ENGRAM_SRC_VINDEX_FLAT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <span>
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
  // Scan int8 codes first and score exactly the rows that may be hits (see
  // above). Default false: every row is scored in float. Ignored above
  // kMaxInt8Dimension.
  bool int8_scan = false;
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
  // A query as the code scan reads it: its int16 codes and their scale, its
  // length, and the length of what its codes leave out.
  struct QueryCodes {
    std::vector<int16_t> codes;
    float scale = 0.0f;
    double norm = 0.0;
    double error = 0.0;
  };
  // A stored row's codes as the bound reads them: their scale, the length
  // of the row they leave out (|v - s c|), and their own length (|s c|),
  // both rounded up.
  struct CodeBound {
    float scale = 0.0f;
    float error = 0.0f;
    float norm = 0.0f;
  };
  static QueryCodes CodesOfQuery(std::span<const float> query);
  static CodeBound CodeRow(std::span<const float> row, int8_t* codes);
  // ScanRows with int8 codes: the best k of rows [begin, end) into `heap`,
  // the same as ScanRows finds, scoring in float only the rows the bound
  // cannot rule out.
  void ScanCodes(const float* query, const QueryCodes& codes, size_t begin, size_t end, size_t k,
                 float min_score, std::vector<ScoredLabel>* heap) const;
  // The float score of each of `labels` (nullopt for a label not here),
  // read in row order.
  void ScoreLabels(const float* query, std::span<const int64_t> labels,
                   std::vector<std::optional<float>>* scores) const;
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
  std::vector<CodeBound> code_bounds_;          // int8_scan: row -> its codes' scale and bound
};

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_FLAT_INDEX_H_
