// EngineImpl::LinkVersions: version links found on write
// (docs/ARCHITECTURE.md, "Facts that change"). Each new fact's nearest
// facts of its scope are read from the vector cache, brought in step with
// the store first; a pair is kept when the two also share their rare words
// (src/lexical/term_overlap.h); their creation times decide which of a pair
// is the newer version. The links of all the facts are written in one transaction.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/engine/engine_impl.h"
#include "src/lexical/lexical_searcher.h"
#include "src/lexical/term_overlap.h"
#include "src/store/version_store.h"

namespace engram {

Result<std::vector<EngineImpl::Pair>> EngineImpl::NearestPairs(
    const EngineOptions& options, const std::vector<EmbeddedFact>& embedded,
    const FactVisibility& visibility, size_t per_fact, double min_cosine,
    std::unordered_map<int64_t, RankInput>* facts, std::vector<std::string>* warnings) {
  std::vector<Pair> pairs;
  // The new facts' scopes.
  std::vector<int64_t> rowids;
  rowids.reserve(embedded.size());
  std::vector<std::string> scopes;
  for (const EmbeddedFact& e : embedded) {
    rowids.push_back(e.rowid);
    if (std::find(scopes.begin(), scopes.end(), e.scope) == scopes.end()) {
      scopes.push_back(e.scope);
    }
  }
  {
    std::lock_guard lock(mutex_);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> found,
                            store_->facts().RankInputsOf(scopes, rowids, visibility));
    for (RankInput& r : found) facts->emplace(r.rowid, std::move(r));
  }
  if (facts->empty()) return pairs;
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<VectorCache> cache,
                          SyncedCache(options, scopes, warnings));
  if (!cache) return pairs;
  // Their nearest facts, from the cache brought in step above.
  const VectorCache::View view(*cache);
  std::vector<std::optional<float>> unused;
  for (const EmbeddedFact& e : embedded) {
    const auto it = facts->find(e.rowid);
    if (it == facts->end()) continue;
    ENGRAM_ASSIGN_OR_RETURN(
        std::vector<VectorHit> hits,
        view.Search(e.vector, {it->second.scope}, per_fact + 1, min_cosine, {}, &unused));
    size_t kept = 0;
    for (const VectorHit& h : hits) {
      if (h.fact_rowid == e.rowid || kept == per_fact) continue;
      pairs.push_back(Pair{e.rowid, h.fact_rowid, h.cosine});
      ++kept;
    }
  }
  return pairs;
}

Status EngineImpl::AddNeighbourInputs(const std::vector<Pair>& pairs,
                                      const FactVisibility& visibility,
                                      std::unordered_map<int64_t, RankInput>* facts) {
  std::vector<int64_t> neighbours;
  std::vector<std::string> scopes;  // a neighbour is of its fact's scope
  neighbours.reserve(pairs.size());
  for (const Pair& p : pairs) {
    if (facts->count(p.neighbour)) continue;
    neighbours.push_back(p.neighbour);
    const std::string& scope = facts->at(p.fact).scope;
    if (std::find(scopes.begin(), scopes.end(), scope) == scopes.end()) scopes.push_back(scope);
  }
  if (neighbours.empty()) return Status::OK();
  ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> found,
                          store_->facts().RankInputsOf(scopes, neighbours, visibility));
  for (RankInput& r : found) facts->emplace(r.rowid, std::move(r));
  return Status::OK();
}

Result<std::vector<double>> EngineImpl::TermOverlaps(
    const EngineOptions& options, const std::vector<Pair>& pairs,
    const std::unordered_map<int64_t, RankInput>& facts) {
  std::vector<int64_t> rowids;
  std::vector<std::string> scopes;
  for (const Pair& p : pairs) {
    rowids.push_back(p.fact);
    rowids.push_back(p.neighbour);
    const std::string& scope = facts.at(p.fact).scope;
    if (std::find(scopes.begin(), scopes.end(), scope) == scopes.end()) scopes.push_back(scope);
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> stored,
                          store_->facts().GetByRowids(scopes, rowids));
  std::unordered_map<int64_t, std::vector<std::string>> terms;
  for (const StoredFact& f : stored) terms[f.rowid] = AnalyzeQuery(f.fact.content).Terms();
  // One set of statistics per scope, over every term of its pairs.
  std::unordered_map<std::string, std::vector<std::string>> scope_terms;
  for (const Pair& p : pairs) {
    std::vector<std::string>& all = scope_terms[facts.at(p.fact).scope];
    for (const int64_t rowid : {p.fact, p.neighbour}) {
      const std::vector<std::string>& t = terms[rowid];
      all.insert(all.end(), t.begin(), t.end());
    }
  }
  std::unordered_map<std::string, TermStatistics> stats;
  for (const auto& entry : scope_terms) {
    const std::string& scope = entry.first;
    const std::vector<std::string>& all = entry.second;
    // One read transaction, so that the index leased and the store's
    // count of facts describe the same state.
    ENGRAM_RETURN_IF_ERROR(store_->ReadTransact([&]() -> Status {
      std::optional<LexicalCache::Lease> lease;
      if (options.lexical_cache) {
        ENGRAM_ASSIGN_OR_RETURN(lease, lexical_cache_.Acquire(store_->facts(), scope));
      }
      ENGRAM_ASSIGN_OR_RETURN(
          stats[scope],
          TermDocumentFrequencies(store_->facts(), all, scope, lease ? &lease->Index() : nullptr));
      return Status::OK();
    }));
  }
  std::vector<double> overlap;
  overlap.reserve(pairs.size());
  for (const Pair& p : pairs) {
    overlap.push_back(
        WeightedTermOverlap(terms[p.fact], terms[p.neighbour], stats.at(facts.at(p.fact).scope)));
  }
  return overlap;
}

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
    // Phase 1: each new fact's nearest facts, itself left out.
    std::unordered_map<int64_t, RankInput> facts;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<Pair> pairs,
                            NearestPairs(options, embedded, everything, versions.link_max,
                                         versions.link_min_cosine, &facts, warnings));
    if (pairs.empty()) return Status::OK();

    // Phase 2: the neighbours' creation times; the later fact is the newer.
    std::lock_guard lock(mutex_);
    ENGRAM_RETURN_IF_ERROR(AddNeighbourInputs(pairs, everything, &facts));

    // Phase 3: pairs of facts still stored (not forgotten meanwhile),
    // created at different instants, that also say it in the same words.
    std::vector<Pair> linked;
    for (const Pair& p : pairs) {
      const auto a = facts.find(p.fact);
      const auto b = facts.find(p.neighbour);
      if (a == facts.end() || b == facts.end()) continue;
      if (a->second.created_at != b->second.created_at) linked.push_back(p);
    }
    if (versions.link_min_overlap > 0.0) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<double> overlap, TermOverlaps(options, linked, facts));
      size_t kept = 0;
      for (size_t i = 0; i < linked.size(); ++i) {
        if (overlap[i] >= versions.link_min_overlap) linked[kept++] = linked[i];
      }
      linked.resize(kept);
    }

    VersionStore& links = store_->versions();
    return store_->Transact([&]() -> Status {
      for (const Pair& p : linked) {
        const Timestamp ta = facts.at(p.fact).created_at;
        const Timestamp tb = facts.at(p.neighbour).created_at;
        VersionLink link;
        link.older_rowid = ta < tb ? p.fact : p.neighbour;
        link.newer_rowid = ta < tb ? p.neighbour : p.fact;
        link.cosine = p.cosine;
        ENGRAM_RETURN_IF_ERROR(links.Put(facts.at(p.fact).scope, link));
      }
      return Status::OK();
    });
  }();
  if (!s.ok()) warnings->push_back("version links not written: " + s.message());
}

}  // namespace engram
