#include "src/vindex/mapped_flat_index.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "src/vindex/row_scan.h"
#include "src/vindex/top_k.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

// The changed vectors are few and scanned on the calling thread, like the
// snapshot's.
FlatIndexOptions OneThread() {
  FlatIndexOptions options;
  options.threads = 1;
  return options;
}

}  // namespace

MappedFlatIndex::MappedFlatIndex(size_t dimension, FlatSnapshot snapshot)
    : dimension_(dimension),
      snapshot_(std::move(snapshot)),
      gone_(snapshot_.rows, false),
      snapshot_live_(snapshot_.rows),
      changed_(dimension, OneThread()) {}

Result<std::unique_ptr<MappedFlatIndex>> MappedFlatIndex::Open(const std::string& path,
                                                               size_t dimension,
                                                               std::string* stamp) {
  ENGRAM_ASSIGN_OR_RETURN(FlatSnapshot snapshot, OpenFlatSnapshot(path, dimension));
  if (stamp != nullptr) *stamp = snapshot.stamp;
  return std::unique_ptr<MappedFlatIndex>(new MappedFlatIndex(dimension, std::move(snapshot)));
}

std::optional<size_t> MappedFlatIndex::LiveRow(int64_t label) const {
  const int64_t* end = snapshot_.labels + snapshot_.rows;
  const int64_t* found = std::lower_bound(snapshot_.labels, end, label);
  if (found == end || *found != label) return std::nullopt;
  const auto row = static_cast<size_t>(found - snapshot_.labels);
  if (gone_[row]) return std::nullopt;
  return row;
}

Status MappedFlatIndex::Upsert(int64_t label, std::span<const float> vector) {
  // Into the changed vectors first: a bad one leaves the index as it was.
  ENGRAM_RETURN_IF_ERROR(changed_.Upsert(label, vector));
  if (const std::optional<size_t> row = LiveRow(label)) {
    gone_[*row] = true;
    --snapshot_live_;
  }
  return Status::OK();
}

bool MappedFlatIndex::Remove(int64_t label) {
  if (changed_.Remove(label)) return true;
  const std::optional<size_t> row = LiveRow(label);
  if (!row) return false;
  gone_[*row] = true;
  --snapshot_live_;
  return true;
}

size_t MappedFlatIndex::Prune(const std::function<bool(int64_t)>& keep) {
  size_t removed = changed_.Prune(keep);
  for (size_t row = 0; row < snapshot_.rows; ++row) {
    if (gone_[row] || keep(snapshot_.labels[row])) continue;
    gone_[row] = true;
    --snapshot_live_;
    ++removed;
  }
  return removed;
}

Result<std::vector<ScoredLabel>> MappedFlatIndex::Scan(std::span<const float> query, size_t k,
                                                       float min_score, float* row_scores) const {
  ENGRAM_RETURN_IF_ERROR(CheckVector(query, dimension_));
  std::vector<ScoredLabel> hits;
  if (k == 0 || size() == 0) return hits;
  ScanRowRange(query.data(), snapshot_.vectors, snapshot_.labels, dimension_, 0, snapshot_.rows, k,
               min_score, &gone_, &hits, row_scores);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ScoredLabel> changed, changed_.Search(query, k, min_score));
  hits.insert(hits.end(), changed.begin(), changed.end());
  SortHits(k, &hits);
  return hits;
}

Result<std::vector<ScoredLabel>> MappedFlatIndex::Search(std::span<const float> query, size_t k,
                                                         float min_score) const {
  return Scan(query, k, min_score, nullptr);
}

Result<std::vector<ScoredLabel>> MappedFlatIndex::SearchAndScore(
    std::span<const float> query, size_t k, float min_score, std::span<const int64_t> labels,
    std::vector<std::optional<float>>* scores) const {
  std::vector<float> row_scores(snapshot_.rows);
  // k == 0 still scans: the labels want their scores.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ScoredLabel> hits,
                          Scan(query, std::max<size_t>(k, 1), min_score, row_scores.data()));
  if (k == 0) hits.clear();
  scores->clear();
  scores->reserve(labels.size());
  for (const int64_t label : labels) {
    if (const std::optional<size_t> row = LiveRow(label)) {
      scores->push_back(row_scores[*row]);
    } else {
      scores->push_back(changed_.Score(query, label));
    }
  }
  return hits;
}

std::optional<float> MappedFlatIndex::Score(std::span<const float> query, int64_t label) const {
  if (query.size() != dimension_) return std::nullopt;
  if (const std::optional<size_t> row = LiveRow(label)) {
    return Dot(query.data(), snapshot_.vectors + (*row * dimension_), dimension_);
  }
  return changed_.Score(query, label);
}

std::span<const float> MappedFlatIndex::Vector(int64_t label) const {
  if (const std::optional<size_t> row = LiveRow(label)) {
    return {snapshot_.vectors + (*row * dimension_), dimension_};
  }
  return changed_.Vector(label);
}

std::vector<int64_t> MappedFlatIndex::Labels() const {
  std::vector<int64_t> live;
  live.reserve(snapshot_live_);
  for (size_t row = 0; row < snapshot_.rows; ++row) {
    if (!gone_[row]) live.push_back(snapshot_.labels[row]);
  }
  const std::vector<int64_t> changed = changed_.Labels();
  std::vector<int64_t> labels;
  labels.reserve(live.size() + changed.size());
  std::merge(live.begin(), live.end(), changed.begin(), changed.end(), std::back_inserter(labels));
  return labels;
}

}  // namespace engram
