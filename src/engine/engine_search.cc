// EngineImpl::Search (DESIGN §4): candidates are the lexical hits united
// with the top vector_top_k vector hits above min_cosine; every candidate
// gets every signal it has (a lexical candidate with a vector gets its true
// cosine); the signals are fused into one ranking. When there is no
// candidate at all, blended and rrf fall back to every fact of the scopes by
// recency. The query is embedded before the lock is taken; all reads then
// happen in one read transaction, so a concurrent write cannot make the
// statistics, the matches and the loaded facts disagree.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/common/utf8.h"
#include "src/engine/engine_impl.h"
#include "src/lexical/lexical_searcher.h"
#include "src/rank/fusion.h"
#include "src/rank/temporal.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

bool UsesLexical(FusionMode mode) {
  return mode == FusionMode::kBlended || mode == FusionMode::kLexical || mode == FusionMode::kRrf;
}

bool UsesSemantic(FusionMode mode) {
  return mode == FusionMode::kBlended || mode == FusionMode::kSemantic || mode == FusionMode::kRrf;
}

// One candidate as gathered, before fusion.
struct Gathered {
  int64_t rowid = 0;
  std::string id;
  std::string scope;
  std::optional<double> lexical;
  std::optional<double> semantic;
  int64_t access_count = 0;
  Timestamp last_accessed = 0;
  std::vector<size_t> matched;  // query term indexes
};

// A candidate that did not come from the lexical search: no BM25 score, no
// matched terms.
Gathered FromRankInput(RankInput&& r) {
  return Gathered{r.rowid,      std::move(r.id), std::move(r.scope), std::nullopt,
                  std::nullopt, r.access_count,  r.last_accessed,    {}};
}

}  // namespace

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

  // The query vector, outside the lock: embedding is the slow part.
  std::vector<float> query_vector;
  if (options_.embedder && UsesSemantic(options.mode) && !query.empty()) {
    auto embedded = options_.embedder->Embed({query}, EmbedPurpose::kQuery);
    Status ok = embedded.ok() ? Status::OK() : embedded.status();
    if (ok.ok() && embedded->size() == 1) {
      query_vector = std::move((*embedded)[0]);
      ok = CheckVector(query_vector, options_.embedder->Space().dimension);
      if (ok.ok()) ok = NormalizeInPlace(query_vector);
    }
    if (!ok.ok()) {
      response.warnings.push_back("semantic signal off for this search: query not embedded: " +
                                  ok.message());
      query_vector.clear();
    }
  } else if (!options_.embedder && options.mode == FusionMode::kSemantic) {
    return FailedPrecondition(
        "engine: search: semantic mode needs an embedding provider; none is configured");
  }

  std::lock_guard lock(mutex_);
  const Timestamp now = options_.clock->NowMillis();
  std::vector<Gathered> gathered;
  std::vector<StoredFact> facts;
  FusionResult fused;
  bool missing_vectors = false;
  Status read = store_->ReadTransact([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(response.missing_scopes, store_->MissingScopes(scopes));
    std::unordered_map<int64_t, size_t> by_rowid;
    if (UsesLexical(options.mode)) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<LexicalHit> hits,
                              SearchLexical(store_->db(), lexical_query, scopes, options_.bm25));
      for (LexicalHit& h : hits) {
        by_rowid[h.rowid] = gathered.size();
        gathered.push_back(Gathered{h.rowid, std::move(h.id), std::move(h.scope), h.score,
                                    std::nullopt, h.access_count, h.last_accessed,
                                    std::move(h.matched)});
      }
    }
    if (!query_vector.empty() && space_id_ != 0) {
      VectorCache* cache = CacheLocked();
      ENGRAM_ASSIGN_OR_RETURN(int64_t version, store_->db()->QueryInt("PRAGMA data_version"));
      ENGRAM_RETURN_IF_ERROR(cache->Sync(&vectors_, scopes, version, &response.warnings));
      response.semantic = true;
      const size_t top_k = options.mode == FusionMode::kSemantic
                               ? std::max(options.k, options_.vector.top_k)
                               : options_.vector.top_k;
      ENGRAM_ASSIGN_OR_RETURN(
          std::vector<VectorHit> vector_hits,
          cache->Search(query_vector, scopes, top_k, options_.vector.min_cosine));
      response.vector_candidates = vector_hits.size();
      std::vector<int64_t> new_rowids;
      for (const VectorHit& v : vector_hits) {
        if (!by_rowid.count(v.fact_rowid)) new_rowids.push_back(v.fact_rowid);
      }
      ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> inputs, store_->RankInputsOf(new_rowids));
      for (RankInput& r : inputs) {
        by_rowid[r.rowid] = gathered.size();
        gathered.push_back(FromRankInput(std::move(r)));
      }
      // Every candidate's true cosine, whichever way it came in.
      for (Gathered& g : gathered) {
        const std::optional<float> cosine = cache->Score(query_vector, g.scope, g.rowid);
        if (cosine) {
          g.semantic = *cosine;
        } else {
          missing_vectors = true;
        }
      }
    } else if (options_.embedder && UsesSemantic(options.mode) && space_id_ == 0) {
      missing_vectors = true;
    }
    const bool fallback_mode =
        options.mode == FusionMode::kBlended || options.mode == FusionMode::kRrf;
    if (options.mode == FusionMode::kTemporal ||
        (gathered.empty() && fallback_mode && options_.fusion.temporal_fallback)) {
      response.temporal_fallback = options.mode != FusionMode::kTemporal;
      ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> all, store_->RankInputs(scopes));
      gathered.clear();
      for (RankInput& r : all) {
        gathered.push_back(FromRankInput(std::move(r)));
      }
    }
    std::vector<FusionCandidate> candidates;
    candidates.reserve(gathered.size());
    for (const Gathered& g : gathered) {
      FusionCandidate c;
      c.id = g.id;
      c.scope = g.scope;
      c.lexical = g.lexical;
      c.semantic = g.semantic;
      c.temporal = TemporalScore(g.access_count, g.last_accessed, now, options_.temporal);
      candidates.push_back(std::move(c));
    }
    response.candidates = candidates.size();
    FusionOptions fusion = options_.fusion;
    if (options.weights) fusion.weights = *options.weights;
    fused = Fuse(candidates, options.mode, fusion);
    fused.ranked.resize(std::min(options.k, fused.ranked.size()));
    std::vector<int64_t> rowids;
    rowids.reserve(fused.ranked.size());
    for (const FusedCandidate& c : fused.ranked) rowids.push_back(gathered[c.index].rowid);
    ENGRAM_ASSIGN_OR_RETURN(facts, store_->GetByRowids(rowids));
    return Status::OK();
  });
  if (!read.ok()) return read.WithContext("engine: search");
  if (missing_vectors && worker_) worker_->Poke();

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
      e.semantic = c.semantic;
      e.lexical = c.lexical;
      e.temporal = c.temporal;
      e.weights = fused.weights;
      e.final_score = c.score;
      for (size_t t : gathered[c.index].matched) e.matched_terms.push_back(lexical_query.terms[t]);
    }
    response.hits.push_back(std::move(hit));
  }
  return response;
}

}  // namespace engram
