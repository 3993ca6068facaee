// EngineImpl: the one place that wires store, lexical index and ranking.
//
// Thread-safety: every use of the store's connection and of the vector
// cache happens under mutex_. Embedding (the slow part) runs outside it, so
// searches go on while an import or the backfill worker embeds; vectors
// are then written in short transactions of their own.
#ifndef ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_
#define ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "src/engine/backfill_worker.h"
#include "src/engine/vector_cache.h"
#include "src/store/fact_store.h"
#include "src/store/vector_store.h"

namespace engram {

class EngineImpl final : public Engine {
 public:
  EngineImpl(EngineOptions options, std::unique_ptr<FactStore> store);
  ~EngineImpl() override;

  Result<AddOutcome> Add(const NewFact& fact) override;
  Status Validate(const NewFact& fact) const override;
  Result<ImportReport> Import(const std::vector<NewFact>& facts,
                              const ImportOptions& options) override;
  Result<Fact> Get(const std::string& scope, const std::string& id_or_prefix) override;
  Result<std::vector<Fact>> List(const ListOptions& options) override;
  Result<int64_t> Forget(const ForgetRequest& request) override;
  Status Export(const std::vector<std::string>& scopes,
                const std::function<bool(const Fact&)>& sink) override;
  Result<SearchResponse> Search(const std::string& query, const SearchOptions& options) override;
  Result<StoreStats> Stats() override;
  Result<BackfillReport> Backfill(const BackfillOptions& options) override;
  Result<int64_t> PruneVectors() override;
  const EngineOptions& options() const override { return options_; }

 private:
  // Validates, builds and upserts one fact; caller holds mutex_ and runs
  // inside a transaction. `rowid` receives the new fact's row when created.
  Result<AddOutcome> AddLocked(const NewFact& fact, Timestamp now, int64_t* rowid);

  // The active space's id, creating it on first need; caller holds mutex_.
  Result<int64_t> EnsureSpaceLocked();
  // The vector cache of the active space, created on first need; caller
  // holds mutex_ and the space exists.
  VectorCache* CacheLocked();

  // Embeds `facts` in batches and stores their vectors, each batch in its
  // own transaction. Takes mutex_ only to write; the caller must not hold
  // it. Facts that cannot be embedded are left without a vector and named
  // in `warnings`. Stops between batches when `stop` turns true.
  Result<size_t> EmbedAndStore(const std::vector<FactToEmbed>& facts, const std::atomic<bool>* stop,
                               const std::function<void(size_t, size_t)>& progress,
                               std::vector<std::string>* warnings);

  // The background step: embeds up to backfill_batch_max missing facts.
  void BackfillStep(const std::atomic<bool>& stop);

  EngineOptions options_;
  std::unique_ptr<FactStore> store_;
  VectorStore vectors_;
  int64_t space_id_ = 0;                // 0 until the active space exists; guarded by mutex_
  std::unique_ptr<VectorCache> cache_;  // guarded by mutex_
  std::mutex mutex_;
  // Last: stopped and joined before anything it uses is destroyed.
  std::unique_ptr<BackfillWorker> worker_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_
