// VectorCache: the in-memory vector indexes of one embedding space, one per
// scope, kept in step with the store (DESIGN §6).
//
// A scope is loaded on first use and re-synchronised by label whenever the
// store may have changed: after this engine wrote (MarkDirty), or when the
// store's version of the scope moved (VectorStore::Versions: another
// connection, process or server wrote). When no vector of the scope was
// removed since its last sync
// (VectorsVersion::removed holds still), a sync reads only the labels above
// the largest it has seen and loads their vectors: work in proportion to
// what was added, not to the scope. Otherwise it reads the scope's (vector
// id, fact rowid) pairs, drops labels that are gone and loads only the
// vectors that are new.
//
// A scope with fewer than VectorOptions::hnsw_threshold vectors is searched
// exactly (FlatIndex), and so is every scope of a windowed space
// (EmbeddingSpace::MaxVectorsPerDocument() > 1), whose facts score by their
// best window (BestWindowIndex over a FlatIndex): such a space has no HNSW
// index, whatever its size. From the threshold on it is an HnswIndex persisted in
// `index_dir` as space<id>-<scope hash>.hnsw; the file is loaded instead of
// rebuilt (on first use, without reading the scope's vectors from the
// store), brought up to date by label when stale, rebuilt when a quarter of
// it has been removed or it does not belong to the space and scope. Vectors
// added to an existing graph are deferred (HnswIndex::Defer: searched
// exactly until inserted), and each sync, including the one every search
// makes while any are deferred and no save is pending, inserts them for at
// most kInsertBudget, so adds never hold searches for as long as their
// insertion takes. A sync that changed it has it saved again: by a
// background IndexSaver (index_saver.h) within
// VectorOptions::hnsw_save_delay_ms, which holds the indexes as a View
// does only to mark where the save starts and then to copy each piece of
// the file (SaveHnsw); by the sync itself when that delay is 0; and on
// destruction.
//
// With VectorOptions::flat_snapshots, an exactly searched scope of a
// one-vector space with at least kMinSnapshotVectors vectors is also kept
// as a snapshot file (flat_snapshot.h), space<id>-<scope hash>.flat in
// `index_dir`: a first use maps it (MappedFlatIndex, checked by its
// checksum and stamp) instead of copying each vector out of SQLite. The
// snapshot records each label's fact and the VectorsVersion it was read
// at; when the store's space is the one it was read from and has removed
// nothing since, the first sync reads only the snapshot's last label and
// vector (to confirm them) and those added after it, as a later sync would
// (ResumeFromSnapshot); when a vector was removed since, it brings the
// snapshot in step by label like any stale index; and it drops one read
// from another store made again at the same place (another space creation
// time, or another last vector). It is written after a first use that had none,
// again once the scope has changed by more than a 32nd of its size since,
// and after a first use that could not resume from it because a vector was
// removed since it was written (one write of the file, against every next
// process reading every label).
// Labels are vector ids, which the store never reuses, so a label in both
// the snapshot and the store is the same vector. A snapshot that does not
// read is rebuilt, with a warning (unwarned when it is only of an older
// format); one that cannot be written is skipped.
//
// Thread-safety: Sync is called by one thread at a time (the engine holds
// its mutex around it) and changes the indexes only while no View exists;
// MarkDirty may be called from any thread at any time. Any number of Views
// may be held and searched at once, each from its own thread.
#ifndef ENGRAM_SRC_ENGINE_VECTOR_CACHE_H_
#define ENGRAM_SRC_ENGINE_VECTOR_CACHE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engram/embedder.h"
#include "engram/options.h"
#include "engram/status.h"
#include "src/common/rw_lock.h"
#include "src/engine/index_saver.h"
#include "src/engine/label_map.h"
#include "src/store/vector_store.h"
#include "src/vindex/flat_index.h"
#include "src/vindex/flat_snapshot.h"
#include "src/vindex/hnsw_index.h"
#include "src/vindex/vector_index.h"

namespace engram {

struct VectorHit {
  int64_t fact_rowid = 0;
  float cosine = 0.0f;
};

// A fact by its scope and rowid.
struct FactKey {
  std::string_view scope;
  int64_t fact_rowid = 0;
};

class VectorCache {
 public:
  // Least vectors of a scope kept as a flat snapshot: below, SQLite reads
  // them as fast.
  static constexpr size_t kMinSnapshotVectors = 1024;
  // How long a sync spends inserting an HNSW scope's deferred vectors into
  // its graph (at least one, a millisecond or two at 200,000 vectors); the
  // rest wait, searched exactly, for the next sync.
  static constexpr std::chrono::milliseconds kInsertBudget{5};
  // The longest the destructor inserts deferred vectors before the last
  // save: a close stays short, and what is left the next process catches
  // up on from the store.
  static constexpr std::chrono::milliseconds kCloseInsertBudget{1000};

  // The indexes of `space` (stored as `space_id`); its key names the space
  // in persisted index files, and `index_dir` is where they live (created
  // on first save).
  VectorCache(int64_t space_id, const EmbeddingSpace& space, VectorOptions options,
              std::string index_dir);
  // Writes every HNSW index not saved yet, with its deferred vectors
  // inserted first (for at most kCloseInsertBudget).
  ~VectorCache();
  VectorCache(const VectorCache&) = delete;
  VectorCache& operator=(const VectorCache&) = delete;

  int64_t SpaceId() const { return space_id_; }

  // Next Sync re-reads every loaded scope (this engine wrote).
  void MarkDirty();

  // Brings the indexes of `scopes` in step with `store`, read in one
  // snapshot (the caller's read transaction). Warnings (an index file that
  // could not be read or saved) are appended to `warnings`; the search goes
  // on with a rebuilt or unsaved index. When there is nothing to do (no
  // MarkDirty and every scope's VectorStore::Versions as at its last sync)
  // it returns at once; otherwise it waits until no View is held, so Views
  // see the indexes either before or after, never midway.
  Status Sync(VectorStore* store, const std::vector<std::string>& scopes,
              std::vector<std::string>* warnings);

  // A read-only hold on the indexes: every call through one View sees the
  // same state, and Sync waits until it is gone. Hold it briefly.
  class View {
   public:
    explicit View(const VectorCache& cache) : cache_(&cache), lock_(cache.mutex_) {}

    // The best `k` facts of `scopes` with cosine >= min_cosine, best
    // first, ties by fact rowid; and the cosine of each fact of `score`
    // into (*cosines)[i], nullopt when it has no vector or its scope is not
    // one of `scopes`. A flat index takes those cosines from its scan.
    Result<std::vector<VectorHit>> Search(std::span<const float> query,
                                          const std::vector<std::string>& scopes, size_t k,
                                          double min_cosine, std::span<const FactKey> score,
                                          std::vector<std::optional<float>>* cosines) const;

    // The cosine of each fact of `score`, as Search gives it, without a
    // scan: for a few facts named after the search (linked versions).
    std::vector<std::optional<float>> Score(std::span<const float> query,
                                            std::span<const FactKey> score) const;

    // The stored vector of each fact of `keys`, empty when it has none.
    std::vector<std::vector<float>> Vectors(std::span<const FactKey> keys) const;

   private:
    // The index holding `key`'s fact, and its label there; null when none.
    const VectorIndex* IndexOf(const FactKey& key, int64_t* label) const;

    const VectorCache* cache_;
    std::shared_lock<RwLock> lock_;
  };

 private:
  struct ScopeIndex {
    std::unique_ptr<VectorIndex> index;
    bool hnsw = false;
    LabelMap labels;                               // label <-> fact, sealed between syncs
    std::optional<VectorsVersion> synced_version;  // none: never synced
    uint64_t synced_epoch = 0;                     // dirty_epoch_ when last synced; 0 = never
    // Stored vectors no index can take (a NaN or an infinity, a zero
    // norm), left out of the index and not read again; backfill replaces
    // them (EngineImpl::Backfill).
    std::unordered_set<int64_t> unusable;
    // Labels added or removed since the flat snapshot on disk was written
    // or read; SIZE_MAX when there is none.
    size_t since_snapshot = SIZE_MAX;
    // The largest label of the scope read from the store, and its
    // VectorsVersion::removed when the labels were last all read;
    // -1 when they must be (never read, or a sync that did not finish).
    int64_t last_label = 0;
    int64_t removed_seen = -1;
    // The HNSW graph changed since it was last handed to be saved.
    bool unsaved = false;
  };
  // A vector found unusable while loading, and why.
  struct Unusable {
    int64_t vector_id = 0;
    std::string why;
  };

  // Brings one scope in step with the store, at `version`.
  Status SyncScope(VectorStore* store, const std::string& scope, const VectorsVersion& version,
                   ScopeIndex* entry, std::vector<std::string>* warnings);
  // The whole sync: every label of the scope read and compared.
  Status SyncAllLabels(VectorStore* store, const std::string& scope, const VectorsVersion& version,
                       ScopeIndex* entry, std::vector<std::string>* warnings);
  // The sync when nothing was removed: the labels above entry->last_label
  // added. False, having changed nothing, when the scope would cross the
  // HNSW threshold (the whole sync does that).
  Result<bool> SyncAdded(VectorStore* store, const std::string& scope,
                         const VectorsVersion& version, ScopeIndex* entry,
                         std::vector<std::string>* warnings);
  // SyncAdded's work once `added` (labels above entry->last_label, by
  // label) is read.
  Result<bool> AddRefs(VectorStore* store, const std::string& scope, const VectorsVersion& version,
                       const std::vector<VectorRef>& added, ScopeIndex* entry,
                       std::vector<std::string>* warnings);
  // The first sync of a scope whose `snapshot` entry->index maps. The
  // store must hold its last label with the same fact and vector (else the
  // snapshot was read from another store made at the same place, or that
  // label is gone: it is dropped) in the space it was read from (its
  // origin's space_created_at). Then, when `version` has removed nothing
  // since (its origin's removed), the rows are still the scope's vectors up
  // to the last label, and the labels the store gives after it (in the
  // same read) are loaded as SyncAdded loads them. False when it does not
  // serve: the mapped index stays for SyncAllLabels to compare label by
  // label when only `removed` moved (and the snapshot is written again
  // after, for the next process to resume from), and is dropped otherwise.
  Result<bool> ResumeFromSnapshot(VectorStore* store, const std::string& scope,
                                  const VectorsVersion& version, const FlatSnapshot& snapshot,
                                  ScopeIndex* entry, std::vector<std::string>* warnings);
  // Has a changed HNSW index saved: by the saver, or at once when there is
  // none (a failure is a warning).
  void SaveChanged(const std::string& scope, const ScopeIndex& entry,
                   std::vector<std::string>* warnings);
  // A fresh index for `refs`, every vector loaded from the store.
  Status Build(VectorStore* store, const std::vector<VectorRef>& refs, bool hnsw, ScopeIndex* entry,
               std::vector<Unusable>* unusable);
  // Loads `vector_ids` from the store into entry->index, leaving out (and
  // adding to `*unusable` and entry->unusable) what no index can take.
  Status LoadInto(VectorStore* store, const std::vector<int64_t>& vector_ids, ScopeIndex* entry,
                  std::vector<Unusable>* unusable);
  // Records that vector `vector_id` is left out of entry's index, and why.
  static void LeaveOut(int64_t vector_id, const Status& why, ScopeIndex* entry,
                       std::vector<Unusable>* unusable);
  // One warning per vector of `unusable` (of `scope`), naming its fact.
  static void WarnUnusable(VectorStore* store, const std::string& scope,
                           const std::vector<VectorRef>& refs,
                           const std::vector<Unusable>& unusable,
                           std::vector<std::string>* warnings);
  // Whether an HNSW scope has vectors waiting for its graph, and no save
  // pending that keeps them waiting (HnswIndex::Defer).
  static bool CanInsertDeferred(const ScopeIndex& entry);
  // Inserts the scope's deferred vectors for at most `budget` (at least
  // one) when CanInsertDeferred; whether any went in.
  static bool InsertSomeDeferred(ScopeIndex* entry, std::chrono::steady_clock::duration budget);
  // True when some scope of `scopes` is not in step (versions[i] is the
  // store's version of scopes[i]) or has deferred vectors to insert;
  // caller holds mutex_.
  bool NeedsSync(const std::vector<std::string>& scopes,
                 const std::vector<VectorsVersion>& versions, uint64_t epoch) const;
  // Sets entry->labels to `refs`.
  static void SetLabels(const std::vector<VectorRef>& refs, ScopeIndex* entry);
  // Adds `refs` to entry->labels, but those left out as unusable.
  static void AddLabels(const std::vector<VectorRef>& refs, ScopeIndex* entry);
  // The scope's file in index_dir_ with `extension`: its HNSW index
  // (".hnsw") or its flat snapshot (".flat").
  std::string ScopeFile(const std::string& scope, const char* extension) const;
  // Whether this cache keeps flat snapshots (flat_snapshots, a one-vector
  // space).
  bool KeepsSnapshots() const;
  // Sets entry's index from the scope's snapshot when one is there and
  // belongs to it, and returns the snapshot it maps; null when none did. A
  // snapshot that does not read is a warning, unless it is only of another
  // version of the format.
  const FlatSnapshot* ReadSnapshot(const std::string& scope, ScopeIndex* entry,
                                   std::vector<std::string>* warnings) const;
  // Writes the scope's snapshot, as read at `version`, when it is due (see
  // above); one that cannot be written (a read-only store) is skipped,
  // unwarned: it only saves time.
  void WriteSnapshotIfDue(const std::string& scope, const VectorsVersion& version,
                          ScopeIndex* entry) const;
  // Vectors from which a scope is an HnswIndex; SIZE_MAX (never) in a
  // windowed space.
  size_t HnswThreshold() const;
  // The options of an exactly searched scope's FlatIndex.
  FlatIndexOptions ExactIndexOptions() const;
  std::string Stamp(const std::string& scope) const;
  // The saver's save of a scope's HNSW files, holding mutex_ shared only
  // briefly: once to mark where the save starts (HnswIndex::StartSave,
  // about 9 bytes a vector), then once per piece of about 1 MiB of the
  // file. Between holds syncs go on and may add vectors, which wait beside
  // the graph until the save is done and which the file leaves for the
  // next process to catch up on; Cancelled when the scope's index was
  // replaced or dropped meanwhile, OK at once when it is not HNSW.
  Status SaveHnsw(const std::string& scope);

  int64_t space_id_;
  std::string space_key_;
  size_t dimension_;
  size_t max_windows_;  // space.MaxVectorsPerDocument()
  VectorOptions options_;
  std::string index_dir_;
  // Counts MarkDirty calls, from 1; a scope synced at another epoch is stale.
  std::atomic<uint64_t> dirty_epoch_{1};
  // Shared by Views, exclusive while Sync changes scopes_; a waiting Sync
  // goes before new Views.
  mutable RwLock mutex_;
  std::map<std::string, ScopeIndex> scopes_;
  // Saves changed HNSW indexes; null when hnsw_save_delay_ms is 0.
  std::unique_ptr<IndexSaver> saver_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_VECTOR_CACHE_H_
