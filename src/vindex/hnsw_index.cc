#include "src/vindex/hnsw_index.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_set>
#include <utility>

#include "src/vindex/hnsw_graph.h"
#include "src/vindex/top_k.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

constexpr size_t kMaxM = 1024;
// HnswIndex::Serial of the next index made.
std::atomic<uint64_t> next_serial{1};

}  // namespace

HnswIndex::HnswIndex(size_t dimension, const HnswIndexOptions& options,
                     std::unique_ptr<HnswGraph> graph)
    : serial_(next_serial.fetch_add(1, std::memory_order_relaxed)),
      dimension_(dimension),
      options_(options),
      graph_(std::move(graph)),
      deferred_(dimension) {}

HnswIndex::~HnswIndex() = default;

Result<std::unique_ptr<HnswIndex>> HnswIndex::Create(size_t dimension,
                                                     const HnswIndexOptions& options) {
  if (dimension == 0) return InvalidArgument("vindex: hnsw create: dimension is 0");
  if (options.m < 2 || options.m > kMaxM) {
    return InvalidArgument("vindex: hnsw create: m is " + std::to_string(options.m) + ", want 2.." +
                           std::to_string(kMaxM));
  }
  if (options.ef_construction == 0) {
    return InvalidArgument("vindex: hnsw create: ef_construction is 0");
  }
  ENGRAM_ASSIGN_OR_RETURN(auto graph,
                          HnswGraph::Create(dimension, options.initial_capacity, options.m,
                                            options.ef_construction, options.random_seed));
  return std::unique_ptr<HnswIndex>(new HnswIndex(dimension, options, std::move(graph)));
}

std::string HnswIndex::MetaPath(const std::string& path) { return path + ".meta"; }

Status HnswIndex::Upsert(int64_t label, std::span<const float> vector) {
  if (!deferred_.Vector(label).empty()) return deferred_.Upsert(label, vector);
  if (SavePending()) return Defer(std::span(&label, 1), vector);
  ENGRAM_RETURN_IF_ERROR(CheckVector(vector, dimension_));
  std::vector<float> unit(vector.begin(), vector.end());
  ENGRAM_RETURN_IF_ERROR(NormalizeInPlace(unit));
  return AddToGraph(label, unit);
}

Status HnswIndex::AddToGraph(int64_t label, std::span<const float> unit) {
  const size_t slot = slot_label_.size();
  ENGRAM_RETURN_IF_ERROR(graph_->Reserve(std::max(slot, graph_->Nodes()) + 1));
  ENGRAM_RETURN_IF_ERROR(graph_->Add(unit.data(), slot));
  slot_label_.push_back(label);
  const auto [entry, inserted] = slot_of_.try_emplace(label, static_cast<uint32_t>(slot));
  if (!inserted) {
    graph_->MarkDeleted(entry->second);
    entry->second = static_cast<uint32_t>(slot);
  }
  return Status::OK();
}

Status HnswIndex::CheckBatch(const char* what, std::span<const int64_t> labels,
                             std::span<const float> vectors) const {
  const size_t count = labels.size();
  if (vectors.size() != count * dimension_) {
    return InvalidArgument(std::string("vindex: hnsw ") + what + ": " +
                           std::to_string(vectors.size()) + " floats for " + std::to_string(count) +
                           " labels of dimension " + std::to_string(dimension_));
  }
  std::unordered_set<int64_t> seen;
  seen.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const Status status = CheckVector(vectors.subspan(i * dimension_, dimension_), dimension_);
    if (!status.ok()) {
      return InvalidArgument(std::string("vindex: hnsw ") + what + ": vector " + std::to_string(i) +
                             ": " + status.message());
    }
    if (!seen.insert(labels[i]).second) {
      return InvalidArgument(std::string("vindex: hnsw ") + what + ": label " +
                             std::to_string(labels[i]) + " appears twice");
    }
  }
  return Status::OK();
}

Status HnswIndex::Defer(std::span<const int64_t> labels, std::span<const float> vectors) {
  ENGRAM_RETURN_IF_ERROR(CheckBatch("defer", labels, vectors));
  for (size_t i = 0; i < labels.size(); ++i) {
    // Checked above, so this cannot fail.
    deferred_.Upsert(labels[i], vectors.subspan(i * dimension_, dimension_)).IgnoreError();
    if (const auto node = slot_of_.find(labels[i]); node != slot_of_.end()) {
      graph_->MarkDeleted(node->second);  // replaced: the deferred vector is the label's now
      slot_of_.erase(node);
    }
    deferred_order_.push_back(labels[i]);
  }
  return Status::OK();
}

size_t HnswIndex::InsertDeferred(std::chrono::steady_clock::duration budget) {
  if (SavePending()) return 0;
  const auto start = std::chrono::steady_clock::now();
  size_t moved = 0;
  while (!deferred_order_.empty()) {
    const int64_t label = deferred_order_.front();
    const std::span<const float> vector = deferred_.Vector(label);
    if (vector.empty()) {  // removed, or moved already
      deferred_order_.pop_front();
      continue;
    }
    // Growing the graph can fail (its node limit, no memory left): the
    // vector then stays searchable among the deferred, first in line.
    if (!AddToGraph(label, vector).ok()) break;
    deferred_.Remove(label);
    deferred_order_.pop_front();
    ++moved;
    if (std::chrono::steady_clock::now() - start >= budget) break;
  }
  return moved;
}

Status HnswIndex::UpsertBatch(std::span<const int64_t> labels, std::span<const float> vectors) {
  if (SavePending() && graph_->Nodes() > 0) return Defer(labels, vectors);
  const size_t count = labels.size();
  ENGRAM_RETURN_IF_ERROR(CheckBatch("upsert batch", labels, vectors));
  for (const int64_t label : labels) deferred_.Remove(label);
  if (count == 0) return Status::OK();
  const size_t base = slot_label_.size();
  ENGRAM_RETURN_IF_ERROR(graph_->Reserve(std::max(base, graph_->Nodes()) + count));

  // Workers take vectors in turn; hnswlib locks the nodes it links.
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  Status error;
  const auto insert = [&] {
    std::vector<float> unit(dimension_);
    for (size_t i = next++; i < count && !failed; i = next++) {
      std::copy_n(vectors.begin() + static_cast<ptrdiff_t>(i * dimension_), dimension_,
                  unit.begin());
      // Checked above, so this only scales.
      NormalizeInPlace(unit).IgnoreError();
      Status status = graph_->Add(unit.data(), base + i);
      if (!status.ok()) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (error.ok()) error = std::move(status);
        failed = true;
      }
    }
  };
  size_t threads = options_.build_threads;
  if (threads == 0) threads = std::max<size_t>(1, std::thread::hardware_concurrency());
  threads = std::min(threads, count);
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t) {
    try {
      workers.emplace_back(insert);
    } catch (const std::system_error&) {
      break;  // fewer threads; the calling thread still inserts
    }
  }
  insert();
  for (std::thread& worker : workers) worker.join();

  slot_label_.insert(slot_label_.end(), labels.begin(), labels.end());
  if (failed) {
    // Keep the map and the graph consistent: what was inserted is dropped.
    for (size_t i = 0; i < count; ++i) {
      if (graph_->Has(base + i)) graph_->MarkDeleted(base + i);
    }
    return error;
  }
  for (size_t i = 0; i < count; ++i) {
    const auto slot = static_cast<uint32_t>(base + i);
    const auto [entry, inserted] = slot_of_.try_emplace(labels[i], slot);
    if (!inserted) {
      graph_->MarkDeleted(entry->second);
      entry->second = slot;
    }
  }
  return Status::OK();
}

bool HnswIndex::Remove(int64_t label) {
  if (deferred_.Remove(label)) return true;
  const auto found = slot_of_.find(label);
  if (found == slot_of_.end()) return false;
  graph_->MarkDeleted(found->second);
  slot_of_.erase(found);
  return true;
}

size_t HnswIndex::Prune(const std::function<bool(int64_t)>& keep) {
  std::vector<int64_t> doomed;
  for (const auto& [label, slot] : slot_of_) {
    if (!keep(label)) doomed.push_back(label);
  }
  for (const int64_t label : doomed) Remove(label);
  return doomed.size() + deferred_.Prune(keep);
}

Result<std::vector<ScoredLabel>> HnswIndex::Search(std::span<const float> query, size_t k,
                                                   float min_score) const {
  return SearchWithEf(query, k, min_score, options_.ef_search);
}

Result<std::vector<ScoredLabel>> HnswIndex::SearchWithEf(std::span<const float> query, size_t k,
                                                         float min_score, size_t ef) const {
  ENGRAM_RETURN_IF_ERROR(CheckVector(query, dimension_));
  std::vector<ScoredLabel> hits;
  if (k == 0) return hits;
  if (!slot_of_.empty()) {
    std::vector<GraphHit> found;
    ENGRAM_RETURN_IF_ERROR(graph_->Search(query.data(), std::max(k, ef), &found));
    hits.reserve(found.size());
    for (const GraphHit& hit : found) {
      if (hit.score >= min_score) hits.push_back({slot_label_[hit.slot], hit.score});
    }
  }
  if (deferred_.size() > 0) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ScoredLabel> exact, deferred_.Search(query, k, min_score));
    hits.insert(hits.end(), exact.begin(), exact.end());
  }
  SortHits(k, &hits);
  return hits;
}

std::optional<float> HnswIndex::Score(std::span<const float> query, int64_t label) const {
  if (query.size() != dimension_) return std::nullopt;
  const auto found = slot_of_.find(label);
  if (found == slot_of_.end()) return deferred_.Score(query, label);
  const float* vector = graph_->Vector(found->second);
  if (vector == nullptr) return std::nullopt;
  return Dot(query.data(), vector, dimension_);
}

std::span<const float> HnswIndex::Vector(int64_t label) const {
  const auto found = slot_of_.find(label);
  if (found == slot_of_.end()) return deferred_.Vector(label);
  const float* vector = graph_->Vector(found->second);
  if (vector == nullptr) return {};
  return {vector, dimension_};
}

std::vector<int64_t> HnswIndex::Labels() const {
  std::vector<int64_t> labels = deferred_.Labels();
  labels.reserve(size());
  for (const auto& [label, slot] : slot_of_) labels.push_back(label);
  std::sort(labels.begin(), labels.end());
  return labels;
}

size_t HnswIndex::DeletedCount() const { return slot_label_.size() - slot_of_.size(); }

size_t HnswIndex::MemoryBytes() const {
  // Label map nodes (key, value, next pointer) and buckets.
  return graph_->MemoryBytes() + deferred_.MemoryBytes() +
         (deferred_order_.size() * sizeof(int64_t)) + (slot_label_.capacity() * sizeof(int64_t)) +
         (slot_of_.size() * (sizeof(int64_t) + sizeof(void*) + 8)) +
         (slot_of_.bucket_count() * sizeof(void*));
}

}  // namespace engram
