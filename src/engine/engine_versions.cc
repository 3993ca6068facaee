// EngineImpl::LinkVersions: version links found on write
// (docs/ARCHITECTURE.md, "Facts that change"). Each new fact's nearest
// facts of its scope are read from the vector cache, brought in step with
// the store first; their creation times decide which of a pair is the newer
// version. The links of all the facts are written in one transaction.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/engine/engine_impl.h"
#include "src/store/version_store.h"

namespace engram {

void EngineImpl::LinkVersions(const EngineOptions& options,
                              const std::vector<EmbeddedFact>& embedded,
                              std::vector<std::string>* warnings) {
  const VersionOptions& versions = options.versions;
  if (!versions.link_on_write || versions.link_max == 0 || embedded.empty() || !options.embedder) {
    return;
  }
  FactVisibility everything;
  everything.include_superseded = true;
  everything.include_expired = true;
  Status s = [&]() -> Status {
    // Phase 1: the new facts' scopes and creation times.
    std::vector<int64_t> rowids;
    rowids.reserve(embedded.size());
    for (const EmbeddedFact& e : embedded) rowids.push_back(e.rowid);
    std::unordered_map<int64_t, RankInput> facts;
    std::vector<std::string> scopes;
    {
      std::lock_guard lock(mutex_);
      ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> found,
                              store_->RankInputsOf(rowids, everything));
      for (RankInput& r : found) {
        if (std::find(scopes.begin(), scopes.end(), r.scope) == scopes.end()) {
          scopes.push_back(r.scope);
        }
        facts.emplace(r.rowid, std::move(r));
      }
    }
    if (facts.empty()) return Status::OK();
    ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<VectorCache> cache,
                            SyncedCache(options, scopes, warnings));
    if (!cache) return Status::OK();

    // Phase 2: each new fact's nearest facts, itself left out.
    struct Pair {
      int64_t fact = 0;
      int64_t neighbour = 0;
      float cosine = 0;
    };
    std::vector<Pair> pairs;
    {
      const VectorCache::View view(*cache);
      std::vector<std::optional<float>> unused;
      for (const EmbeddedFact& e : embedded) {
        const auto it = facts.find(e.rowid);
        if (it == facts.end()) continue;
        ENGRAM_ASSIGN_OR_RETURN(std::vector<VectorHit> hits,
                                view.Search(e.vector, {it->second.scope}, versions.link_max + 1,
                                            versions.link_min_cosine, {}, &unused));
        size_t kept = 0;
        for (const VectorHit& h : hits) {
          if (h.fact_rowid == e.rowid || kept == versions.link_max) continue;
          pairs.push_back(Pair{e.rowid, h.fact_rowid, h.cosine});
          ++kept;
        }
      }
    }
    if (pairs.empty()) return Status::OK();

    // Phase 3: the neighbours' creation times; the later fact is the newer.
    std::lock_guard lock(mutex_);
    std::vector<int64_t> neighbours;
    neighbours.reserve(pairs.size());
    for (const Pair& p : pairs) {
      if (!facts.count(p.neighbour)) neighbours.push_back(p.neighbour);
    }
    ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> found,
                            store_->RankInputsOf(neighbours, everything));
    for (RankInput& r : found) facts.emplace(r.rowid, std::move(r));
    VersionStore links(store_->db());
    return store_->Transact([&]() -> Status {
      for (const Pair& p : pairs) {
        const auto a = facts.find(p.fact);
        const auto b = facts.find(p.neighbour);
        if (a == facts.end() || b == facts.end()) continue;  // forgotten meanwhile
        const Timestamp ta = a->second.created_at;
        const Timestamp tb = b->second.created_at;
        if (ta == tb) continue;
        VersionLink link;
        link.older_rowid = ta < tb ? p.fact : p.neighbour;
        link.newer_rowid = ta < tb ? p.neighbour : p.fact;
        link.cosine = p.cosine;
        ENGRAM_RETURN_IF_ERROR(links.Put(link));
      }
      return Status::OK();
    });
  }();
  if (!s.ok()) warnings->push_back("version links not written: " + s.message());
}

}  // namespace engram
