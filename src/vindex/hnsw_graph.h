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

  // What a save must copy while it holds the graph: hnswlib's file header
  // and every node's links, for the nodes there now. Adding a node changes
  // other nodes' links; it never changes a node's vector or label once
  // added, so a save reads those later (CopyNodeData), a piece at a time,
  // and the file it writes is the graph as it was when the links were
  // copied. About 140 bytes a node at m 16.
  class Links {
   public:
    Links(Links&&) noexcept;
    Links& operator=(Links&&) noexcept;
    ~Links();

   private:
    friend class HnswGraph;
    struct Data;
    explicit Links(std::unique_ptr<Data> data);
    std::unique_ptr<Data> data_;
  };
  // Copies the links (searches may run meanwhile; nothing may change the
  // graph).
  Links CopyLinks() const;

  // Appends nodes [first, first + count)'s vectors and labels, as the file
  // holds them, to `out`; FailedPrecondition when they are not all in the
  // graph.
  Status CopyNodeData(size_t first, size_t count, std::string* out) const;

  // What CopyNodeData gives, of the graph the links were copied from or of
  // one it became by adding nodes. A reader that can no longer give it (the
  // graph is gone) returns an error, which stops the write.
  using NodeDataReader = std::function<Status(size_t first, size_t count, std::string* out)>;
  using Sink = std::function<Status(std::string_view)>;
  // Hands hnswlib's file (what its saveIndex writes and Load reads) of the
  // graph as `links` found it to `sink` in pieces of at most 1 MiB, in
  // order, reading node data a piece at a time; stops at the first error
  // of `read` or `sink` and returns it.
  static Status WriteFile(const Links& links, const NodeDataReader& read, const Sink& sink);

  // Checks what Load read: slots 0..Nodes()-1 each once, every link to a
  // node, the entry point on the top level. Corruption naming `path`.
  Status Validate(const std::string& path) const;

  // Approximate heap bytes held.
  size_t MemoryBytes() const;

 private:
  struct Impl;
  explicit HnswGraph(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

// Checks a graph file before it is loaded: hnswlib's header against
// `dimension`, `m` and `slots`, and that the links section adds up to
// exactly `file_bytes`. Corruption naming `path` otherwise.
Status CheckGraphFile(const std::string& path, uint64_t file_bytes, size_t dimension, size_t m,
                      size_t slots);

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_HNSW_GRAPH_H_
