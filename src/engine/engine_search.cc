// EngineImpl::Search: candidates from the lexical index (or, failing that,
// every fact of the scopes by recency), fused into one ranking. All reads
// happen in one read transaction, so a concurrent write cannot make the
// statistics, the matches and the loaded facts disagree.
#include <algorithm>
#include <string>
#include <vector>

#include "src/common/utf8.h"
#include "src/engine/engine_impl.h"
#include "src/lexical/lexical_searcher.h"
#include "src/rank/fusion.h"
#include "src/rank/temporal.h"

namespace engram {

Result<SearchResponse> EngineImpl::Search(const std::string& query, const SearchOptions& options) {
  size_t bad = 0;
  if (!IsValidUtf8(query, &bad)) {
    return InvalidArgument("engine: search: query: invalid UTF-8 at byte " +
                           std::to_string(bad + 1));
  }
  const std::vector<std::string> scopes = ScopesOrDefault(options.scopes);
  SearchResponse response;
  const LexicalQuery lexical_query = AnalyzeQuery(query);
  response.query_terms = lexical_query.terms;
  response.language = lexical_query.language;

  std::lock_guard lock(mutex_);
  const Timestamp now = options_.clock->NowMillis();
  std::vector<LexicalHit> hits;
  std::vector<StoredFact> facts;
  FusionResult fused;
  Status read = store_->ReadTransact([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(response.missing_scopes, store_->MissingScopes(scopes));
    bool lexical_scored = false;
    if (options.mode != FusionMode::kTemporal) {
      ENGRAM_ASSIGN_OR_RETURN(hits,
                              SearchLexical(store_->db(), lexical_query, scopes, options_.bm25));
      lexical_scored = true;
    }
    if (options.mode == FusionMode::kTemporal ||
        (hits.empty() && options.mode == FusionMode::kBlended &&
         options_.fusion.temporal_fallback)) {
      response.temporal_fallback = options.mode != FusionMode::kTemporal;
      ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> all, store_->RankInputs(scopes));
      hits.clear();
      for (RankInput& r : all) {
        LexicalHit h;
        h.rowid = r.rowid;
        h.id = std::move(r.id);
        h.scope = std::move(r.scope);
        h.access_count = r.access_count;
        h.last_accessed = r.last_accessed;
        hits.push_back(std::move(h));
      }
      lexical_scored = false;
    }
    std::vector<FusionCandidate> candidates;
    candidates.reserve(hits.size());
    for (const LexicalHit& h : hits) {
      FusionCandidate c;
      c.id = h.id;
      c.scope = h.scope;
      if (lexical_scored) c.lexical = h.score;
      c.temporal = TemporalScore(h.access_count, h.last_accessed, now, options_.temporal);
      candidates.push_back(std::move(c));
    }
    response.candidates = candidates.size();
    fused = Fuse(candidates, options.mode, options_.fusion.weights);
    fused.ranked.resize(std::min(options.k, fused.ranked.size()));
    std::vector<int64_t> rowids;
    rowids.reserve(fused.ranked.size());
    for (const FusedCandidate& c : fused.ranked) rowids.push_back(hits[c.index].rowid);
    ENGRAM_ASSIGN_OR_RETURN(facts, store_->GetByRowids(rowids));
    return Status::OK();
  });
  if (!read.ok()) return read.WithContext("engine: search");

  if (options.record_access && !facts.empty()) {
    std::vector<int64_t> rowids;
    rowids.reserve(facts.size());
    for (const StoredFact& f : facts) rowids.push_back(f.rowid);
    Status s = store_->Transact([&] { return store_->RecordAccess(rowids, now); });
    if (s.ok()) {
      for (StoredFact& f : facts) {
        ++f.fact.access_count;
        f.fact.last_accessed = now;
      }
    } else {
      // The ranking stands; only the bookkeeping failed (e.g. an import holds
      // the write lock, or the file is read-only).
      response.warnings.push_back("access not recorded: " + s.message());
    }
  }

  response.hits.reserve(facts.size());
  for (size_t i = 0; i < facts.size(); ++i) {
    const FusedCandidate& c = fused.ranked[i];
    SearchHit hit;
    hit.fact = std::move(facts[i].fact);
    hit.score = c.score;
    if (options.explain) {
      Explanation& e = hit.explanation;
      e.lexical = c.lexical;
      e.temporal = c.temporal;
      e.weights = fused.weights;
      e.final_score = c.score;
      for (size_t t : hits[c.index].matched) e.matched_terms.push_back(lexical_query.terms[t]);
    }
    response.hits.push_back(std::move(hit));
  }
  return response;
}

}  // namespace engram
