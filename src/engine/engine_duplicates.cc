// EngineImpl::MergeNearDuplicates: near-duplicates merge on write
// (docs/ARCHITECTURE.md, "Facts that change"). Each new fact's nearest fact
// of its scope is read from the vector cache, brought in step with the
// store first; a pair that is also near in words (src/lexical/term_overlap.h)
// and whose older fact is current becomes one fact, in one transaction.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "src/engine/engine_impl.h"

namespace engram {

std::vector<std::optional<AddOutcome>> EngineImpl::MergeNearDuplicates(
    const EngineOptions& options, std::vector<EmbeddedFact>* embedded,
    std::vector<std::string>* warnings) {
  std::vector<std::optional<AddOutcome>> merged(embedded->size());
  const VersionOptions& versions = options.versions;
  if (!versions.merge_near_duplicates || embedded->empty() || !options.embedder) return merged;
  FactVisibility current;
  current.now = options.clock->NowMillis();
  std::unordered_set<int64_t> gone;
  Status s = [&]() -> Status {
    // Phase 1: each new fact's nearest other fact, if it is that close.
    std::unordered_map<int64_t, RankInput> facts;
    ENGRAM_ASSIGN_OR_RETURN(
        std::vector<Pair> pairs,
        NearestPairs(options, *embedded, current, 1, versions.merge_min_cosine, &facts, warnings));
    if (pairs.empty()) return Status::OK();

    // Phase 2: the pairs near in words too, both facts still current; the
    // fact written later merges into the one written first.
    std::lock_guard lock(mutex_);
    ENGRAM_RETURN_IF_ERROR(AddNeighbourInputs(pairs, current, &facts));
    std::vector<Pair> near;
    for (const Pair& p : pairs) {
      if (facts.count(p.neighbour)) near.push_back(p);  // else superseded, expired or gone
    }
    ENGRAM_ASSIGN_OR_RETURN(std::vector<double> overlap, TermOverlaps(options, near, facts));
    std::unordered_map<int64_t, size_t> index_of;
    for (size_t i = 0; i < embedded->size(); ++i) index_of[(*embedded)[i].rowid] = i;
    ENGRAM_RETURN_IF_ERROR(store_->Transact([&]() -> Status {
      for (size_t i = 0; i < near.size(); ++i) {
        if (overlap[i] < versions.merge_min_overlap) continue;
        const int64_t keep = std::min(near[i].fact, near[i].neighbour);
        const int64_t drop = std::max(near[i].fact, near[i].neighbour);
        if (gone.count(keep) || gone.count(drop)) continue;
        const std::string& scope = facts.at(near[i].fact).scope;  // the pair's
        ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> both,
                                store_->facts().GetByRowids({scope}, {keep, drop}));
        if (both.size() != 2) continue;
        const StoredFact& kept = both[0].rowid == keep ? both[0] : both[1];
        const StoredFact& dropped = both[0].rowid == keep ? both[1] : both[0];
        ENGRAM_ASSIGN_OR_RETURN(AddOutcome outcome, MergeInto(kept, dropped.fact));
        outcome.near_duplicate =
            NearDuplicate{dropped.fact.id, dropped.fact.content, near[i].cosine, overlap[i]};
        ENGRAM_RETURN_IF_ERROR(store_->facts().DeleteRowids({scope}, {drop}).status());
        gone.insert(drop);
        if (const auto it = index_of.find(drop); it != index_of.end()) {
          merged[it->second] = std::move(outcome);
        }
      }
      return Status::OK();
    }));
    if (!gone.empty() && cache_) cache_->MarkDirty();
    return Status::OK();
  }();
  if (!s.ok()) {
    warnings->push_back("near-duplicates not merged: " + s.message());
    gone.clear();
    std::fill(merged.begin(), merged.end(), std::nullopt);
  }
  embedded->erase(std::remove_if(embedded->begin(), embedded->end(),
                                 [&](const EmbeddedFact& e) { return gone.count(e.rowid) > 0; }),
                  embedded->end());
  return merged;
}

}  // namespace engram
