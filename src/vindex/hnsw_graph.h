// HnswGraph: the adapter between HnswIndex and hnswlib 0.6.2. The only code
// that includes hnswlib, and where its exceptions stop (they become Status).
//
// Nodes are numbered by slot, which is also hnswlib's label: the caller
// hands out slots 0, 1, 2, ... and maps them to its own labels. The distance
// is -Dot(a, b) with vector_math.h's kernel, so Search's scores are exact
// dot products. The vectors stored are the caller's (already unit length).
//
// File format: hnswlib's own (saveIndex/loadIndex), written here in pieces. hnswlib reads a file
// trusting every byte, so Load must only be given a file that passed
// CheckGraphFile; after loading, Validate checks every link.
//
// Thread-safety: const methods may run concurrently; Add may run
// concurrently with other Adds (hnswlib locks per node) but not with
// anything else; the rest needs exclusive access.
#ifndef ENGRAM_SRC_VINDEX_HNSW_GRAPH_H_
#define ENGRAM_SRC_VINDEX_HNSW_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

// A node found by a search: its slot and its score (dot product).
struct GraphHit {
  size_t slot = 0;
  float score = 0.0f;
};

class HnswGraph {
 public:
  // hnswlib numbers nodes with uint32 and reserves the top value.
  static constexpr size_t kMaxNodes = 0xfffffffeU;

  // An empty graph with room for `capacity` nodes (at least 1).
  static Result<std::unique_ptr<HnswGraph>> Create(size_t dimension, size_t capacity, size_t m,
                                                   size_t ef_construction, uint64_t seed);

  // Reads a graph file that passed CheckGraphFile, with room for at least
  // `capacity` nodes. Corruption naming `path` when hnswlib fails.
  static Result<std::unique_ptr<HnswGraph>> Load(const std::string& path, size_t dimension,
                                                 size_t capacity, uint64_t seed);

  ~HnswGraph();
  HnswGraph(const HnswGraph&) = delete;
  HnswGraph& operator=(const HnswGraph&) = delete;

  size_t Nodes() const;     // slots used, deleted ones included
  size_t Capacity() const;  // nodes that fit before Reserve must grow it
  size_t M() const;
  size_t EfConstruction() const;

  // Makes room for `nodes` nodes in all.
  Status Reserve(size_t nodes);

  // Inserts `vector` as node `slot`, which must be new.
  Status Add(const float* vector, size_t slot);

  // Marks `slot` deleted: searches pass through it but never return it.
  void MarkDeleted(size_t slot);
  bool IsDeleted(size_t slot) const;
  bool Has(size_t slot) const;

  // The stored vector of `slot` (Dimension floats), or null when absent.
  const float* Vector(size_t slot) const;

  // Up to `ef` nodes near `query`, not deleted, in no particular order:
  // hnswlib's search (greedy descent, then a beam of width ef on the bottom
  // layer).
  Status Search(const float* query, size_t ef, std::vector<GraphHit>* hits) const;

  // The point a save's file holds the graph at: hnswlib's file header, the
  // node count and each node's deleted mark, noted while the graph is held
  // (about a byte a node). A save then reads the nodes a piece at a time,
  // holding the graph again for each piece, and cuts every node's links
  // back to the nodes there at the point: adding a node changes other
  // nodes' links but never a node's vector, label or level, so the file is
  // the graph as it was at the point, but that a node whose links were
  // pruned for a newer node keeps fewer links.
  class SavePoint {
   public:
    SavePoint(SavePoint&&) noexcept;
    SavePoint& operator=(SavePoint&&) noexcept;
    ~SavePoint();

   private:
    friend class HnswGraph;
    struct Data;
    explicit SavePoint(std::unique_ptr<Data> data);
    std::unique_ptr<Data> data_;
  };
  // Searches may run meanwhile; nothing may change the graph.
  SavePoint MarkSavePoint() const;

  // Runs `use` on the graph a save point was marked on, held as a search
  // holds it (nothing changes it meanwhile), and returns its status; or
  // returns an error without running it when that graph is gone.
  using Use = std::function<Status(const HnswGraph&)>;
  using Hold = std::function<Status(const Use& use)>;
  using Sink = std::function<Status(std::string_view)>;
  // Hands hnswlib's file (what its saveIndex writes and Load reads) of the
  // graph at `point` to `sink` in pieces of at most about 1 MiB, in order,
  // holding the graph through `hold` only to copy each piece; stops at the
  // first error of `hold` or `sink` and returns it.
  static Status WriteFile(const SavePoint& point, const Hold& hold, const Sink& sink);

  // Checks what Load read: slots 0..Nodes()-1 each once, every link to a
  // node, the entry point on the top level. Corruption naming `path`.
  Status Validate(const std::string& path) const;

  // Approximate heap bytes held.
  size_t MemoryBytes() const;

 private:
  struct Impl;
  explicit HnswGraph(std::unique_ptr<Impl> impl);

  // Appends the bottom layer's blocks of nodes [first, first + count) as
  // of `point` to `out`. FailedPrecondition when the graph has fewer nodes
  // than the point.
  Status CopyBottomLayer(const SavePoint& point, size_t first, size_t count,
                         std::string* out) const;
  // Appends the upper layers' entries of nodes from `first` on as of
  // `point`, until about a piece's worth; returns the node after the last.
  Result<size_t> CopyUpperLayers(const SavePoint& point, size_t first, std::string* out) const;

  std::unique_ptr<Impl> impl_;
};

// Checks a graph file before it is loaded: hnswlib's header against
// `dimension`, `m` and `slots`, and that the links section adds up to
// exactly `file_bytes`. Corruption naming `path` otherwise.
Status CheckGraphFile(const std::string& path, uint64_t file_bytes, size_t dimension, size_t m,
                      size_t slots);

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_HNSW_GRAPH_H_
