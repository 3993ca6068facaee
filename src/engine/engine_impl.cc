#include "src/engine/engine_impl.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "src/common/hash.h"
#include "src/engine/fact_validator.h"
#include "src/engine/store_opener.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/fact_id.h"
#include "src/text/analyzer.h"

namespace engram {

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateEngineOptions(options));
  EngineOptions opts = options;
  if (!opts.clock) opts.clock = SystemClock();
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, OpenEngineStore(opts));
  return std::unique_ptr<Engine>(new EngineImpl(std::move(opts), std::move(store)));
}

EngineImpl::EngineImpl(EngineOptions options, std::unique_ptr<Store> store)
    : options_(std::make_shared<const EngineOptions>(std::move(options))),
      store_(std::move(store)),
      readers_(options_->readers > 0 ? std::make_unique<ReaderPool>(store_.get(), options_->readers)
                                     : nullptr),
      access_(std::make_unique<AccessRecorder>(
          [this](const std::vector<AccessCount>& counts, bool queued) {
            return WriteAccess(counts, queued);
          })) {
  // The worker exists whenever background backfill was asked for, even
  // while keyword-only: a Reload may bring an embedder. Its steps do
  // nothing without one.
  if (options_->vector.background_backfill) {
    worker_ = std::make_unique<BackfillWorker>(
        [this](const std::atomic<bool>& stop) { BackfillStep(stop); });
  }
}

EngineImpl::~EngineImpl() {
  worker_.reset();
  access_.reset();
}

Status EngineImpl::WriteAccess(const std::vector<AccessCount>& counts, bool queued) {
  if (!queued) {
    std::lock_guard lock(mutex_);
    return store_->Transact([&] { return store_->facts().RecordAccess(counts); });
  }
  if (!access_store_) {
    ENGRAM_ASSIGN_OR_RETURN(access_store_, store_->OpenWriter());
  }
  return access_store_->Transact([&] { return access_store_->facts().RecordAccess(counts); });
}

std::shared_ptr<const EngineOptions> EngineImpl::Options() const {
  std::lock_guard lock(options_mutex_);
  return options_;
}

Status EngineImpl::Reload(const EngineOptions& options) {
  const std::shared_ptr<const EngineOptions> current = Options();
  if (options.db_path != current->db_path) {
    return InvalidArgument("engine: reload: the database cannot change ('" + current->db_path +
                           "' is open, the new options name '" + options.db_path +
                           "'); open a new engine");
  }
  if (options.store_url != current->store_url) {
    return InvalidArgument(
        "engine: reload: the store URL cannot change (store.url differs from the one open); "
        "open a new engine");
  }
  ENGRAM_RETURN_IF_ERROR(ValidateEngineOptions(options).WithContext("engine: reload"));
  auto next = std::make_shared<EngineOptions>(options);
  if (!next->clock) next->clock = current->clock;
  next->create_if_missing = current->create_if_missing;
  next->busy_timeout_ms = current->busy_timeout_ms;
  next->readers = current->readers;
  std::lock_guard lock(mutex_);
  {
    std::lock_guard options_lock(options_mutex_);
    options_ = std::move(next);
  }
  // A new space is looked up on first use; the old space's cache goes.
  cache_.reset();
  space_key_.clear();
  space_id_ = 0;
  if (!worker_ && options.vector.background_backfill) {
    worker_ = std::make_unique<BackfillWorker>(
        [this](const std::atomic<bool>& stop) { BackfillStep(stop); });
  }
  if (worker_ && options.embedder) worker_->Poke();
  return Status::OK();
}

Status EngineImpl::Validate(const NewFact& fact) const {
  return ValidateNewFact(fact, Options()->limits);
}

Result<AddOutcome> EngineImpl::MergeInto(StoredFact existing, const Fact& incoming) {
  // Tags united, updated_at the later of the two, new descriptive values
  // applied (MergeDescription), counters kept.
  AddOutcome outcome;
  Fact merged = std::move(existing.fact);
  std::vector<std::string> tags = merged.tags;
  tags.insert(tags.end(), incoming.tags.begin(), incoming.tags.end());
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  merged.tags = std::move(tags);
  merged.updated_at = std::max(merged.updated_at, incoming.updated_at);
  ENGRAM_RETURN_IF_ERROR(store_->facts().UpdateTags(merged.scope, existing.rowid, merged.tags,
                                                    merged.updated_at, CountTagTerms(merged.tags)));
  outcome.updated_fields = MergeDescription(incoming, &merged);
  if (!outcome.updated_fields.empty()) {
    ENGRAM_RETURN_IF_ERROR(store_->facts().UpdateDescription(existing.rowid, merged));
  }
  if (merged.IsSuperseded()) {
    outcome.warnings.push_back("fact " + merged.id + " was superseded by " + merged.superseded_by +
                               "; it stays superseded (update that fact to bring this text "
                               "back)");
  }
  outcome.fact = std::move(merged);
  outcome.created = false;
  return outcome;
}

Result<AddOutcome> EngineImpl::AddLocked(const LimitOptions& limits, const NewFact& in,
                                         Timestamp now, int64_t* rowid) {
  ENGRAM_RETURN_IF_ERROR(ValidateNewFact(in, limits));
  FactRow row;
  row.fact = BuildFact(in, now);
  AddOutcome outcome;
  ENGRAM_ASSIGN_OR_RETURN(std::optional<StoredFact> existing,
                          store_->facts().Find(row.fact.scope, row.fact.id));
  if (existing) return MergeInto(std::move(*existing), row.fact);
  row.text = CountFactText(row.fact.content, row.fact.tags);
  ENGRAM_ASSIGN_OR_RETURN(*rowid, store_->facts().Insert(row));
  outcome.fact = std::move(row.fact);
  outcome.created = true;
  return outcome;
}

Result<AddOutcome> EngineImpl::Add(const NewFact& fact) {
  const std::shared_ptr<const EngineOptions> options = Options();
  NewFact in = fact;
  const Timestamp now = options->clock->NowMillis();
  // Adding again bumps updated_at even when the caller gave no time.
  if (!in.updated_at && !in.created_at) in.updated_at = now;
  Result<AddOutcome> result = Internal("engine: add: not run");
  int64_t rowid = 0;
  {
    std::lock_guard lock(mutex_);
    Status s = store_->Transact([&] {
      result = AddLocked(options->limits, in, now, &rowid);
      return result.status();
    });
    if (!s.ok()) return s.WithContext("engine: add");
  }
  if (result->created && options->embedder) {
    const std::vector<FactToEmbed> todo = {
        {result->fact.scope, rowid, result->fact.id, result->fact.content}};
    std::vector<EmbeddedFact> vectors;
    EmbedAndStore(*options, todo, nullptr, {}, &result->warnings, &vectors);
    std::vector<std::optional<AddOutcome>> merged =
        MergeNearDuplicates(*options, &vectors, &result->warnings);
    if (!merged.empty() && merged[0]) {
      merged[0]->warnings.insert(merged[0]->warnings.begin(), result->warnings.begin(),
                                 result->warnings.end());
      return std::move(*merged[0]);
    }
    LinkVersions(*options, vectors, &result->warnings);
  }
  return result;
}

Result<ImportReport> EngineImpl::Import(const std::vector<NewFact>& facts,
                                        const ImportOptions& options) {
  const std::shared_ptr<const EngineOptions> engine_options = Options();
  const Timestamp now = engine_options->clock->NowMillis();
  ImportReport report;
  std::vector<FactToEmbed> created;
  {
    std::lock_guard lock(mutex_);
    Status s = store_->Transact([&]() -> Status {
      for (size_t i = 0; i < facts.size(); ++i) {
        int64_t rowid = 0;
        auto outcome = AddLocked(engine_options->limits, facts[i], now, &rowid);
        if (!outcome.ok()) {
          return outcome.status().WithContext("engine: import: fact " + std::to_string(i + 1));
        }
        ++(outcome->created ? report.added : report.merged);
        if (outcome->created && engine_options->embedder) {
          created.push_back({outcome->fact.scope, rowid, outcome->fact.id, outcome->fact.content});
        }
        if (options.progress) options.progress(i + 1, facts.size());
      }
      return CheckRestoredHistory(facts);
    });
    if (!s.ok()) return s;
  }
  // The facts are committed; their vectors follow batch by batch. A failure
  // here leaves facts without vectors, which backfill completes.
  if (!created.empty()) {
    std::vector<EmbeddedFact> vectors;
    report.embedded = EmbedAndStore(*engine_options, created, nullptr, options.embed_progress,
                                    &report.warnings, &vectors);
    for (const std::optional<AddOutcome>& m :
         MergeNearDuplicates(*engine_options, &vectors, &report.warnings)) {
      if (!m) continue;
      --report.added;
      if (report.embedded > 0) --report.embedded;  // its vector went with it
      ++report.merged;
      ++report.near_duplicates;
      report.merged_into[m->near_duplicate->id] = m->fact.id;
    }
    LinkVersions(*engine_options, vectors, &report.warnings);
  }
  return report;
}

Status EngineImpl::CheckRestoredHistory(const std::vector<NewFact>& facts) {
  VersionStore& links = store_->versions();
  for (size_t i = 0; i < facts.size(); ++i) {
    if (!facts[i].superseded_by) continue;
    const std::string& scope = facts[i].scope;
    auto newer = store_->facts().Find(scope, *facts[i].superseded_by);
    if (!newer.ok() || !*newer) {
      return InvalidArgument("engine: import: fact " + std::to_string(i + 1) + ": superseded_by '" +
                             *facts[i].superseded_by + "' names no fact of scope '" + scope + "'");
    }
    ENGRAM_ASSIGN_OR_RETURN(StoredFact older, store_->facts().Get(scope, FactId(facts[i].content)));
    ENGRAM_RETURN_IF_ERROR(links.Put(scope, {older.rowid, (*newer)->rowid, 1.0, true}));
  }
  return Status::OK();
}

Result<Fact> EngineImpl::Get(const std::string& scope, const std::string& id_or_prefix) {
  FlushAccess();
  std::lock_guard lock(mutex_);
  ENGRAM_ASSIGN_OR_RETURN(StoredFact f, store_->facts().Get(scope, id_or_prefix));
  // Named, not served, as in search (engine_search.cc).
  if (const std::string wrong = IdMismatch(f.fact.id, f.fact.content); !wrong.empty()) {
    return Corruption("engine: fact " + f.fact.id + " (scope '" + scope + "'): " + wrong +
                      "; run engram check, and export to see what it holds now");
  }
  return f.fact;
}

Result<std::vector<Fact>> EngineImpl::List(const ListOptions& options) {
  ListOptions normalized = options;
  if (!normalized.tag.empty()) normalized.tag = NormalizeTag(normalized.tag);
  FactVisibility visibility;
  visibility.now = Options()->clock->NowMillis();
  visibility.include_superseded = options.include_superseded;
  ENGRAM_ASSIGN_OR_RETURN(visibility.filter, NormalizeFilter(options.filter));
  FlushAccess();
  std::lock_guard lock(mutex_);
  return store_->facts().List(normalized, visibility);
}

Status EngineImpl::Export(const std::vector<std::string>& scopes,
                          const std::function<bool(const Fact&)>& sink) {
  FlushAccess();
  std::lock_guard lock(mutex_);
  return store_->facts().ForEach(scopes, [&](const StoredFact& f) { return sink(f.fact); });
}

Result<StoreStats> EngineImpl::Stats() {
  const std::shared_ptr<const EngineOptions> options = Options();
  FlushAccess();
  std::lock_guard lock(mutex_);
  ENGRAM_ASSIGN_OR_RETURN(FactStore::Counts counts, store_->facts().CountFacts());
  StoreStats stats;
  stats.facts = counts.facts;
  stats.scopes = std::move(counts.scopes);
  stats.schema_version = counts.schema_version;
  stats.db_path = std::move(counts.location);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SpaceInfo> spaces, store_->vectors().Spaces());
  if (options->embedder) stats.active_space = options->embedder->Space();
  stats.missing_vectors = options->embedder ? stats.facts : 0;
  for (const SpaceInfo& info : spaces) {
    const bool active = options->embedder && info.space.Key() == stats.active_space.Key();
    stats.spaces.push_back(SpaceStats{info.space, info.vectors, active});
    if (active) {
      stats.vectors = info.vectors;
      ENGRAM_ASSIGN_OR_RETURN(stats.missing_vectors, store_->vectors().CountMissing(info.id));
    }
  }
  return stats;
}

}  // namespace engram
