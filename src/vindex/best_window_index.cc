#include "src/vindex/best_window_index.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_set>
#include <utility>

#include "src/vindex/vector_math.h"

namespace engram {

BestWindowIndex::BestWindowIndex(std::unique_ptr<VectorIndex> inner, size_t max_windows)
    : inner_(std::move(inner)),
      max_windows_(std::max<size_t>(max_windows, 1)),
      documents_with_(max_windows_ + 1, 0) {}

size_t BestWindowIndex::WindowsOf(int64_t label) const {
  const auto found = windows_.find(label);
  return found == windows_.end() ? 0 : found->second;
}

void BestWindowIndex::Forget(int64_t label, size_t windows) {
  for (size_t w = 0; w < windows; ++w) inner_->Remove(InnerLabel(label, w));
  --documents_with_[windows];
  windows_.erase(label);
}

size_t BestWindowIndex::MostWindows() const {
  for (size_t n = max_windows_; n > 0; --n) {
    if (documents_with_[n] > 0) return n;
  }
  return 0;
}

Status BestWindowIndex::Upsert(int64_t label, std::span<const float> vector) {
  const size_t dimension = Dimension();
  ENGRAM_RETURN_IF_ERROR(CheckWindows(vector, dimension, max_windows_));
  if (label < 0 ||
      label >= std::numeric_limits<int64_t>::max() / static_cast<int64_t>(max_windows_)) {
    return InvalidArgument("vindex: best window: label " + std::to_string(label) +
                           " is out of range");
  }
  if (const size_t old = WindowsOf(label); old > 0) Forget(label, old);
  const size_t windows = vector.size() / dimension;
  for (size_t w = 0; w < windows; ++w) {
    // Checked above, so the inner index takes every window.
    Status ok = inner_->Upsert(InnerLabel(label, w), vector.subspan(w * dimension, dimension));
    if (!ok.ok()) {
      for (size_t taken = 0; taken < w; ++taken) inner_->Remove(InnerLabel(label, taken));
      return ok;
    }
  }
  windows_[label] = windows;
  ++documents_with_[windows];
  return Status::OK();
}

bool BestWindowIndex::Remove(int64_t label) {
  const size_t windows = WindowsOf(label);
  if (windows == 0) return false;
  Forget(label, windows);
  return true;
}

size_t BestWindowIndex::Prune(const std::function<bool(int64_t)>& keep) {
  std::unordered_set<int64_t> dropped;
  for (const auto& [label, windows] : windows_) {
    if (!keep(label)) dropped.insert(label);
  }
  if (dropped.empty()) return 0;
  const auto m = static_cast<int64_t>(max_windows_);
  inner_->Prune([&](int64_t inner) { return dropped.count(inner / m) == 0; });
  for (const int64_t label : dropped) {
    --documents_with_[windows_[label]];
    windows_.erase(label);
  }
  return dropped.size();
}

std::vector<ScoredLabel> BestWindowIndex::BestPerDocument(const std::vector<ScoredLabel>& inner,
                                                          size_t k) const {
  const auto m = static_cast<int64_t>(max_windows_);
  std::vector<ScoredLabel> hits;
  hits.reserve(std::min(k, inner.size()));
  std::unordered_set<int64_t> seen;
  for (const ScoredLabel& hit : inner) {
    if (hits.size() == k) break;
    const int64_t document = hit.label / m;
    if (seen.insert(document).second) hits.push_back(ScoredLabel{document, hit.score});
  }
  return hits;
}

Result<std::vector<ScoredLabel>> BestWindowIndex::Search(std::span<const float> query, size_t k,
                                                         float min_score) const {
  std::vector<std::optional<float>> unused;
  return SearchAndScore(query, k, min_score, {}, &unused);
}

Result<std::vector<ScoredLabel>> BestWindowIndex::SearchAndScore(
    std::span<const float> query, size_t k, float min_score, std::span<const int64_t> labels,
    std::vector<std::optional<float>>* scores) const {
  std::vector<int64_t> inner_labels;
  for (const int64_t label : labels) {
    for (size_t w = 0; w < WindowsOf(label); ++w) inner_labels.push_back(InnerLabel(label, w));
  }
  // k documents are among the best k * MostWindows() windows.
  const size_t most = std::max<size_t>(MostWindows(), 1);
  const size_t inner_k = k > inner_->size() / most ? inner_->size() : k * most;
  std::vector<std::optional<float>> inner_scores;
  ENGRAM_ASSIGN_OR_RETURN(
      std::vector<ScoredLabel> inner,
      inner_->SearchAndScore(query, inner_k, min_score, inner_labels, &inner_scores));
  scores->assign(labels.size(), std::nullopt);
  size_t next = 0;  // into inner_scores, in the order inner_labels was built
  for (size_t i = 0; i < labels.size(); ++i) {
    const size_t windows = WindowsOf(labels[i]);
    for (size_t w = 0; w < windows; ++w, ++next) {
      const std::optional<float>& s = inner_scores[next];
      if (s && (!(*scores)[i] || *s > *(*scores)[i])) (*scores)[i] = s;
    }
  }
  return BestPerDocument(inner, k);
}

std::optional<float> BestWindowIndex::Score(std::span<const float> query, int64_t label) const {
  std::optional<float> best;
  for (size_t w = 0; w < WindowsOf(label); ++w) {
    const std::optional<float> s = inner_->Score(query, InnerLabel(label, w));
    if (s && (!best || *s > *best)) best = s;
  }
  return best;
}

std::span<const float> BestWindowIndex::Vector(int64_t label) const {
  if (WindowsOf(label) == 0) return {};
  return inner_->Vector(InnerLabel(label, 0));
}

std::vector<int64_t> BestWindowIndex::Labels() const {
  std::vector<int64_t> labels;
  labels.reserve(windows_.size());
  for (const auto& [label, windows] : windows_) labels.push_back(label);
  std::sort(labels.begin(), labels.end());
  return labels;
}

std::unique_ptr<VectorIndex> NewExactIndex(size_t dimension, size_t max_windows, size_t reserve,
                                           FlatIndexOptions options) {
  auto flat = std::make_unique<FlatIndex>(dimension, options);
  flat->Reserve(reserve);
  if (max_windows <= 1) return flat;
  return std::make_unique<BestWindowIndex>(std::move(flat), max_windows);
}

}  // namespace engram
