#include "src/engine/engine_impl.h"

#include <algorithm>
#include <string>
#include <utility>

#include "src/engine/fact_validator.h"
#include "src/lexical/fts5_engram.h"
#include "src/lexical/lexical_searcher.h"

namespace engram {

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  EngineOptions opts = options;
  if (!opts.clock) opts.clock = SystemClock();
  FactStoreOptions store_options;
  store_options.path = opts.db_path;
  store_options.create_if_missing = opts.create_if_missing;
  store_options.on_connect = &RegisterEngramFts5;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<FactStore> store, FactStore::Open(store_options));
  return std::unique_ptr<Engine>(new EngineImpl(std::move(opts), std::move(store)));
}

EngineImpl::EngineImpl(EngineOptions options, std::unique_ptr<FactStore> store)
    : options_(std::move(options)), store_(std::move(store)) {}

Status EngineImpl::Validate(const NewFact& fact) const {
  return ValidateNewFact(fact, options_.limits);
}

Result<AddOutcome> EngineImpl::AddLocked(const NewFact& in, Timestamp now) {
  ENGRAM_RETURN_IF_ERROR(ValidateNewFact(in, options_.limits));
  FactRow row;
  row.fact = BuildFact(in, now);
  row.content_terms = CountTerms(row.fact.content);
  row.tags_terms = CountTagTerms(row.fact.tags);
  AddOutcome outcome;
  // A merge unites tags; the length the index sees is that of the union.
  std::vector<std::string> merged_tags = row.fact.tags;
  if (auto existing = store_->Get(row.fact.scope, row.fact.id); existing.ok()) {
    merged_tags.insert(merged_tags.end(), existing->fact.tags.begin(), existing->fact.tags.end());
    std::sort(merged_tags.begin(), merged_tags.end());
    merged_tags.erase(std::unique(merged_tags.begin(), merged_tags.end()), merged_tags.end());
  }
  ENGRAM_ASSIGN_OR_RETURN(outcome.fact,
                          store_->Upsert(row, CountTagTerms(merged_tags), &outcome.created));
  return outcome;
}

Result<AddOutcome> EngineImpl::Add(const NewFact& fact) {
  std::lock_guard lock(mutex_);
  NewFact in = fact;
  const Timestamp now = options_.clock->NowMillis();
  // Adding again bumps updated_at even when the caller gave no time.
  if (!in.updated_at && !in.created_at) in.updated_at = now;
  Result<AddOutcome> result = Internal("engine: add: not run");
  Status s = store_->Transact([&] {
    result = AddLocked(in, now);
    return result.status();
  });
  if (!s.ok()) return s.WithContext("engine: add");
  return result;
}

Result<ImportReport> EngineImpl::Import(const std::vector<NewFact>& facts,
                                        const ImportOptions& options) {
  std::lock_guard lock(mutex_);
  const Timestamp now = options_.clock->NowMillis();
  ImportReport report;
  Status s = store_->Transact([&]() -> Status {
    for (size_t i = 0; i < facts.size(); ++i) {
      auto outcome = AddLocked(facts[i], now);
      if (!outcome.ok()) {
        return outcome.status().WithContext("engine: import: fact " + std::to_string(i + 1));
      }
      ++(outcome->created ? report.added : report.merged);
      if (options.progress) options.progress(i + 1, facts.size());
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return report;
}

Result<Fact> EngineImpl::Get(const std::string& scope, const std::string& id_or_prefix) {
  std::lock_guard lock(mutex_);
  ENGRAM_ASSIGN_OR_RETURN(StoredFact f, store_->Get(scope, id_or_prefix));
  return f.fact;
}

Result<std::vector<Fact>> EngineImpl::List(const ListOptions& options) {
  std::lock_guard lock(mutex_);
  return store_->List(options);
}

Result<int64_t> EngineImpl::Forget(const ForgetRequest& request) {
  const int chosen = (!request.ids.empty() ? 1 : 0) + (!request.tag.empty() ? 1 : 0) +
                     (request.whole_scope ? 1 : 0);
  if (chosen != 1) {
    return InvalidArgument("engine: forget: give exactly one of ids, a tag or the whole scope");
  }
  std::lock_guard lock(mutex_);
  int64_t removed = 0;
  Status s = store_->Transact([&]() -> Status {
    if (request.whole_scope) {
      ENGRAM_ASSIGN_OR_RETURN(removed, store_->DeleteScope(request.scope));
    } else if (!request.tag.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(removed, store_->DeleteTag(request.scope, request.tag));
    } else {
      std::vector<int64_t> rowids;
      for (const auto& id : request.ids) {
        ENGRAM_ASSIGN_OR_RETURN(StoredFact f, store_->Get(request.scope, id));
        rowids.push_back(f.rowid);
      }
      ENGRAM_ASSIGN_OR_RETURN(removed, store_->DeleteRowids(rowids));
    }
    return Status::OK();
  });
  if (!s.ok()) return s.WithContext("engine: forget");
  return removed;
}

Status EngineImpl::Export(const std::vector<std::string>& scopes,
                          const std::function<bool(const Fact&)>& sink) {
  std::lock_guard lock(mutex_);
  return store_->ForEach(scopes, [&](const StoredFact& f) { return sink(f.fact); });
}

Result<StoreStats> EngineImpl::Stats() {
  std::lock_guard lock(mutex_);
  return store_->Stats();
}

}  // namespace engram
