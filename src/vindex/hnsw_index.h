// HnswIndex: approximate search on an HNSW graph (hnswlib 0.6.2), for
// indexes too large to scan (DESIGN §6). Tests measure its recall against
// FlatIndex.
//
// The graph (HnswGraph, the hnswlib adapter) uses its own inner-product
// space: distance = -Dot(a, b) with the dot product of vector_math.h (AVX2
// when the CPU has it). So a hit's score is exact, bit for bit the score
// FlatIndex gives the same vector; only which labels come back is
// approximate. A search collects max(k, ef) candidates from the graph and
// ranks them by the shared order (score desc, label asc) before keeping k.
//
// Each stored vector sits in a graph slot (hnswlib's label is the slot
// number). Remove marks the slot deleted; Upsert of a present label adds a
// new slot and marks the old one deleted. Deleted slots stay in the graph as
// waypoints and keep their memory until the index is rebuilt; DeletedCount()
// tells when that is worth it. (hnswlib 0.6.2's in-place updatePoint is
// not used: new slots keep every change on its main insertion path.)
//
// Persistence: Save writes the hnswlib graph to `path` and a meta file to
// MetaPath(path) (magic, version, dimension, counts, the caller's stamp,
// the graph's size and checksum, the slot labels, its own checksum), each
// through a temporary file and a rename, the meta file last. The graph's
// checksum is taken as it is written, and a save can be split so that its
// caller holds the index only to mark where it starts and to copy each
// piece of the file (StartSave, PendingSave).
// Load checks all of it before hnswlib reads a byte, so a truncated, stale
// or garbage file gives an error naming the file, never a crash.
//
// Thread-safety: as VectorIndex. Search may run concurrently with other
// searches. UpsertBatch starts threads of its own and joins them.
#ifndef ENGRAM_SRC_VINDEX_HNSW_INDEX_H_
#define ENGRAM_SRC_VINDEX_HNSW_INDEX_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/vindex/flat_index.h"
#include "src/vindex/hnsw_graph.h"
#include "src/vindex/vector_index.h"

namespace engram {

struct HnswIndexOptions {
  // Links per node on the upper layers (2m on the bottom layer). Default 16;
  // range [2, 1024]. More links: better recall at a given ef_search, more
  // memory (8m + 4 bytes per vector on the bottom layer) and slower builds.
  // A loaded index keeps the m it was built with.
  size_t m = 16;
  // Candidate list size while inserting. Default 200; at least 1. Larger
  // builds a better graph, more slowly. A loaded index keeps its own.
  size_t ef_construction = 200;
  // Candidate list size while searching (max(k, ef_search) is used).
  // Default 160: on 512-d vectors of low intrinsic dimension, as embeddings
  // are, 128 gave recall@10 about 0.97 at 100k vectors
  // (bench/RESULTS-vector.md) but 0.94 at 200k, where 160 gave 0.96 with a
  // p50 of 1.4 ms (bench/RESULTS-hnsw-live.md); 64 drops to about 0.88.
  // Larger: higher recall, searches slower in proportion. Vectors of pure
  // noise (uniform on the sphere) are hopeless for any graph: 0.12 at 128,
  // so exact search is better there. The dev datasets are too small to
  // reach an HNSW index, so this is chosen on generated vectors alone.
  size_t ef_search = 160;
  // Slots allocated up front; the capacity doubles when full. Default 1024.
  size_t initial_capacity = 1024;
  // Threads UpsertBatch inserts with. Default 0 = hardware_concurrency().
  // 1 builds the same graph every run; more threads build faster but the
  // graph (not its quality) depends on scheduling.
  size_t build_threads = 0;
  // Seed of the random layer assignment. Default 100 (hnswlib's).
  uint64_t random_seed = 100;
};

class HnswIndex final : public VectorIndex {
 public:
  // An empty index. InvalidArgument for dimension 0 or options out of range.
  static Result<std::unique_ptr<HnswIndex>> Create(size_t dimension,
                                                   const HnswIndexOptions& options = {});

  // A loaded graph has room for this share of its slots (at least
  // options.initial_capacity) more before it must grow.
  static constexpr size_t kLoadHeadroomShare = 8;

  // Reads an index written by Save. NotFound when `path` or its meta file is
  // missing; Corruption (the message names the file) when anything does not
  // check out: magic, version, dimension, sizes, checksums, graph structure.
  // `stamp`, when not null, receives the stamp given to Save.
  static Result<std::unique_ptr<HnswIndex>> Load(const std::string& path, size_t dimension,
                                                 const HnswIndexOptions& options,
                                                 std::string* stamp);

  // The meta file beside a graph file: path + ".meta".
  static std::string MetaPath(const std::string& path);

  ~HnswIndex() override;
  HnswIndex(const HnswIndex&) = delete;
  HnswIndex& operator=(const HnswIndex&) = delete;

  size_t Dimension() const override { return dimension_; }
  size_t size() const override { return slot_of_.size() + deferred_.size(); }

  Status Upsert(int64_t label, std::span<const float> vector) override;
  bool Remove(int64_t label) override;
  size_t Prune(const std::function<bool(int64_t)>& keep) override;
  Result<std::vector<ScoredLabel>> Search(std::span<const float> query, size_t k,
                                          float min_score) const override;
  std::optional<float> Score(std::span<const float> query, int64_t label) const override;
  std::span<const float> Vector(int64_t label) const override;
  std::vector<int64_t> Labels() const override;

  // Search with a per-call candidate list size instead of options.ef_search.
  Result<std::vector<ScoredLabel>> SearchWithEf(std::span<const float> query, size_t k,
                                                float min_score, size_t ef) const;

  // Upserts labels[i] with vectors [i * dimension, (i + 1) * dimension), on
  // options.build_threads threads. Every vector is checked first: on
  // InvalidArgument (bad vector, size mismatch, a label twice) the index is
  // unchanged.
  Status UpsertBatch(std::span<const int64_t> labels, std::span<const float> vectors);

  // Deferred vectors: upserted at once, for a few microseconds each, into a
  // set beside the graph that every search scans exactly, and moved into
  // the graph later by InsertDeferred, a millisecond or two each. Searches,
  // scores, labels and removals see a deferred vector as any other; only
  // the files a save writes leave it out (a process that loads them
  // catches up from the store). The same checks as UpsertBatch.
  //
  // While a save is pending (from StartSave until its PendingSave is gone)
  // nothing enters the graph, so that its links stay as the save found
  // them: Upsert, and UpsertBatch into a graph that has nodes, defer, and
  // InsertDeferred moves none.
  Status Defer(std::span<const int64_t> labels, std::span<const float> vectors);
  // Moves deferred vectors into the graph, oldest first, until `budget` has
  // passed (at least one when any is deferred and no save is pending);
  // returns how many it moved.
  size_t InsertDeferred(std::chrono::steady_clock::duration budget);
  size_t DeferredCount() const { return deferred_.size(); }
  bool SavePending() const { return pending_saves_->load(std::memory_order_acquire) > 0; }

  // Writes the index to `path` and MetaPath(path), with `stamp` (any bytes,
  // e.g. a generation number) to be returned by Load. IOError naming the
  // file when a write fails. StartSave, WriteGraph and Commit in one.
  Status Save(const std::string& path, const std::string& stamp) const;

  // A save in three steps, for a caller that holds the index only briefly
  // (VectorCache's background saves). StartSave marks the point the files
  // will hold the index at (HnswGraph::SavePoint, with the slot labels:
  // about 9 bytes a vector); it must run with the index held as a search
  // holds it. PendingSave::WriteGraph then writes the graph into a
  // temporary file beside `path` a piece of about 1 MiB at a time, holding
  // the index through `hold` only to copy each piece from memory, and
  // encodes the meta file. Commit syncs the graph and puts both files in
  // place. The files hold the index as it was at StartSave, though vectors
  // were added and removed between the pieces (added ones wait beside the
  // graph until the save is gone: see Defer). A PendingSave dropped before
  // Commit removes its temporary file.
  //
  // `hold(use)` runs `use` on the index StartSave was called on, held as a
  // search holds it, and returns its status; or, when that index is gone,
  // returns an error without running it (which stops the write).
  using Use = std::function<Status(const HnswIndex&)>;
  using Hold = std::function<Status(const Use& use)>;
  class PendingSave {
   public:
    PendingSave(PendingSave&&) noexcept;
    PendingSave& operator=(PendingSave&&) noexcept;
    ~PendingSave();
    Status WriteGraph(const Hold& hold);
    // FailedPrecondition unless WriteGraph succeeded, and after a Commit.
    Status Commit();

   private:
    friend class HnswIndex;
    struct State;
    explicit PendingSave(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
  Result<PendingSave> StartSave(const std::string& path, const std::string& stamp) const;

  // A number no other HnswIndex of this process had or will have: a caller
  // that let go of an index and finds one again tells by it whether it is
  // the same (an address may be reused).
  uint64_t Serial() const { return serial_; }

  // Slots held by removed or replaced vectors.
  size_t DeletedCount() const;
  // Slots the graph holds before it must grow (which copies all of it).
  size_t Capacity() const { return graph_->Capacity(); }

  // Approximate heap bytes held: graph, vectors and label maps.
  size_t MemoryBytes() const;

 private:
  HnswIndex(size_t dimension, const HnswIndexOptions& options, std::unique_ptr<HnswGraph> graph);
  // InvalidArgument naming `what` unless `vectors` holds one good vector
  // per label and no label comes twice.
  Status CheckBatch(const char* what, std::span<const int64_t> labels,
                    std::span<const float> vectors) const;
  // Adds unit vector `unit` to the graph as `label`, replacing the label's
  // node when it has one.
  Status AddToGraph(int64_t label, std::span<const float> unit);

  const uint64_t serial_;
  size_t dimension_;
  HnswIndexOptions options_;
  std::unique_ptr<HnswGraph> graph_;
  std::vector<int64_t> slot_label_;                // slot -> label (stale if deleted)
  std::unordered_map<int64_t, uint32_t> slot_of_;  // live label -> slot
  // Deferred vectors, searched exactly; a label is here or in slot_of_,
  // never both. deferred_order_ holds them oldest first (with labels since
  // removed, skipped when met).
  FlatIndex deferred_;
  std::deque<int64_t> deferred_order_;
  // Saves started and not yet dropped; shared with their PendingSaves,
  // which may outlive the index.
  std::shared_ptr<std::atomic<int>> pending_saves_ = std::make_shared<std::atomic<int>>(0);
};

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_HNSW_INDEX_H_
