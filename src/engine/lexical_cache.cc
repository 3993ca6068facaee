#include "src/engine/lexical_cache.h"

#include <utility>

namespace engram {

LexicalCache::Entry& LexicalCache::EntryOf(const std::string& scope) {
  std::lock_guard lock(mutex_);
  std::unique_ptr<Entry>& entry = entries_[scope];
  if (!entry) entry = std::make_unique<Entry>();
  return *entry;
}

Result<std::optional<LexicalCache::Lease>> LexicalCache::Acquire(FactStore& store,
                                                                 const std::string& scope) {
  {
    std::lock_guard lock(mutex_);
    if (unsupported_) return std::optional<Lease>();
  }
  Result<ScopeChanges> changes = store.ChangesOf(scope);
  if (changes.status().code() == StatusCode::kNotSupported) {
    std::lock_guard lock(mutex_);
    unsupported_ = true;
    return std::optional<Lease>();
  }
  if (!changes.ok()) return changes.status();
  const ScopeChanges now = *changes;
  Entry& entry = EntryOf(scope);
  const auto serves = [&] { return entry.index != nullptr && entry.at.SameScopeAs(now); };
  {
    std::shared_lock read(entry.lock);
    if (serves()) return std::optional<Lease>(Lease(std::move(read), entry.index.get()));
  }
  {
    std::unique_lock write(entry.lock);
    // An index of a later state of the store serves later searches; this
    // one reads the store's own index, as does a search of an empty scope
    // (whose index goes), and one of a scope the index could not be
    // brought in step with, until its count changes.
    if (entry.index != nullptr && entry.at.store > now.store && !serves()) {
      return std::optional<Lease>();
    }
    if (now.facts == 0) {
      entry.index.reset();
      return std::optional<Lease>();
    }
    if (entry.failed_at_count == now.facts) return std::optional<Lease>();
    if (!serves() && !BringInStep(store, scope, now, &entry).ok()) {
      entry.index.reset();
      entry.failed_at_count = now.facts;
      return std::optional<Lease>();
    }
    entry.failed_at_count.reset();
  }
  // Another search may have moved it on between the two locks.
  std::shared_lock read(entry.lock);
  if (serves()) return std::optional<Lease>(Lease(std::move(read), entry.index.get()));
  return std::optional<Lease>();
}

Status LexicalCache::BringInStep(FactStore& store, const std::string& scope,
                                 const ScopeChanges& now, Entry* entry) {
  if (entry->index != nullptr && entry->at.last < now.last) {
    bool followed = true;
    Status read =
        store.ForEachChangedSince(scope, entry->at.last, [&](const StoredFact& f, int64_t) {
          followed = entry->index->Apply(f);
          return followed;
        });
    if (!read.ok()) return read;
    if (followed && entry->index->Size() == static_cast<size_t>(now.facts)) {
      entry->at = now;
      std::lock_guard lock(mutex_);
      ++updates_;
      return Status::OK();
    }
  }
  // Built whole: a first use, a fact deleted, or a fact's text changed.
  entry->index.reset();
  auto index = std::make_unique<LexicalIndex>(scope);
  ENGRAM_RETURN_IF_ERROR(store.ForEachChangedSince(scope, -1, [&](const StoredFact& f, int64_t) {
    index->Add(f);
    return true;
  }));
  index->Seal();
  if (index->Size() != static_cast<size_t>(now.facts)) {
    return Internal("lexical cache: scope '" + scope + "' holds " + std::to_string(now.facts) +
                    " facts by its count, " + std::to_string(index->Size()) + " when read");
  }
  entry->index = std::move(index);
  entry->at = now;
  std::lock_guard lock(mutex_);
  ++builds_;
  return Status::OK();
}

size_t LexicalCache::Builds() const {
  std::lock_guard lock(mutex_);
  return builds_;
}

size_t LexicalCache::Updates() const {
  std::lock_guard lock(mutex_);
  return updates_;
}

}  // namespace engram
