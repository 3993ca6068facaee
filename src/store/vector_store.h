// VectorStore: embedding spaces and fact vectors of a Store (DESIGN §6). The source of truth for
// vectors; in-memory indexes are built from it and kept in step by label (a vector's rowid, never
// reused).
//
// A space is provider + model + dimension. A blob is laid out as
// src/common/vector_blob.h says: float32, `dimension` per vector, and one
// vector per fact except in a windowed space, where a fact's blob holds up
// to EmbeddingSpace::MaxVectorsPerDocument() (one per window of its text); a
// blob of any other size reads as Corruption. A fact has at most one blob
// per space; deleting the fact deletes its vectors (schema trigger).
//
// Thread-safety: none; it works on its Store's connection, one thread at a
// time. Mutations must run inside Store::Transact().
#ifndef ENGRAM_SRC_STORE_VECTOR_STORE_H_
#define ENGRAM_SRC_STORE_VECTOR_STORE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/embedder.h"
#include "engram/fact.h"
#include "engram/status.h"

namespace engram {

struct SpaceInfo {
  int64_t id = 0;
  EmbeddingSpace space;
  Timestamp created_at = 0;
  int64_t vectors = 0;  // vectors stored in the space
};

// A stored vector's label and the fact it belongs to.
struct VectorRef {
  int64_t vector_id = 0;
  int64_t fact_rowid = 0;
};

// A fact that has no vector in a space yet.
struct FactToEmbed {
  std::string scope;
  int64_t rowid = 0;
  std::string id;  // the fact id: a vector is stored only if it still matches
  std::string content;
};

// Copies `blob`, the stored vectors of vector `id`, into `buffer`:
// Corruption naming the vector unless it holds 1 to `max_vectors` vectors
// of `dimension` floats. `owner` names what the id numbers ("vector",
// "chunk") in that message.
Status CopyVectorBlob(std::string_view blob, int64_t id, size_t dimension, size_t max_vectors,
                      std::vector<float>* buffer, std::string_view owner = "vector");

// Where a scope's vectors in a space stand. A reader whose version of a
// scope is unchanged has nothing to read again: no version comes back
// once left, since `removed` never goes back and, while it holds still,
// only adds happen, each moving `added` forward.
struct VectorsVersion {
  // Moves whenever a vector of the scope is added by any connection (it
  // may move more often): SQLite's data_version, which any commit by
  // another connection moves; PostgreSQL's largest label of the scope.
  int64_t added = 0;
  // How many vectors were ever deleted from the scope (an implementation
  // may count the whole space: SQLite does), counted by the schema's
  // triggers on every path (a fact deleted, a vector replaced, pruned or
  // deleted). While it holds still, the scope's vectors only grow.
  int64_t removed = 0;
  // When the space was created (embedding_spaces.created_at): it never
  // moves, and names the space of this store apart from one of the same id
  // in a store created again at the same place, whose labels are other
  // vectors (a flat snapshot says which it was read from). 0 when the
  // space is not there.
  int64_t space_created_at = 0;

  friend bool operator==(const VectorsVersion&, const VectorsVersion&) = default;
};

class VectorStore {
 public:
  virtual ~VectorStore() = default;

  // The space's id, creating the space when it is new. Run inside Transact().
  virtual Result<int64_t> EnsureSpace(const EmbeddingSpace& space, Timestamp now) = 0;
  // The space's id; NotFound when it was never created.
  virtual Result<int64_t> FindSpace(const EmbeddingSpace& space) = 0;
  // Every space with its vector count, oldest first.
  virtual Result<std::vector<SpaceInfo>> Spaces() = 0;

  // Stores `vector` (the space's blob: 1 to MaxVectorsPerDocument() vectors
  // of dimension floats, one after another) for the fact at `fact_rowid` of
  // `scope` when that row still holds fact `fact_id`; replaces a vector the
  // fact already has in the space (deleting the old one first, so the
  // deletion is counted in the scope's version). Returns false when the
  // fact is gone. Run inside Transact().
  virtual Result<bool> Put(int64_t space_id, const std::string& scope, int64_t fact_rowid,
                           const std::string& fact_id, std::span<const float> vector) = 0;

  // The labels of the vectors of `scope` in the space whose vector id is
  // above `after` (0: every one), by vector id. Vector ids only grow, are
  // never reused, and within a scope commit in the order they were given
  // (SQLite has one writer at a time; PostgreSQL draws them under the
  // scope's lock), so with `after` the largest id a reader has seen, the
  // result is what was added since, in time in proportion to it.
  virtual Result<std::vector<VectorRef>> Refs(int64_t space_id, const std::string& scope,
                                              int64_t after) = 0;
  // Where the vectors of each of `scopes` in the space stand, in the
  // caller's snapshot (see VectorsVersion).
  virtual Result<std::vector<VectorsVersion>> Versions(int64_t space_id,
                                                       const std::vector<std::string>& scopes) = 0;
  // Calls `sink` with each blob of `vector_ids` that exists, as floats;
  // Corruption when a blob is not 1 to `max_vectors` vectors of `dimension`
  // floats.
  virtual Status Load(const std::vector<int64_t>& vector_ids, size_t dimension, size_t max_vectors,
                      const std::function<void(int64_t, std::span<const float>)>& sink) = 0;

  // Every vector of `scope` in the space, in one pass, in no set order
  // (sorting would copy every blob): `sink` gets the label, the fact and the
  // vector. Corruption as Load.
  virtual Status LoadScope(
      int64_t space_id, const std::string& scope, size_t dimension, size_t max_vectors,
      const std::function<void(const VectorRef&, std::span<const float>)>& sink) = 0;
  // Blobs Load and LoadScope have read through this object: what filling
  // the in-memory indexes cost (tests and benchmarks count it).
  uint64_t VectorsRead() const { return vectors_read_; }
  // Labels Refs has read through this object (tests count them).
  uint64_t RefsRead() const { return refs_read_; }
  // How many vectors LoadScope would give (to size buffers before it).
  virtual Result<int64_t> CountScope(int64_t space_id, const std::string& scope) = 0;

  // Every vector of the space as stored, in no set order: `sink` gets the
  // scope, the label, the fact and the blob's bytes, whatever their size
  // (so a check can look at a blob that Load would refuse).
  using BlobSink =
      std::function<void(const std::string& scope, const VectorRef&, std::string_view)>;
  virtual Status ForEachBlob(int64_t space_id, const BlobSink& sink) = 0;
  // Deletes the vectors `vector_ids` of `scope` (ForEachBlob's scope: ""
  // for a vector of no fact). Run inside Transact().
  virtual Status Delete(const std::string& scope, const std::vector<int64_t>& vector_ids) = 0;
  // The id of the fact at `fact_rowid` of `scope`; NotFound when there is
  // none.
  virtual Result<std::string> FactIdOf(const std::string& scope, int64_t fact_rowid) = 0;

  // Facts without a vector in the space, lowest rowid first, at most `limit`
  // (0: all).
  virtual Result<std::vector<FactToEmbed>> Missing(int64_t space_id, size_t limit) = 0;
  virtual Result<int64_t> CountMissing(int64_t space_id) = 0;

  // Deletes every space but `keep_space_id`, with its vectors. Returns the
  // number of vectors removed. Run inside Transact().
  virtual Result<int64_t> PruneOtherSpaces(int64_t keep_space_id) = 0;

 protected:
  uint64_t vectors_read_ = 0;  // counted by the implementations
  uint64_t refs_read_ = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_VECTOR_STORE_H_
