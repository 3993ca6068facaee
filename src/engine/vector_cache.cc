#include "src/engine/vector_cache.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>

#include "src/common/hash.h"
#include "src/common/private_files.h"
#include "src/vindex/best_window_index.h"
#include "src/vindex/flat_snapshot.h"
#include "src/vindex/hnsw_index.h"
#include "src/vindex/mapped_flat_index.h"
#include "src/vindex/vector_math.h"

namespace engram {

VectorCache::VectorCache(int64_t space_id, const EmbeddingSpace& space, VectorOptions options,
                         std::string index_dir)
    : space_id_(space_id),
      space_key_(space.Key()),
      dimension_(space.dimension),
      max_windows_(space.MaxVectorsPerDocument()),
      options_(options),
      index_dir_(std::move(index_dir)) {
  if (options_.hnsw_save_delay_ms > 0) {
    saver_ = std::make_unique<IndexSaver>(
        [this](const std::string& scope) { return SaveHnsw(scope); }, options_.hnsw_save_delay_ms);
  }
}

VectorCache::~VectorCache() {
  if (!saver_) return;
  saver_->Stop();
  // No save is pending once the saver has stopped: what waits beside a
  // graph goes into it now, for at most kCloseInsertBudget in all, so that
  // the files written below hold those vectors too.
  {
    std::unique_lock write(mutex_);
    const auto until = std::chrono::steady_clock::now() + kCloseInsertBudget;
    for (auto& [scope, entry] : scopes_) {
      const auto now = std::chrono::steady_clock::now();
      if (now < until && InsertSomeDeferred(&entry, until - now)) saver_->Changed(scope);
    }
  }
  // A file that cannot be written has no one left to tell: the next process
  // catches up from the store.
  (void)saver_->SaveAllNow();
}

Status VectorCache::SaveHnsw(const std::string& scope) {
  // The scope's HNSW index, found again under each hold; null when it is
  // no longer the one of serial `copied` (0: any).
  const auto index_held = [&](uint64_t copied) -> const HnswIndex* {
    const auto it = scopes_.find(scope);
    if (it == scopes_.end() || !it->second.hnsw || !it->second.index) return nullptr;
    const auto* index = static_cast<const HnswIndex*>(it->second.index.get());
    return copied == 0 || index->Serial() == copied ? index : nullptr;
  };
  std::optional<HnswIndex::PendingSave> save;
  uint64_t copied = 0;
  {
    std::shared_lock hold(mutex_);
    const HnswIndex* index = index_held(0);
    if (index == nullptr) return Status::OK();
    copied = index->Serial();
    ENGRAM_ASSIGN_OR_RETURN(HnswIndex::PendingSave started,
                            index->StartSave(ScopeFile(scope, ".hnsw"), Stamp(scope)));
    save.emplace(std::move(started));
  }
  ENGRAM_RETURN_IF_ERROR(CreatePrivateDirectories(index_dir_));
  ENGRAM_RETURN_IF_ERROR(save->WriteGraph([&](const HnswIndex::Use& use) {
    std::shared_lock hold(mutex_);
    const HnswIndex* index = index_held(copied);
    if (index == nullptr) {
      return Cancelled("vector index of scope '" + scope + "' replaced while it was saved");
    }
    return use(*index);
  }));
  return save->Commit();
}

void VectorCache::MarkDirty() { dirty_epoch_.fetch_add(1, std::memory_order_acq_rel); }

bool VectorCache::NeedsSync(const std::vector<std::string>& scopes,
                            const std::vector<VectorsVersion>& versions, uint64_t epoch) const {
  for (size_t i = 0; i < scopes.size(); ++i) {
    const auto it = scopes_.find(scopes[i]);
    if (it == scopes_.end() || it->second.synced_epoch != epoch ||
        it->second.synced_version != versions[i] || CanInsertDeferred(it->second)) {
      return true;
    }
  }
  return false;
}

std::string VectorCache::ScopeFile(const std::string& scope, const char* extension) const {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(Fnv1a64(scope)));  // NOLINT(runtime/int)
  return index_dir_ + "/space" + std::to_string(space_id_) + "-" + hash + extension;
}

bool VectorCache::KeepsSnapshots() const { return options_.flat_snapshots && max_windows_ <= 1; }

const FlatSnapshot* VectorCache::ReadSnapshot(const std::string& scope, ScopeIndex* entry,
                                              std::vector<std::string>* warnings) const {
  if (!KeepsSnapshots()) return nullptr;
  std::string stamp;
  auto loaded = MappedFlatIndex::Open(ScopeFile(scope, ".flat"), dimension_, &stamp);
  if (!loaded.ok()) {
    const StatusCode code = loaded.status().code();
    if (code != StatusCode::kNotFound && code != StatusCode::kFailedPrecondition) {
      warnings->push_back("vector snapshot rebuilt: " + loaded.status().message());
    }
    return nullptr;
  }
  if (stamp != Stamp(scope)) return nullptr;
  const FlatSnapshot* snapshot = &(*loaded)->Snapshot();
  entry->index = std::move(*loaded);
  entry->hnsw = false;
  entry->since_snapshot = 0;
  return snapshot;
}

void VectorCache::WriteSnapshotIfDue(const std::string& scope, const VectorsVersion& version,
                                     ScopeIndex* entry) const {
  if (!KeepsSnapshots() || entry->hnsw || !entry->index) return;
  const size_t size = entry->index->size();
  if (size < kMinSnapshotVectors) return;
  if (entry->since_snapshot != SIZE_MAX && entry->since_snapshot <= size / 32) return;
  // A snapshot only saves time: one that cannot be written (a read-only
  // store, a full disk) leaves the next process to read SQLite, unwarned.
  Status saved = CreatePrivateDirectories(index_dir_);
  if (saved.ok()) {
    const auto fact_of = [entry](int64_t label) { return entry->labels.FactOf(label); };
    saved = SaveFlatSnapshot(*entry->index, fact_of, ScopeFile(scope, ".flat"), Stamp(scope),
                             FlatSnapshotOrigin{version.space_created_at, version.removed});
  }
  if (saved.ok()) entry->since_snapshot = 0;
}

FlatIndexOptions VectorCache::ExactIndexOptions() const {
  FlatIndexOptions options;
  options.int8_scan = options_.int8_scan;
  return options;
}

size_t VectorCache::HnswThreshold() const {
  return max_windows_ > 1 ? SIZE_MAX : options_.hnsw_threshold;
}

std::string VectorCache::Stamp(const std::string& scope) const { return space_key_ + "\n" + scope; }

Status VectorCache::Sync(VectorStore* store, const std::vector<std::string>& scopes,
                         std::vector<std::string>* warnings) {
  // Read before the store is: a MarkDirty after this makes the next Sync
  // look again.
  const uint64_t epoch = dirty_epoch_.load(std::memory_order_acquire);
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<VectorsVersion> versions,
                          store->Versions(space_id_, scopes));
  {
    std::shared_lock read(mutex_);
    if (!NeedsSync(scopes, versions, epoch)) return Status::OK();
  }
  std::unique_lock write(mutex_);
  if (saver_) {
    if (std::optional<std::string> problem = saver_->TakeProblem()) {
      warnings->push_back("vector index not saved: " + *problem);
    }
  }
  for (size_t i = 0; i < scopes.size(); ++i) {
    const std::string& scope = scopes[i];
    ScopeIndex& entry = scopes_[scope];
    if (entry.synced_epoch != epoch || entry.synced_version != versions[i]) {
      ENGRAM_RETURN_IF_ERROR(SyncScope(store, scope, versions[i], &entry, warnings));
      entry.synced_epoch = epoch;
      entry.synced_version = versions[i];
    }
    // Without a saver the sync writes the file itself (a one-shot process,
    // about to exit): everything is inserted first, and written once.
    const auto budget = saver_ ? std::chrono::steady_clock::duration(kInsertBudget)
                               : std::chrono::steady_clock::duration::max();
    if (InsertSomeDeferred(&entry, budget)) entry.unsaved = true;
    if (entry.unsaved) SaveChanged(scope, entry, warnings);
    entry.unsaved = false;
  }
  return Status::OK();
}

bool VectorCache::CanInsertDeferred(const ScopeIndex& entry) {
  if (!entry.hnsw || !entry.index) return false;
  const auto& index = static_cast<const HnswIndex&>(*entry.index);
  return index.DeferredCount() > 0 && !index.SavePending();
}

bool VectorCache::InsertSomeDeferred(ScopeIndex* entry,
                                     std::chrono::steady_clock::duration budget) {
  return CanInsertDeferred(*entry) &&
         static_cast<HnswIndex&>(*entry->index).InsertDeferred(budget) > 0;
}

Status VectorCache::Build(VectorStore* store, const std::vector<VectorRef>& refs, bool hnsw,
                          ScopeIndex* entry, std::vector<Unusable>* unusable) {
  entry->index.reset();
  entry->hnsw = hnsw;
  entry->unusable.clear();
  entry->since_snapshot = SIZE_MAX;
  if (hnsw) {
    HnswIndexOptions hnsw_options;
    hnsw_options.initial_capacity = std::max<size_t>(refs.size(), 1024);
    ENGRAM_ASSIGN_OR_RETURN(entry->index, HnswIndex::Create(dimension_, hnsw_options));
  } else {
    entry->index = NewExactIndex(dimension_, max_windows_, refs.size(), ExactIndexOptions());
  }
  std::vector<int64_t> ids;
  ids.reserve(refs.size());
  for (const VectorRef& r : refs) ids.push_back(r.vector_id);
  return LoadInto(store, ids, entry, unusable);
}

Status VectorCache::LoadInto(VectorStore* store, const std::vector<int64_t>& vector_ids,
                             ScopeIndex* entry, std::vector<Unusable>* unusable) {
  if (vector_ids.empty()) return Status::OK();
  if (entry->hnsw) {
    // One batch: HNSW inserts in parallel, and refuses the whole batch for
    // one bad vector, so each is checked first.
    std::vector<int64_t> labels;
    std::vector<float> rows;
    labels.reserve(vector_ids.size());
    rows.reserve(vector_ids.size() * dimension_);
    ENGRAM_RETURN_IF_ERROR(store->Load(
        vector_ids, dimension_, /*max_vectors=*/1, [&](int64_t id, std::span<const float> v) {
          if (Status usable = CheckVector(v, dimension_); !usable.ok()) {
            return LeaveOut(id, usable, entry, unusable);
          }
          labels.push_back(id);
          rows.insert(rows.end(), v.begin(), v.end());
        }));
    // A new graph is built whole; vectors that come later wait among the
    // deferred, for syncs to insert a budget's worth at a time.
    auto& hnsw = static_cast<HnswIndex&>(*entry->index);
    return hnsw.size() == 0 ? hnsw.UpsertBatch(labels, rows) : hnsw.Defer(labels, rows);
  }
  return store->Load(vector_ids, dimension_, max_windows_,
                     [&](int64_t id, std::span<const float> v) {
                       if (Status upserted = entry->index->Upsert(id, v); !upserted.ok()) {
                         LeaveOut(id, upserted, entry, unusable);
                       }
                     });
}

void VectorCache::LeaveOut(int64_t vector_id, const Status& why, ScopeIndex* entry,
                           std::vector<Unusable>* unusable) {
  entry->unusable.insert(vector_id);
  unusable->push_back(Unusable{vector_id, why.message()});
}

void VectorCache::WarnUnusable(VectorStore* store, const std::string& scope,
                               const std::vector<VectorRef>& refs,
                               const std::vector<Unusable>& unusable,
                               std::vector<std::string>* warnings) {
  for (const Unusable& u : unusable) {
    const auto ref = std::find_if(refs.begin(), refs.end(),
                                  [&](const VectorRef& r) { return r.vector_id == u.vector_id; });
    Result<std::string> fact = ref == refs.end() ? Result<std::string>(NotFound(""))
                                                 : store->FactIdOf(scope, ref->fact_rowid);
    warnings->push_back("fact " + fact.value_or("(unknown)") + ": its stored vector is unusable (" +
                        u.why +
                        "); semantic search leaves the fact out until `engram backfill` embeds "
                        "it again");
  }
}

Status VectorCache::SyncScope(VectorStore* store, const std::string& scope,
                              const VectorsVersion& version, ScopeIndex* entry,
                              std::vector<std::string>* warnings) {
  const bool only_added = entry->index && entry->removed_seen == version.removed;
  // Until this sync finishes, the next one reads every label again.
  entry->removed_seen = -1;
  bool synced = false;
  if (only_added) {
    ENGRAM_ASSIGN_OR_RETURN(synced, SyncAdded(store, scope, version, entry, warnings));
  } else if (!entry->index) {
    if (const FlatSnapshot* snapshot = ReadSnapshot(scope, entry, warnings)) {
      ENGRAM_ASSIGN_OR_RETURN(
          synced, ResumeFromSnapshot(store, scope, version, *snapshot, entry, warnings));
    }
  }
  if (!synced) ENGRAM_RETURN_IF_ERROR(SyncAllLabels(store, scope, version, entry, warnings));
  entry->removed_seen = version.removed;
  return Status::OK();
}

Result<bool> VectorCache::ResumeFromSnapshot(VectorStore* store, const std::string& scope,
                                             const VectorsVersion& version,
                                             const FlatSnapshot& snapshot, ScopeIndex* entry,
                                             std::vector<std::string>* warnings) {
  // Read from another store made at the same place: its labels name other
  // vectors, so it is not compared label by label either.
  const auto another_store = [entry] {
    entry->index.reset();
    entry->since_snapshot = SIZE_MAX;
    return false;
  };
  if (snapshot.rows == 0) return false;
  if (snapshot.origin.space_created_at != version.space_created_at) return another_store();
  // The snapshot's last label, with the labels added after it; it must be
  // there with its fact and vector (as the index keeps it, normalised),
  // else the store is another one, whose space a clock gave the same
  // creation time, or the label is gone, which no longer tells.
  const size_t last = snapshot.rows - 1;
  const int64_t last_label = snapshot.labels[last];
  ENGRAM_ASSIGN_OR_RETURN(std::vector<VectorRef> refs,
                          store->Refs(space_id_, scope, last_label - 1));
  if (refs.empty() || refs.front().vector_id != last_label ||
      refs.front().fact_rowid != snapshot.fact_rowids[last]) {
    return another_store();
  }
  bool same_vector = false;
  ENGRAM_RETURN_IF_ERROR(store->Load(
      {last_label}, dimension_, /*max_vectors=*/1, [&](int64_t, std::span<const float> stored) {
        std::vector<float> normalized(stored.begin(), stored.end());
        const std::span<const float> mapped(snapshot.vectors + last * dimension_, dimension_);
        same_vector = NormalizeInPlace(normalized).ok() &&
                      std::equal(normalized.begin(), normalized.end(), mapped.begin());
      }));
  if (!same_vector) return another_store();
  if (snapshot.origin.removed != version.removed) {
    // A vector went since: brought in step by label, and written again
    // after, else every next process would read every label as this one.
    entry->since_snapshot = SIZE_MAX;
    return false;
  }

  // Nothing removed since: the rows are the scope's vectors up to the last
  // label, and `refs` after it those added since.
  // When the adds would cross the HNSW threshold (AddRefs is false),
  // SyncAllLabels sets entry->labels again from every label.
  entry->labels.Clear();  // what an earlier, failed sync left
  entry->labels.Reserve(snapshot.rows + refs.size());
  for (size_t row = 0; row < snapshot.rows; ++row) {
    entry->labels.Add(snapshot.labels[row], snapshot.fact_rowids[row]);
  }
  entry->labels.Seal();
  entry->last_label = last_label;
  refs.erase(refs.begin());
  return AddRefs(store, scope, version, refs, entry, warnings);
}

Result<bool> VectorCache::SyncAdded(VectorStore* store, const std::string& scope,
                                    const VectorsVersion& version, ScopeIndex* entry,
                                    std::vector<std::string>* warnings) {
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<VectorRef> added,
                          store->Refs(space_id_, scope, entry->last_label));
  return AddRefs(store, scope, version, added, entry, warnings);
}

Result<bool> VectorCache::AddRefs(VectorStore* store, const std::string& scope,
                                  const VectorsVersion& version,
                                  const std::vector<VectorRef>& added, ScopeIndex* entry,
                                  std::vector<std::string>* warnings) {
  if (added.empty()) return true;
  const size_t size = entry->labels.size() + entry->unusable.size() + added.size();
  if (!entry->hnsw && size >= HnswThreshold()) return false;
  std::vector<int64_t> ids;
  ids.reserve(added.size());
  for (const VectorRef& r : added) ids.push_back(r.vector_id);
  std::vector<Unusable> unusable;
  ENGRAM_RETURN_IF_ERROR(LoadInto(store, ids, entry, &unusable));
  AddLabels(added, entry);
  entry->last_label = added.back().vector_id;
  if (entry->since_snapshot != SIZE_MAX) entry->since_snapshot += added.size();
  WarnUnusable(store, scope, added, unusable, warnings);
  WriteSnapshotIfDue(scope, version, entry);
  entry->unsaved = entry->hnsw;
  return true;
}

Status VectorCache::SyncAllLabels(VectorStore* store, const std::string& scope,
                                  const VectorsVersion& version, ScopeIndex* entry,
                                  std::vector<std::string>* warnings) {
  const size_t threshold = HnswThreshold();
  int64_t count = 0;
  if (!entry->index) {
    ENGRAM_ASSIGN_OR_RETURN(count, store->CountScope(space_id_, scope));
  }
  if (!entry->index && static_cast<size_t>(std::max<int64_t>(count, 0)) < threshold) {
    // First use of a scope for exact search: labels and vectors in one
    // pass. One that grew past the threshold meanwhile goes on to the HNSW
    // path below; a larger one goes there at once, to load its saved file
    // without reading its vectors.
    const size_t expected = static_cast<size_t>(std::max<int64_t>(count, 0));
    std::unique_ptr<VectorIndex> flat =
        NewExactIndex(dimension_, max_windows_, std::min(expected, threshold), ExactIndexOptions());
    std::vector<VectorRef> refs;
    refs.reserve(expected);
    std::vector<Unusable> unusable;
    ENGRAM_RETURN_IF_ERROR(store->LoadScope(space_id_, scope, dimension_, max_windows_,
                                            [&](const VectorRef& ref, std::span<const float> v) {
                                              refs.push_back(ref);
                                              if (refs.size() >= threshold) return;
                                              if (Status upserted = flat->Upsert(ref.vector_id, v);
                                                  !upserted.ok()) {
                                                LeaveOut(ref.vector_id, upserted, entry, &unusable);
                                              }
                                            }));
    if (refs.empty() || refs.size() < threshold) {
      entry->index = std::move(flat);
      entry->hnsw = false;
      SetLabels(refs, entry);
      entry->last_label = 0;
      for (const VectorRef& r : refs) entry->last_label = std::max(entry->last_label, r.vector_id);
      WarnUnusable(store, scope, refs, unusable, warnings);
      WriteSnapshotIfDue(scope, version, entry);
      return Status::OK();
    }
    entry->unusable.clear();
  }
  std::vector<Unusable> unusable;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<VectorRef> refs, store->Refs(space_id_, scope, 0));
  const bool want_hnsw = refs.size() >= HnswThreshold() && !refs.empty();
  const std::string path = ScopeFile(scope, ".hnsw");
  bool changed = false;

  if (want_hnsw && !entry->hnsw) {
    // Crossing the threshold, or first use of a large scope: the persisted
    // index when it is this scope's, else a new one.
    entry->index.reset();
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      std::string stamp;
      auto loaded = HnswIndex::Load(path, dimension_, HnswIndexOptions{}, &stamp);
      if (loaded.ok() && stamp == Stamp(scope)) {
        entry->index = std::move(*loaded);
        entry->hnsw = true;
      } else if (!loaded.ok()) {
        warnings->push_back("vector index rebuilt: " + loaded.status().message());
      }
    }
    if (!entry->index) {
      ENGRAM_RETURN_IF_ERROR(Build(store, refs, /*hnsw=*/true, entry, &unusable));
      changed = true;
    }
  } else if (!want_hnsw && (entry->hnsw || !entry->index)) {
    ENGRAM_RETURN_IF_ERROR(Build(store, refs, /*hnsw=*/false, entry, &unusable));
  }

  // Bring the index in step by label: vector ids are never reused.
  const std::vector<int64_t> labels = entry->index->Labels();
  std::vector<int64_t> wanted;
  wanted.reserve(refs.size());
  for (const VectorRef& r : refs) {
    if (!entry->unusable.count(r.vector_id)) wanted.push_back(r.vector_id);
  }
  std::vector<int64_t> gone;
  std::set_difference(labels.begin(), labels.end(), wanted.begin(), wanted.end(),
                      std::back_inserter(gone));
  std::vector<int64_t> added;
  std::set_difference(wanted.begin(), wanted.end(), labels.begin(), labels.end(),
                      std::back_inserter(added));
  const size_t deleted =
      entry->hnsw ? static_cast<const HnswIndex&>(*entry->index).DeletedCount() : 0;
  if (entry->hnsw && !gone.empty() && deleted + gone.size() > refs.size() / 4) {
    ENGRAM_RETURN_IF_ERROR(Build(store, refs, /*hnsw=*/true, entry, &unusable));
    changed = true;
  } else {
    for (int64_t label : gone) entry->index->Remove(label);
    ENGRAM_RETURN_IF_ERROR(LoadInto(store, added, entry, &unusable));
    changed = changed || !gone.empty() || !added.empty();
    if (entry->since_snapshot != SIZE_MAX) entry->since_snapshot += gone.size() + added.size();
  }

  SetLabels(refs, entry);
  entry->last_label = refs.empty() ? 0 : refs.back().vector_id;
  WarnUnusable(store, scope, refs, unusable, warnings);
  WriteSnapshotIfDue(scope, version, entry);
  entry->unsaved = entry->hnsw && changed;
  return Status::OK();
}

void VectorCache::SaveChanged(const std::string& scope, const ScopeIndex& entry,
                              std::vector<std::string>* warnings) {
  if (saver_) {
    saver_->Changed(scope);
    return;
  }
  Status saved = CreatePrivateDirectories(index_dir_);
  if (saved.ok()) {
    saved =
        static_cast<const HnswIndex&>(*entry.index).Save(ScopeFile(scope, ".hnsw"), Stamp(scope));
  }
  if (!saved.ok()) warnings->push_back("vector index not saved: " + saved.message());
}

void VectorCache::SetLabels(const std::vector<VectorRef>& refs, ScopeIndex* entry) {
  entry->labels.Clear();
  entry->labels.Reserve(refs.size());
  AddLabels(refs, entry);
}

void VectorCache::AddLabels(const std::vector<VectorRef>& refs, ScopeIndex* entry) {
  for (const VectorRef& r : refs) {
    if (!entry->unusable.count(r.vector_id)) entry->labels.Add(r.vector_id, r.fact_rowid);
  }
  entry->labels.Seal();
}

Result<std::vector<VectorHit>> VectorCache::View::Search(
    std::span<const float> query, const std::vector<std::string>& scopes, size_t k,
    double min_cosine, std::span<const FactKey> score,
    std::vector<std::optional<float>>* cosines) const {
  std::vector<VectorHit> hits;
  cosines->assign(score.size(), std::nullopt);
  std::vector<size_t> asked;  // indexes into `score` of this scope's facts with a vector
  std::vector<int64_t> labels;
  std::vector<std::optional<float>> scored;
  for (const std::string& scope : scopes) {
    const auto it = cache_->scopes_.find(scope);
    if (it == cache_->scopes_.end() || !it->second.index) continue;
    const ScopeIndex& entry = it->second;
    asked.clear();
    labels.clear();
    for (size_t i = 0; i < score.size(); ++i) {
      if (score[i].scope != scope) continue;
      const std::optional<int64_t> label = entry.labels.LabelOf(score[i].fact_rowid);
      if (!label) continue;
      asked.push_back(i);
      labels.push_back(*label);
    }
    ENGRAM_ASSIGN_OR_RETURN(
        std::vector<ScoredLabel> found,
        entry.index->SearchAndScore(query, k, static_cast<float>(min_cosine), labels, &scored));
    for (size_t j = 0; j < asked.size(); ++j) (*cosines)[asked[j]] = scored[j];
    for (const ScoredLabel& s : found) {
      if (const std::optional<int64_t> fact = entry.labels.FactOf(s.label)) {
        hits.push_back(VectorHit{*fact, s.score});
      }
    }
  }
  std::sort(hits.begin(), hits.end(), [](const VectorHit& a, const VectorHit& b) {
    if (a.cosine != b.cosine) return a.cosine > b.cosine;
    return a.fact_rowid < b.fact_rowid;
  });
  if (hits.size() > k) hits.resize(k);
  return hits;
}

std::vector<std::optional<float>> VectorCache::View::Score(std::span<const float> query,
                                                           std::span<const FactKey> score) const {
  std::vector<std::optional<float>> cosines(score.size());
  for (size_t i = 0; i < score.size(); ++i) {
    int64_t label = 0;
    if (const VectorIndex* index = IndexOf(score[i], &label)) {
      cosines[i] = index->Score(query, label);
    }
  }
  return cosines;
}

std::vector<std::vector<float>> VectorCache::View::Vectors(std::span<const FactKey> keys) const {
  std::vector<std::vector<float>> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    int64_t label = 0;
    if (const VectorIndex* index = IndexOf(keys[i], &label)) {
      const std::span<const float> v = index->Vector(label);
      out[i].assign(v.begin(), v.end());
    }
  }
  return out;
}

const VectorIndex* VectorCache::View::IndexOf(const FactKey& key, int64_t* label) const {
  const auto it = cache_->scopes_.find(std::string(key.scope));
  if (it == cache_->scopes_.end() || !it->second.index) return nullptr;
  const std::optional<int64_t> found = it->second.labels.LabelOf(key.fact_rowid);
  if (!found) return nullptr;
  *label = *found;
  return it->second.index.get();
}

}  // namespace engram
