// Facts that change, the explicit part (docs/ARCHITECTURE.md): updates that
// keep the old version, the history of a fact, and forgetting that keeps
// the history of what stays in order.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/engine/engine_impl.h"
#include "src/engine/fact_validator.h"
#include "src/store/fact_id.h"
#include "src/store/version_store.h"

namespace engram {
namespace {

// Most links followed along one chain; a chain is never this long unless
// the store holds a cycle, which this bound breaks.
constexpr size_t kMaxChain = 10000;

std::string Ids(const std::vector<StoredFact>& facts) {
  std::string out;
  for (const StoredFact& f : facts) out += (out.empty() ? "" : ", ") + f.fact.id;
  return out;
}

}  // namespace

Result<UpdateOutcome> EngineImpl::Update(const UpdateRequest& request) {
  const std::shared_ptr<const EngineOptions> options = Options();
  const Timestamp now = options->clock->NowMillis();
  NewFact in = request.replacement;
  in.scope = request.scope;
  if (!in.updated_at && !in.created_at) in.updated_at = now;
  UpdateOutcome outcome;
  int64_t created_rowid = 0;
  {
    std::lock_guard lock(mutex_);
    Status s = store_->Transact([&]() -> Status {
      ENGRAM_ASSIGN_OR_RETURN(StoredFact old, store_->facts().Get(request.scope, request.id));
      if (old.fact.IsSuperseded()) {
        return FailedPrecondition("fact " + old.fact.id + " was already replaced by " +
                                  old.fact.superseded_by + "; update the current version");
      }
      ENGRAM_RETURN_IF_ERROR(ValidateNewFact(in, options->limits));
      if (FactId(in.content) == old.fact.id) {
        return InvalidArgument("the new content is the same fact as " + old.fact.id +
                               " once normalised; add it again to change its tags or fields");
      }
      ENGRAM_ASSIGN_OR_RETURN(AddOutcome added,
                              AddLocked(options->limits, in, now, &created_rowid));
      ENGRAM_ASSIGN_OR_RETURN(StoredFact current,
                              store_->facts().Get(request.scope, added.fact.id));
      if (current.fact.IsSuperseded()) {
        // The text of an older version again (A -> B -> A): that fact is
        // current once more.
        ENGRAM_RETURN_IF_ERROR(store_->facts().SetSuperseded(request.scope, current.rowid, "", 0));
        current.fact.superseded_by.clear();
        current.fact.valid_until = 0;
        added.warnings.clear();
      }
      ENGRAM_RETURN_IF_ERROR(
          store_->facts().SetSuperseded(request.scope, old.rowid, current.fact.id, now));
      ENGRAM_RETURN_IF_ERROR(
          store_->versions().Put(request.scope, {old.rowid, current.rowid, 1.0, true}));
      old.fact.superseded_by = current.fact.id;
      old.fact.valid_until = now;
      outcome.fact = std::move(current.fact);
      outcome.created = added.created;
      outcome.superseded = std::move(old.fact);
      outcome.warnings = std::move(added.warnings);
      return Status::OK();
    });
    if (!s.ok()) return s.WithContext("engine: update");
  }
  if (outcome.created && options->embedder) {
    const std::vector<FactToEmbed> todo = {
        {outcome.fact.scope, created_rowid, outcome.fact.id, outcome.fact.content}};
    EmbedAndStore(*options, todo, nullptr, {}, &outcome.warnings);
  }
  return outcome;
}

Result<std::vector<Fact>> EngineImpl::History(const std::string& scope, const std::string& id) {
  FlushAccess();
  std::lock_guard lock(mutex_);
  std::vector<Fact> chain;
  Status s = store_->ReadTransact([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(StoredFact cur, store_->facts().Get(scope, id));
    std::set<std::string> seen = {cur.fact.id};
    // Forward to the current version.
    while (cur.fact.IsSuperseded() && seen.size() < kMaxChain) {
      auto next = store_->facts().Get(scope, cur.fact.superseded_by);
      if (!next.ok()) break;  // replaced by a fact that is gone
      if (!seen.insert(next->fact.id).second) break;
      cur = std::move(*next);
    }
    // Back through everything it replaced.
    std::vector<std::string> queue = {cur.fact.id};
    chain.push_back(std::move(cur.fact));
    std::set<std::string> listed = {chain.back().id};
    while (!queue.empty() && chain.size() < kMaxChain) {
      const std::string next = queue.back();
      queue.pop_back();
      ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> older,
                              store_->facts().SupersededBy(scope, next));
      for (StoredFact& o : older) {
        if (!listed.insert(o.fact.id).second) continue;
        queue.push_back(o.fact.id);
        chain.push_back(std::move(o.fact));
      }
    }
    return Status::OK();
  });
  if (!s.ok()) return s.WithContext("engine: history");
  std::sort(chain.begin(), chain.end(), [](const Fact& a, const Fact& b) {
    if (a.created_at != b.created_at) return a.created_at < b.created_at;
    return a.id < b.id;
  });
  return chain;
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
      ENGRAM_ASSIGN_OR_RETURN(removed, store_->facts().DeleteScope(request.scope));
      if (removed == 0) return NotFound("scope '" + request.scope + "' holds no facts");
      return Status::OK();
    }
    std::vector<StoredFact> doomed;
    if (!request.tag.empty()) {
      ListOptions tagged;
      tagged.scopes = {request.scope};
      tagged.tag = NormalizeTag(request.tag);
      tagged.limit = 0;
      FactVisibility everything;
      everything.include_superseded = true;
      everything.include_expired = true;
      ENGRAM_ASSIGN_OR_RETURN(std::vector<Fact> facts, store_->facts().List(tagged, everything));
      for (const Fact& f : facts) {
        ENGRAM_ASSIGN_OR_RETURN(StoredFact stored, store_->facts().Get(request.scope, f.id));
        doomed.push_back(std::move(stored));
      }
    } else {
      for (const auto& id : request.ids) {
        ENGRAM_ASSIGN_OR_RETURN(StoredFact f, store_->facts().Get(request.scope, id));
        doomed.push_back(std::move(f));
      }
    }
    ENGRAM_ASSIGN_OR_RETURN(removed,
                            ForgetLocked(request.scope, std::move(doomed), request.history));
    return Status::OK();
  });
  if (!s.ok()) return s.WithContext("engine: forget");
  // The removed facts' vectors are gone too; their rowids may come back.
  if (removed > 0 && cache_) cache_->MarkDirty();
  return removed;
}

Result<int64_t> EngineImpl::RemoveExpired() {
  const Timestamp now = Options()->clock->NowMillis();
  std::lock_guard lock(mutex_);
  int64_t removed = 0;
  Status s = store_->Transact([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> expired, store_->facts().Expired(now));
    std::map<std::string, std::vector<StoredFact>> by_scope;
    for (StoredFact& f : expired) by_scope[f.fact.scope].push_back(std::move(f));
    for (auto& [scope, facts] : by_scope) {
      ENGRAM_ASSIGN_OR_RETURN(int64_t n,
                              ForgetLocked(scope, std::move(facts), ForgetHistory::kDelete));
      removed += n;
    }
    return Status::OK();
  });
  if (!s.ok()) return s.WithContext("engine: gc");
  if (removed > 0 && cache_) cache_->MarkDirty();
  return removed;
}

Result<int64_t> EngineImpl::ForgetLocked(const std::string& scope, std::vector<StoredFact> doomed,
                                         ForgetHistory history) {
  std::map<std::string, StoredFact> by_id;
  for (StoredFact& f : doomed) by_id.emplace(f.fact.id, std::move(f));
  // The first fact after `id` along its chain that stays; empty when the
  // chain ends among the forgotten.
  const auto survivor = [&](std::string id) {
    for (size_t hops = 0; !id.empty() && hops < kMaxChain; ++hops) {
      const auto it = by_id.find(id);
      if (it == by_id.end()) return id;
      id = it->second.fact.superseded_by;
    }
    return std::string();
  };
  // Phase 1: facts that stay and that a forgotten fact replaced.
  std::vector<StoredFact> orphans;
  for (const auto& [id, f] : by_id) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> older, store_->facts().SupersededBy(scope, id));
    for (StoredFact& o : older) {
      if (!by_id.count(o.fact.id)) orphans.push_back(std::move(o));
    }
  }
  // Phase 2: each moves on to the next version that stays, or has none.
  std::vector<StoredFact> headless;
  for (StoredFact& o : orphans) {
    const std::string next = survivor(o.fact.superseded_by);
    if (next.empty()) {
      headless.push_back(std::move(o));
    } else {
      ENGRAM_RETURN_IF_ERROR(
          store_->facts().SetSuperseded(scope, o.rowid, next, o.fact.valid_until));
    }
  }
  // Phase 3: older versions whose current version goes.
  if (!headless.empty()) {
    switch (history) {
      case ForgetHistory::kRefuse:
        return FailedPrecondition(
            "forgetting the current version leaves its older version(s) " + Ids(headless) +
            " without one; say history 'restore' (the newest of them becomes current "
            "again) or 'delete' (forget them too)");
      case ForgetHistory::kRestore: {
        std::sort(headless.begin(), headless.end(), [](const StoredFact& a, const StoredFact& b) {
          if (a.fact.valid_until != b.fact.valid_until) {
            return a.fact.valid_until > b.fact.valid_until;
          }
          return a.fact.created_at > b.fact.created_at;
        });
        ENGRAM_RETURN_IF_ERROR(store_->facts().SetSuperseded(scope, headless[0].rowid, "", 0));
        for (size_t i = 1; i < headless.size(); ++i) {
          ENGRAM_RETURN_IF_ERROR(store_->facts().SetSuperseded(
              scope, headless[i].rowid, headless[0].fact.id, headless[i].fact.valid_until));
        }
        break;
      }
      case ForgetHistory::kDelete: {
        // Everything older than them goes too.
        std::vector<StoredFact> queue = std::move(headless);
        while (!queue.empty()) {
          StoredFact f = std::move(queue.back());
          queue.pop_back();
          if (by_id.count(f.fact.id)) continue;
          ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> older,
                                  store_->facts().SupersededBy(scope, f.fact.id));
          for (StoredFact& o : older) queue.push_back(std::move(o));
          by_id.emplace(f.fact.id, std::move(f));
        }
        break;
      }
    }
  }
  std::vector<int64_t> rowids;
  rowids.reserve(by_id.size());
  for (const auto& [id, f] : by_id) rowids.push_back(f.rowid);
  return store_->facts().DeleteRowids({scope}, rowids);
}

}  // namespace engram
