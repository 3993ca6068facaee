// EngineImpl's vector side: the active embedding space, embedding facts
// outside the lock and storing their vectors, backfill and pruning
// (DESIGN §6).
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "src/engine/engine_impl.h"
#include "src/vindex/vector_math.h"

namespace engram {

Result<int64_t> EngineImpl::EnsureSpaceLocked(const Embedder& embedder, Timestamp now) {
  const std::string key = embedder.Space().Key();
  if (space_id_ != 0 && key == space_key_) return space_id_;
  Result<int64_t> id = Internal("engine: space not created");
  ENGRAM_RETURN_IF_ERROR(store_->Transact([&] {
    id = store_->vectors().EnsureSpace(embedder.Space(), now);
    return id.status();
  }));
  space_key_ = key;
  space_id_ = *id;
  return space_id_;
}

Result<int64_t> EngineImpl::FindSpaceLocked(const Embedder& embedder) {
  const std::string key = embedder.Space().Key();
  if (space_id_ != 0 && key == space_key_) return space_id_;
  auto found = store_->vectors().FindSpace(embedder.Space());
  if (!found.ok()) {
    if (found.status().code() == StatusCode::kNotFound) return 0;
    return found.status();
  }
  space_key_ = key;
  space_id_ = *found;
  return space_id_;
}

std::shared_ptr<VectorCache> EngineImpl::CacheLocked(const EngineOptions& options,
                                                     int64_t space_id) {
  if (!cache_ || cache_->SpaceId() != space_id) {
    cache_ = std::make_shared<VectorCache>(space_id, options.embedder->Space(), options.vector,
                                           store_->SidecarPrefix() + ".vindex");
  }
  return cache_;
}

Result<std::shared_ptr<VectorCache>> EngineImpl::SyncedCache(const EngineOptions& options,
                                                             const std::vector<std::string>& scopes,
                                                             std::vector<std::string>* warnings) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<VectorCache> cache;
  Status synced = store_->ReadTransact([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t space_id, FindSpaceLocked(*options.embedder));
    if (space_id == 0) return Status::OK();
    cache = CacheLocked(options, space_id);
    return cache->Sync(&store_->vectors(), scopes, warnings);
  });
  if (!synced.ok()) return synced;
  return cache;
}

size_t EngineImpl::EmbedAndStore(const EngineOptions& options,
                                 const std::vector<FactToEmbed>& facts,
                                 const std::atomic<bool>* stop,
                                 const std::function<void(size_t, size_t)>& progress,
                                 std::vector<std::string>* warnings,
                                 std::vector<EmbeddedFact>* embedded) {
  const Embedder& embedder = *options.embedder;
  const size_t dimension = embedder.Space().dimension;
  const size_t max_windows = embedder.Space().MaxVectorsPerDocument();
  const size_t batch = std::max<size_t>(1, options.vector.embed_batch);
  // The facts from `begin` on stay without a vector: says so, with why.
  const auto left_without = [&](size_t begin, const std::string& what, const std::string& why) {
    warnings->push_back(what + " failed: " + std::to_string(facts.size() - begin) + " of " +
                        std::to_string(facts.size()) +
                        " facts stay without a vector until backfill: " + why);
  };
  int64_t space_id = 0;
  {
    std::lock_guard lock(mutex_);
    auto space = EnsureSpaceLocked(embedder, options.clock->NowMillis());
    if (!space.ok()) {
      left_without(0, "storing vectors", space.status().message());
      return 0;
    }
    space_id = *space;
  }
  size_t stored = 0;
  for (size_t begin = 0; begin < facts.size(); begin += batch) {
    if (stop != nullptr && stop->load()) break;
    const size_t end = std::min(facts.size(), begin + batch);
    std::vector<std::string> texts;
    texts.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) texts.push_back(facts[i].content);
    auto vectors = embedder.Embed(texts, EmbedPurpose::kDocument);
    if (!vectors.ok()) {
      // Stop at the first failing batch: the provider is down or misbehaving,
      // and backfill will retry what is left.
      left_without(begin, "embedding", vectors.status().message());
      break;
    }
    if (vectors->size() != texts.size()) {
      warnings->push_back("embedder " + embedder.Space().Key() + " returned " +
                          std::to_string(vectors->size()) + " vectors for " +
                          std::to_string(texts.size()) + " texts; batch skipped");
      break;
    }
    std::lock_guard lock(mutex_);
    const size_t stored_before = stored;
    const size_t embedded_before = embedded != nullptr ? embedded->size() : 0;
    const Status batch_stored = store_->Transact([&]() -> Status {
      for (size_t i = begin; i < end; ++i) {
        std::vector<float>& v = (*vectors)[i - begin];
        if (Status ok = NormalizeWindowsInPlace(v, dimension, max_windows); !ok.ok()) {
          warnings->push_back("fact " + facts[i].id + ": embedder " + embedder.Space().Key() +
                              " gave a bad vector: " + ok.message());
          continue;
        }
        ENGRAM_ASSIGN_OR_RETURN(bool put, store_->vectors().Put(space_id, facts[i].scope,
                                                                facts[i].rowid, facts[i].id, v));
        if (!put) continue;
        ++stored;
        if (embedded != nullptr) {
          v.resize(dimension);  // a windowed fact's first window stands for it
          embedded->push_back(EmbeddedFact{facts[i].scope, facts[i].rowid, std::move(v)});
        }
      }
      return Status::OK();
    });
    if (!batch_stored.ok()) {
      // The batch rolled back whole: it and every later one stay without a
      // vector, as when the provider fails.
      stored = stored_before;
      if (embedded != nullptr) {
        embedded->erase(embedded->begin() + static_cast<std::ptrdiff_t>(embedded_before),
                        embedded->end());
      }
      left_without(begin, "storing vectors", batch_stored.message());
      break;
    }
    if (cache_ && cache_->SpaceId() == space_id) cache_->MarkDirty();
    if (progress) progress(end, facts.size());
  }
  return stored;
}

Result<size_t> EngineImpl::DeleteUnusableVectorsLocked(int64_t space_id,
                                                       const EmbeddingSpace& space) {
  std::map<std::string, std::vector<int64_t>> unusable;  // by scope
  size_t count = 0;
  ENGRAM_RETURN_IF_ERROR(store_->vectors().ForEachBlob(
      space_id, [&](const std::string& scope, const VectorRef& ref, std::string_view blob) {
        if (!CheckVectorBlob(blob, space.dimension, space.MaxVectorsPerDocument()).ok()) {
          unusable[scope].push_back(ref.vector_id);
          ++count;
        }
      }));
  if (count == 0) return size_t{0};
  ENGRAM_RETURN_IF_ERROR(store_->Transact([&]() -> Status {
    for (const auto& [scope, ids] : unusable) {
      ENGRAM_RETURN_IF_ERROR(store_->vectors().Delete(scope, ids));
    }
    return Status::OK();
  }));
  if (cache_ && cache_->SpaceId() == space_id) cache_->MarkDirty();
  return count;
}

Result<BackfillReport> EngineImpl::Backfill(const BackfillOptions& options) {
  const std::shared_ptr<const EngineOptions> engine_options = Options();
  if (!engine_options->embedder) {
    return FailedPrecondition("engine: backfill: no embedding provider is configured");
  }
  std::vector<FactToEmbed> missing;
  int64_t space_id = 0;
  BackfillReport report;
  {
    std::lock_guard lock(mutex_);
    ENGRAM_ASSIGN_OR_RETURN(
        space_id, EnsureSpaceLocked(*engine_options->embedder, engine_options->clock->NowMillis()));
    ENGRAM_ASSIGN_OR_RETURN(
        report.replaced, DeleteUnusableVectorsLocked(space_id, engine_options->embedder->Space()));
    ENGRAM_ASSIGN_OR_RETURN(missing, store_->vectors().Missing(space_id, options.limit));
  }
  report.embedded =
      EmbedAndStore(*engine_options, missing, nullptr, options.progress, &report.warnings);
  // The vectors are stored: a failure to count what is left is reported,
  // not made the failure of the whole backfill.
  std::lock_guard lock(mutex_);
  auto remaining = store_->vectors().CountMissing(space_id);
  if (remaining.ok()) {
    report.remaining = static_cast<size_t>(*remaining);
  } else {
    report.remaining = missing.size() - report.embedded;
    report.warnings.push_back(
        "counting the facts still without a vector failed (" + std::to_string(report.remaining) +
        " of those this backfill took are left): " + remaining.status().message());
  }
  return report;
}

void EngineImpl::BackfillStep(const std::atomic<bool>& stop) {
  const std::shared_ptr<const EngineOptions> options = Options();
  if (!options->embedder || !options->vector.background_backfill) return;
  std::vector<FactToEmbed> missing;
  {
    std::lock_guard lock(mutex_);
    auto space_id = EnsureSpaceLocked(*options->embedder, options->clock->NowMillis());
    if (!space_id.ok()) return;  // e.g. a read-only file: nothing can be stored
    auto found = store_->vectors().Missing(*space_id, options->vector.backfill_batch_max);
    if (!found.ok() || found->empty()) return;
    missing = std::move(*found);
  }
  std::vector<std::string> warnings;
  // Failures are left for the next step or `engram backfill`, which reports
  // them; a background thread has no one to tell.
  EmbedAndStore(*options, missing, &stop, {}, &warnings);
}

Result<int64_t> EngineImpl::PruneVectors() {
  const std::shared_ptr<const EngineOptions> options = Options();
  if (!options->embedder) {
    return FailedPrecondition("engine: prune: no embedding provider is configured");
  }
  std::lock_guard lock(mutex_);
  ENGRAM_ASSIGN_OR_RETURN(int64_t space_id,
                          EnsureSpaceLocked(*options->embedder, options->clock->NowMillis()));
  Result<int64_t> removed = Internal("engine: prune: not run");
  ENGRAM_RETURN_IF_ERROR(store_->Transact([&] {
    removed = store_->vectors().PruneOtherSpaces(space_id);
    return removed.status();
  }));
  // Index files of other spaces: space<id>-<hash>.hnsw (vector_cache.h).
  const std::string keep = "space" + std::to_string(space_id) + "-";
  std::error_code ec;
  for (const auto& file :
       std::filesystem::directory_iterator(store_->SidecarPrefix() + ".vindex", ec)) {
    const std::string name = file.path().filename().string();
    if (name.rfind("space", 0) == 0 && name.rfind(keep, 0) != 0) {
      std::filesystem::remove(file.path(), ec);
    }
  }
  return removed;
}

}  // namespace engram
