// EngineImpl: the one place that wires store, lexical index and ranking.
//
// Thread-safety: every public call takes mutex_, so calls are serialised;
// the store's connection is never used by two threads at once.
#ifndef ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_
#define ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "src/store/fact_store.h"

namespace engram {

class EngineImpl final : public Engine {
 public:
  EngineImpl(EngineOptions options, std::unique_ptr<FactStore> store);

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
  const EngineOptions& options() const override { return options_; }

 private:
  // Validates, builds and upserts one fact; caller holds mutex_ and runs
  // inside a transaction.
  Result<AddOutcome> AddLocked(const NewFact& fact, Timestamp now);

  EngineOptions options_;
  std::unique_ptr<FactStore> store_;
  std::mutex mutex_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_
