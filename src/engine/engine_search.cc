// EngineImpl::Search (DESIGN §4): candidates are the lexical hits united
// with the top vector_top_k vector hits above min_cosine; every candidate
// gets every signal it has (a lexical candidate with a vector gets its true
// cosine); the signals are fused into one ranking. When there is no
// candidate at all, blended and rrf fall back to every fact of the scopes by
// recency. The query is embedded outside any lock: before the search, or
// (EngineOptions::overlap_query_embedding) on a thread of its own while the
// search brings the vector cache in step and gathers the lexical hits, and
// awaited before the vector scan. The vector cache
// is brought in step under the engine's lock; then every read of the store
// happens in one read transaction on a reader connection, so a concurrent
// write cannot make the statistics, the matches and the loaded facts
// disagree, and the vector scan runs under a View of the cache, beside other
// searches. The cache and the snapshot may differ by the writes committed
// while the search runs: a vector hit whose fact the snapshot lacks is
// dropped, and a fact whose vector the cache lacks has no cosine in that
// search, as before its vector was stored.
//
// SearchPrepared runs in named phases: the vectors brought in step; in one
// snapshot GatherLexical, GatherVectors, CompleteCandidates (evidence,
// fallback, newer versions), RankCandidates and LoadRanked; then
// ServableFacts, RecordAccessAndPoke and MakeHits.
#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/common/run_beside.h"
#include "src/common/utf8.h"
#include "src/engine/engine_impl.h"
#include "src/engine/fact_validator.h"
#include "src/hyde/hyde.h"
#include "src/lexical/lexical_searcher.h"
#include "src/rank/fusion.h"
#include "src/rank/temporal.h"
#include "src/rank/version_order.h"
#include "src/store/fact_id.h"
#include "src/store/version_store.h"
#include "src/text/bilingual_dictionary.h"
#include "src/text/language.h"
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
  Timestamp created_at = 0;
};

// A candidate that did not come from the lexical search: no BM25 score, no
// matched terms.
Gathered FromRankInput(RankInput&& r) {
  return Gathered{r.rowid,      std::move(r.id), std::move(r.scope), std::nullopt,
                  std::nullopt, r.access_count,  r.last_accessed,    {},
                  r.created_at};
}

// Whether a candidate shows evidence of being about the query
// (docs/ARCHITECTURE.md, "Scores and fallbacks that tell the truth"): a
// cosine of at least vector.match_cosine; or one of at least
// vector.min_cosine with a query term matched; or matched terms carrying
// at least fusion.min_lexical_coverage of the weight of the query's own
// terms (the first `own_terms`), or of HyDE's keywords added after them.
bool ShowsEvidence(const Gathered& g, const LexicalQuery& query, const QueryTermCounts& counts,
                   size_t own_terms, const EngineOptions& options) {
  if (g.semantic && *g.semantic >= options.vector.match_cosine) return true;
  if (g.semantic && *g.semantic >= options.vector.min_cosine && !g.matched.empty()) return true;
  const double least = options.fusion.min_lexical_coverage;
  return LexicalCoverage(g.matched, query, counts, 0, own_terms) >= least ||
         (counts.doc_freq.size() > own_terms &&
          LexicalCoverage(g.matched, query, counts, own_terms, counts.doc_freq.size()) >= least);
}

// When no candidate shows evidence, drops them all: the store holds
// nothing the query is about, and its best guesses would read as answers.
// Keeps `by_rowid` in step; returns how many went.
size_t DropUnlessAnyShowsEvidence(const LexicalQuery& query, const QueryTermCounts& counts,
                                  size_t own_terms, const EngineOptions& options,
                                  std::vector<Gathered>* gathered,
                                  std::unordered_map<int64_t, size_t>* by_rowid) {
  for (const Gathered& g : *gathered) {
    if (ShowsEvidence(g, query, counts, own_terms, options)) return 0;
  }
  const size_t dropped = gathered->size();
  gathered->clear();
  by_rowid->clear();
  return dropped;
}

// Vector hits to scan for so that `top_k` remain once the facts the
// caller does not see are dropped: superseded ones (at most about one per
// current fact) and, with a filter, whatever it leaves out.
size_t ScanDepth(size_t top_k, const FactVisibility& visibility) {
  return visibility.filter.IsEmpty() ? 2 * top_k : 8 * top_k + 64;
}

// Adds to `gathered` the best `top_k` of `vector_hits` (best first) that
// `visibility` sees, with their cosines; hits already gathered (lexical
// candidates) count toward top_k. The scan went deeper than top_k, so
// hidden and filtered facts do not leave fewer. Returns how many count.
Result<size_t> AddVisibleVectorHits(Store& store, const std::vector<VectorHit>& vector_hits,
                                    size_t top_k, const std::vector<std::string>& scopes,
                                    const FactVisibility& visibility,
                                    std::vector<Gathered>* gathered,
                                    std::unordered_map<int64_t, size_t>* by_rowid) {
  std::vector<int64_t> new_rowids;
  for (const VectorHit& v : vector_hits) {
    if (!by_rowid->count(v.fact_rowid)) new_rowids.push_back(v.fact_rowid);
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> inputs,
                          store.facts().RankInputsOf(scopes, new_rowids, visibility));
  std::unordered_map<int64_t, RankInput> seen;
  for (RankInput& r : inputs) seen.emplace(r.rowid, std::move(r));
  size_t kept = 0;
  for (const VectorHit& v : vector_hits) {
    if (kept == top_k) break;
    if (by_rowid->count(v.fact_rowid)) {
      ++kept;
      continue;
    }
    const auto it = seen.find(v.fact_rowid);
    if (it == seen.end()) continue;
    ++kept;
    (*by_rowid)[v.fact_rowid] = gathered->size();
    gathered->push_back(FromRankInput(std::move(it->second)));
    gathered->back().semantic = v.cosine;
  }
  return kept;
}

// Rounds of links followed from the candidates: A -> B -> C brings in C
// from A.
constexpr int kVersionHops = 2;

// Successors of one fact by explicit updates: every one of them.
constexpr size_t kMaxSuccessors = 16;

// Adds to `gathered` the newer versions of its facts (version links, up to
// kVersionHops away) that `visibility` sees and the query did not retrieve,
// each with its cosine when `cache` has its vector, and returns the links
// among the candidates as indexes into `gathered`. With `explicit_only`,
// only links of explicit updates count.
Result<std::vector<VersionEdge>> GatherNewerVersions(
    Store& store, const VectorCache* cache, const std::vector<float>& query_vector,
    const std::vector<std::string>& scopes, const FactVisibility& visibility, bool explicit_only,
    std::vector<Gathered>* gathered, std::unordered_map<int64_t, size_t>* by_rowid) {
  std::vector<VersionEdge> edges;
  VersionStore& versions = store.versions();
  std::vector<int64_t> frontier;
  frontier.reserve(gathered->size());
  for (const Gathered& g : *gathered) frontier.push_back(g.rowid);
  for (int hop = 0; hop < kVersionHops && !frontier.empty(); ++hop) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<VersionLink> links, versions.NewerThan(scopes, frontier));
    if (explicit_only) {
      links.erase(std::remove_if(links.begin(), links.end(),
                                 [](const VersionLink& l) { return !l.explicit_update; }),
                  links.end());
    }
    std::vector<int64_t> unseen;
    for (const VersionLink& l : links) {
      if (!by_rowid->count(l.newer_rowid)) unseen.push_back(l.newer_rowid);
    }
    std::sort(unseen.begin(), unseen.end());
    unseen.erase(std::unique(unseen.begin(), unseen.end()), unseen.end());
    ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> found,
                            store.facts().RankInputsOf(scopes, unseen, visibility));
    frontier.clear();
    const size_t first_new = gathered->size();
    for (RankInput& r : found) {
      frontier.push_back(r.rowid);
      (*by_rowid)[r.rowid] = gathered->size();
      gathered->push_back(FromRankInput(std::move(r)));
    }
    if (cache != nullptr && !query_vector.empty() && gathered->size() > first_new) {
      std::vector<FactKey> keys;
      for (size_t i = first_new; i < gathered->size(); ++i) {
        keys.push_back(FactKey{(*gathered)[i].scope, (*gathered)[i].rowid});
      }
      const VectorCache::View view(*cache);
      const std::vector<std::optional<float>> cosines = view.Score(query_vector, keys);
      for (size_t i = 0; i < cosines.size(); ++i) {
        if (cosines[i]) (*gathered)[first_new + i].semantic = *cosines[i];
      }
    }
    for (const VersionLink& l : links) {
      const auto older = by_rowid->find(l.older_rowid);
      const auto newer = by_rowid->find(l.newer_rowid);
      if (older != by_rowid->end() && newer != by_rowid->end()) {
        edges.push_back(VersionEdge{older->second, newer->second});
      }
    }
  }
  return edges;
}

}  // namespace

Result<std::vector<float>> EngineImpl::EmbedOne(const Embedder& embedder, const std::string& text,
                                                EmbedPurpose purpose) const {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::vector<float>> embedded,
                          embedder.Embed({text}, purpose));
  if (embedded.size() != 1) {
    return Unavailable("embedder " + embedder.Space().Key() + " returned " +
                       std::to_string(embedded.size()) + " vectors for 1 text");
  }
  std::vector<float> v = std::move(embedded[0]);
  ENGRAM_RETURN_IF_ERROR(CheckVector(v, embedder.Space().dimension));
  ENGRAM_RETURN_IF_ERROR(NormalizeInPlace(v));
  return v;
}

void EngineImpl::RunHyde(const EngineOptions& options, const std::string& query, bool semantic,
                         LexicalQuery* lexical_query, std::vector<float>* hypothesis_vector,
                         SearchResponse* response) {
  HydeReport& report = response->hyde;
  report.enabled = true;
  report.llm = options.llm->Name();
  const Timestamp now = options.clock->NowMillis();
  HypothesisCache cache;
  cache.get = [this](const std::string& llm, int version, const std::string& q) {
    std::lock_guard lock(mutex_);
    return store_->hypotheses().Get(HypothesisKey{llm, version, q});
  };
  cache.put = [this, now](const std::string& llm, int version, const std::string& q,
                          const std::string& hypothesis) {
    std::lock_guard lock(mutex_);
    return store_->Transact([&] {
      return store_->hypotheses().Put(HypothesisKey{llm, version, q}, hypothesis, now);
    });
  };
  HydeOutcome outcome = Hypothesize(*options.llm, query, options.hyde, &cache);
  report.hypothesis = std::move(outcome.hypothesis);
  report.cached = outcome.cached;
  report.fallbacks = std::move(outcome.fallbacks);
  if (report.hypothesis.empty()) return;
  report.keywords = HydeKeywords(query, report.hypothesis, options.hyde.num_keywords);
  ExpandQuery(lexical_query, report.keywords, 1.0, options.query.translate);
  if (semantic && options.hyde.use_vectors) {
    // The hypothesis reads like a note, so it is embedded as one; but a
    // windowed space gives a note a vector per window, and a search needs
    // one, so there it is embedded as the query it stands in for.
    const EmbedPurpose purpose = options.embedder->Space().MaxVectorsPerDocument() > 1
                                     ? EmbedPurpose::kQuery
                                     : EmbedPurpose::kDocument;
    auto v = EmbedOne(*options.embedder, report.hypothesis, purpose);
    if (v.ok()) {
      *hypothesis_vector = std::move(*v);
    } else {
      report.fallbacks.push_back("hypothesis not embedded: " + v.status().message());
    }
  }
}

Status EngineImpl::ReadSnapshot(const std::function<Status(Store&)>& body,
                                std::vector<std::string>* warnings) {
  if (readers_) {
    auto lease = readers_->Acquire();
    if (lease.ok()) {
      Store& store = lease->store();
      return store.ReadTransact([&] { return body(store); });
    }
    warnings->push_back("read on the engine's own connection: " + lease.status().message());
  }
  std::lock_guard lock(mutex_);
  return store_->ReadTransact([&] { return body(*store_); });
}

namespace {

// Bad arguments of a search, named.
Status ValidateSearch(const std::string& query, const SearchOptions& options,
                      const EngineOptions& engine) {
  size_t bad = 0;
  if (!IsValidUtf8(query, &bad)) {
    return InvalidArgument("engine: search: query: invalid UTF-8 at byte " +
                           std::to_string(bad + 1));
  }
  if (options.k == 0 || options.k > kMaxSearchK) {
    return InvalidArgument("engine: search: k: " + std::to_string(options.k) + " is outside 1.." +
                           std::to_string(kMaxSearchK));
  }
  if (options.weights) {
    const FusionWeights& w = *options.weights;
    for (const auto& [name, weight] :
         {std::pair{"semantic", w.semantic}, std::pair{"lexical", w.lexical},
          std::pair{"temporal", w.temporal}}) {
      if (!std::isfinite(weight) || weight < 0.0 || weight > 1.0) {
        std::ostringstream text;
        text << "engine: search: weights: the " << name << " weight " << weight
             << " is outside 0..1";
        return InvalidArgument(text.str());
      }
    }
  }
  if (!engine.embedder && options.mode == FusionMode::kSemantic) {
    return FailedPrecondition(
        "engine: search: semantic mode needs an embedding provider; none is configured");
  }
  return Status::OK();
}

}  // namespace

Result<SearchResponse> EngineImpl::Search(const std::string& query, const SearchOptions& options) {
  const std::shared_ptr<const EngineOptions> opts = Options();
  ENGRAM_RETURN_IF_ERROR(ValidateSearch(query, options, *opts));
  SearchResponse response;
  PreparedQuery prepared = PrepareQuery(*opts, query, options, &response);
  if (opts->feedback.enabled && options.hyde && !query.empty() &&
      options.mode != FusionMode::kTemporal && response.hyde.hypothesis.empty()) {
    AwaitQueryVector(&prepared, &response);  // the first pass searches with it
    RunFeedback(*opts, options, &prepared, &response);
  }
  response.query_terms = prepared.lexical.Terms();
  for (const std::string& f : response.hyde.fallbacks) {
    response.warnings.push_back("hyde: " + f);
  }
  return SearchPrepared(*opts, &prepared, options, std::move(response), nullptr);
}

void EngineImpl::AddEnglishGloss(const EngineOptions& opts, const std::string& query,
                                 const std::string& language, std::vector<float>* vector,
                                 QueryVector* out) const {
  // USE-Lite reads English only; the HTTP providers' models read both.
  if (!opts.query.translate || !opts.query.translate_vector ||
      opts.embedder->Space().provider != "local" ||
      language != LanguageName(Language::kPortuguese)) {
    return;
  }
  std::string gloss = BilingualDictionary::PortugueseEnglish().Gloss(query);
  if (gloss.empty()) return;
  auto v = EmbedOne(*opts.embedder, gloss, EmbedPurpose::kQuery);
  if (!v.ok()) {
    out->warnings.push_back("English gloss of the query not embedded: " + v.status().message());
    return;
  }
  for (size_t i = 0; i < vector->size(); ++i) (*vector)[i] += (*v)[i];
  if (NormalizeInPlace(*vector).ok()) out->translation = std::move(gloss);
}

EngineImpl::QueryVector EngineImpl::EmbedQuery(const EngineOptions& opts, const std::string& query,
                                               const std::string& language,
                                               const std::vector<float>& hypothesis_vector) const {
  QueryVector out;
  std::vector<float> own;
  if (hypothesis_vector.empty() || opts.hyde.embed != HydeEmbed::kHypothesis) {
    auto v = EmbedOne(*opts.embedder, query, EmbedPurpose::kQuery);
    if (v.ok()) {
      own = std::move(*v);
      AddEnglishGloss(opts, query, language, &own, &out);
    } else {
      out.warnings.push_back("query not embedded: " + v.status().message());
    }
  }
  HydeVector searched = HydeSearchVector(own, hypothesis_vector, opts.hyde.embed);
  out.vector = std::move(searched.vector);
  out.source = std::move(searched.source);
  if (out.vector.empty()) {
    out.warnings.push_back("semantic signal off for this search: nothing was embedded");
  }
  return out;
}

void EngineImpl::AwaitQueryVector(PreparedQuery* query, SearchResponse* response) {
  if (query->pending.valid()) UseQueryVector(query->pending.get(), query, response);
}

void EngineImpl::UseQueryVector(QueryVector embedded, PreparedQuery* query,
                                SearchResponse* response) {
  query->vector = std::move(embedded.vector);
  for (std::string& w : embedded.warnings) response->warnings.push_back(std::move(w));
  if (!embedded.translation.empty()) response->translation = std::move(embedded.translation);
  if (response->hyde.enabled) response->hyde.vector = std::move(embedded.source);
}

EngineImpl::PreparedQuery EngineImpl::PrepareQuery(const EngineOptions& opts,
                                                   const std::string& query,
                                                   const SearchOptions& options,
                                                   SearchResponse* response) {
  PreparedQuery prepared;
  prepared.lexical = AnalyzeQuery(query, opts.query.translate);
  prepared.own_terms = prepared.lexical.terms.size();
  response->language = prepared.lexical.language;
  prepared.semantic = opts.embedder && UsesSemantic(options.mode) && !query.empty();

  // HyDE and the query vector, outside the lock: the LLM and the embedder
  // are the slow part.
  std::vector<float> hypothesis_vector;
  if (opts.hyde.enabled && opts.llm && options.hyde && !query.empty() &&
      options.mode != FusionMode::kTemporal) {
    RunHyde(opts, query, prepared.semantic, &prepared.lexical, &hypothesis_vector, response);
  }
  if (!prepared.semantic) return prepared;
  if (opts.overlap_query_embedding) {
    // The thread reads the engine and its options, which outlive the
    // search: the future waits for the thread when it is dropped.
    prepared.pending = RunBeside([this, &opts, query, language = prepared.lexical.language,
                                  hypothesis = std::move(hypothesis_vector)] {
      return EmbedQuery(opts, query, language, hypothesis);
    });
  } else {
    UseQueryVector(EmbedQuery(opts, query, prepared.lexical.language, hypothesis_vector), &prepared,
                   response);
  }
  return prepared;
}

namespace {

// One search's candidates from the snapshot to the ranked facts: what the
// phases below read and fill in, in order.
struct SearchState {
  SearchState(const EngineOptions& engine, const SearchOptions& search, const LexicalQuery& terms,
              size_t query_terms, const std::vector<float>& query_vector)
      : opts(engine),
        options(search),
        lexical(terms),
        own_terms(query_terms),
        vector(query_vector) {}

  const EngineOptions& opts;
  const SearchOptions& options;
  const LexicalQuery& lexical;       // the query's terms, expanded
  size_t own_terms;                  // the query's own terms, before any expansion
  const std::vector<float>& vector;  // the query vector; empty if none
  std::vector<std::string> scopes;
  FactVisibility visibility;
  std::shared_ptr<VectorCache> cache;  // null: no vector signal
  bool missing_vectors = false;        // a candidate or the query lacked a vector
  // Gathered.
  std::vector<Gathered> gathered;
  std::unordered_map<int64_t, size_t> by_rowid;  // into gathered
  QueryTermCounts term_counts;
  std::vector<VersionEdge> edges;
  // Ranked, best first, and loaded.
  FusionResult fused;
  std::vector<VersionLift> lifts;
  std::vector<StoredFact> facts;  // one per fused.ranked
};

bool FallbackMode(FusionMode mode) {
  return mode == FusionMode::kBlended || mode == FusionMode::kRrf;
}

// The scopes' indexes in memory, each describing this snapshot, held
// until the caller drops them; none unless every scope has one. Taken in
// the order of the scopes' names, so that no two searches can each hold an
// index the other waits to bring in step.
Result<std::vector<LexicalCache::Lease>> LeaseIndexes(Store& store, LexicalCache* cache,
                                                      const SearchState& s) {
  std::vector<LexicalCache::Lease> leases;
  if (!s.opts.lexical_cache || !LexicalIndex::Answers(s.visibility)) return leases;
  std::vector<std::string> scopes = s.scopes;
  std::sort(scopes.begin(), scopes.end());
  scopes.erase(std::unique(scopes.begin(), scopes.end()), scopes.end());
  for (const std::string& scope : scopes) {
    ENGRAM_ASSIGN_OR_RETURN(std::optional<LexicalCache::Lease> lease,
                            cache->Acquire(store.facts(), scope));
    if (!lease) return std::vector<LexicalCache::Lease>{};
    leases.push_back(std::move(*lease));
  }
  return leases;
}

// The lexical hits, each with its BM25 score and matched terms.
Status GatherLexical(Store& store, LexicalCache* cache, SearchState* s) {
  if (!UsesLexical(s->options.mode)) return Status::OK();
  if (s->lexical.terms.empty()) return Status::OK();  // nothing to match
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<LexicalCache::Lease> leases,
                          LeaseIndexes(store, cache, *s));
  std::vector<const LexicalIndex*> indexes;
  indexes.reserve(leases.size());
  for (const LexicalCache::Lease& lease : leases) indexes.push_back(&lease.Index());
  ENGRAM_ASSIGN_OR_RETURN(
      std::vector<LexicalHit> hits,
      SearchLexical(store.facts(), s->lexical, s->scopes, s->opts.bm25, s->visibility,
                    &s->term_counts, leases.empty() ? nullptr : &indexes));
  for (LexicalHit& h : hits) {
    s->by_rowid[h.rowid] = s->gathered.size();
    s->gathered.push_back(Gathered{h.rowid, std::move(h.id), std::move(h.scope), h.score,
                                   std::nullopt, h.access_count, h.last_accessed,
                                   std::move(h.matched), h.created_at});
  }
  return Status::OK();
}

// The top vector hits the caller sees, and every lexical candidate's true
// cosine, from one scan.
Status GatherVectors(Store& store, SearchState* s, SearchResponse* response) {
  if (!s->cache) return Status::OK();
  response->semantic = true;
  const size_t top_k = s->options.mode == FusionMode::kSemantic
                           ? std::max(s->options.k, s->opts.vector.top_k)
                           : s->opts.vector.top_k;
  std::vector<FactKey> lexical_keys;
  lexical_keys.reserve(s->gathered.size());
  for (const Gathered& g : s->gathered) lexical_keys.push_back(FactKey{g.scope, g.rowid});
  std::vector<std::optional<float>> cosines;
  std::vector<VectorHit> vector_hits;
  {
    // Held only for the scan: a Sync waits for it.
    const VectorCache::View view(*s->cache);
    ENGRAM_ASSIGN_OR_RETURN(vector_hits,
                            view.Search(s->vector, s->scopes, ScanDepth(top_k, s->visibility),
                                        s->opts.vector.min_cosine, lexical_keys, &cosines));
  }
  for (size_t i = 0; i < cosines.size(); ++i) {
    if (cosines[i]) {
      s->gathered[i].semantic = *cosines[i];
    } else {
      s->missing_vectors = true;
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(response->vector_candidates,
                          AddVisibleVectorHits(store, vector_hits, top_k, s->scopes, s->visibility,
                                               &s->gathered, &s->by_rowid));
  return Status::OK();
}

// What the candidates become before fusion: none when none shows evidence
// (blended, rrf); every fact by recency for the temporal mode or the
// temporal fallback; else the newer versions of the candidates joined.
Status CompleteCandidates(Store& store, SearchState* s, SearchResponse* response) {
  const FusionMode mode = s->options.mode;
  if (FallbackMode(mode)) {
    response->without_evidence = DropUnlessAnyShowsEvidence(
        s->lexical, s->term_counts, s->own_terms, s->opts, &s->gathered, &s->by_rowid);
  }
  response->no_match = s->gathered.empty() && mode != FusionMode::kTemporal;
  if (mode == FusionMode::kTemporal ||
      (s->gathered.empty() && FallbackMode(mode) && s->opts.fusion.temporal_fallback)) {
    response->temporal_fallback = mode != FusionMode::kTemporal;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<RankInput> all,
                            store.facts().RankInputs(s->scopes, s->visibility));
    s->gathered.clear();
    for (RankInput& r : all) s->gathered.push_back(FromRankInput(std::move(r)));
  } else if (s->opts.versions.newer_first || s->options.include_superseded) {
    // Replaced facts are seen only when asked for; then each ranks below
    // the version that replaced it, found links or not.
    ENGRAM_ASSIGN_OR_RETURN(
        s->edges, GatherNewerVersions(store, s->cache.get(), s->vector, s->scopes, s->visibility,
                                      !s->opts.versions.newer_first, &s->gathered, &s->by_rowid));
  }
  return Status::OK();
}

// The candidates fused into one ranking, newer versions lifted, cut at
// fusion.min_score (blended) and at k.
void RankCandidates(SearchState* s, SearchResponse* response) {
  const Timestamp now = s->visibility.now;
  std::vector<FusionCandidate> candidates;
  candidates.reserve(s->gathered.size());
  for (const Gathered& g : s->gathered) {  // viewed by the candidates until fused
    candidates.push_back(
        FusionCandidate{g.id, g.scope, g.lexical, g.semantic,
                        TemporalScore(g.access_count, g.last_accessed, now, s->opts.temporal)});
  }
  response->candidates = candidates.size();
  FusionOptions fusion = s->opts.fusion;
  if (s->options.weights) fusion.weights = *s->options.weights;
  // Without version links nothing reorders the ranking after fusion, so
  // only the best k need an order; ranks per signal only explain reads.
  FusionNeeds needs;
  if (s->edges.empty()) needs.top = s->options.k;
  needs.signal_ranks = s->options.explain;
  s->fused = Fuse(candidates, s->options.mode, fusion, needs);
  if (!s->edges.empty()) {
    std::vector<Timestamp> created_at;
    created_at.reserve(s->gathered.size());
    for (const Gathered& g : s->gathered) created_at.push_back(g.created_at);
    const bool found_links = s->opts.versions.newer_first;
    s->lifts =
        OrderNewerFirst(created_at, s->edges, found_links ? s->opts.versions.lift_min_share : 0.0,
                        found_links ? s->opts.versions.max_successors : kMaxSuccessors, &s->fused);
  }
  std::vector<FusedCandidate>& ranked = s->fused.ranked;
  if (s->options.mode == FusionMode::kBlended && !response->temporal_fallback &&
      fusion.min_score > 0) {
    const auto is_weak = [&](const FusedCandidate& c) { return c.score < fusion.min_score; };
    const size_t ordered = std::min(needs.top, ranked.size());
    const auto weak = std::find_if(ranked.begin(),
                                   ranked.begin() + static_cast<std::ptrdiff_t>(ordered), is_weak);
    // A whole order counts from the first weak one (a lifted version may
    // rank a weak fact above strong ones); a partial one, unlifted and so
    // ordered by score, counts every weak one.
    response->below_min_score =
        ordered == ranked.size()
            ? static_cast<size_t>(ranked.end() - weak)
            : static_cast<size_t>(std::count_if(ranked.begin(), ranked.end(), is_weak));
    ranked.erase(weak, ranked.end());
    s->lifts.resize(std::min(s->lifts.size(), ranked.size()));
  }
  ranked.resize(std::min(s->options.k, ranked.size()));
}

// The facts of the ranking, in its order.
Status LoadRanked(Store& store, SearchState* s) {
  std::vector<int64_t> rowids;
  rowids.reserve(s->fused.ranked.size());
  for (const FusedCandidate& c : s->fused.ranked) rowids.push_back(s->gathered[c.index].rowid);
  ENGRAM_ASSIGN_OR_RETURN(s->facts, store.facts().GetByRowids(s->scopes, rowids));
  return Status::OK();
}

// Indexes into s.facts of the facts that may be served: a fact changed on
// disk past every write path no longer gives its id (a hash of its
// content), and is named, not served; `engram check` finds them all.
std::vector<size_t> ServableFacts(const SearchState& s, std::vector<std::string>* warnings) {
  std::vector<size_t> served;
  served.reserve(s.facts.size());
  for (size_t i = 0; i < s.facts.size(); ++i) {
    const Fact& f = s.facts[i].fact;
    if (const std::string wrong = IdMismatch(f.id, f.content); !wrong.empty()) {
      warnings->push_back("fact " + f.id + " (scope '" + f.scope + "') left out: " + wrong +
                          "; run engram check");
      continue;
    }
    served.push_back(i);
  }
  return served;
}

// The hits of the served facts, explained when asked.
void MakeHits(SearchState* s, const std::vector<size_t>& served, SearchResponse* response) {
  response->hits.reserve(served.size());
  for (size_t i : served) {
    const FusedCandidate& c = s->fused.ranked[i];
    SearchHit hit;
    hit.fact = std::move(s->facts[i].fact);
    hit.score = c.score;
    if (s->options.explain) {
      Explanation& e = hit.explanation;
      e.semantic = c.semantic;
      e.lexical = c.lexical;
      e.temporal = c.temporal;
      e.weights = s->fused.weights;
      e.final_score = c.score;
      e.own_score = c.score;
      if (i < s->lifts.size()) {
        e.own_score = s->lifts[i].own_score;
        if (s->lifts[i].lifted_by) e.newer_version_of = s->gathered[*s->lifts[i].lifted_by].id;
      }
      for (size_t t : s->gathered[c.index].matched) {
        e.matched_terms.push_back(s->lexical.terms[t].term);
      }
    }
    response->hits.push_back(std::move(hit));
  }
}

}  // namespace

void EngineImpl::RecordAccessAndPoke(const EngineOptions& opts, const SearchOptions& options,
                                     Timestamp now, bool missing_vectors,
                                     const std::vector<size_t>& served,
                                     std::vector<StoredFact>* facts, SearchResponse* response) {
  if (missing_vectors) {
    std::lock_guard lock(mutex_);
    if (worker_) worker_->Poke();  // under mutex_: Reload may create it
  }
  if (std::optional<std::string> problem = store_->TakeBackgroundProblem()) {
    response->warnings.push_back(std::move(*problem));
  }
  if (!options.record_access || served.empty()) return;
  // Queued for the recorder's thread (the search does not wait for it), or
  // written now with no delay.
  std::vector<AccessRecorder::Served> accessed;
  accessed.reserve(served.size());
  for (size_t i : served) {
    accessed.push_back({(*facts)[i].fact.scope, (*facts)[i].rowid, (*facts)[i].fact.id});
  }
  const Status s = access_->Record(accessed, now, opts.access_delay_ms);
  if (!s.ok()) {
    // The ranking stands; only the bookkeeping failed (e.g. an import holds
    // the write lock, or the file is read-only).
    response->warnings.push_back("access not recorded: " + s.message());
  }
  if (std::optional<std::string> problem = access_->TakeProblem()) {
    response->warnings.push_back(std::move(*problem));
  }
  for (size_t i : served) {
    ++(*facts)[i].fact.access_count;
    (*facts)[i].fact.last_accessed = now;
  }
}

Result<SearchResponse> EngineImpl::SearchPrepared(const EngineOptions& opts, PreparedQuery* query,
                                                  const SearchOptions& options,
                                                  SearchResponse response, Served* served_out) {
  SearchState s(opts, options, query->lexical, query->own_terms, query->vector);
  s.scopes = ScopesOrDefault(options.scopes);

  // Vectors in step with the store, under the engine's lock, while the
  // query may still be embedded.
  s.missing_vectors = query->semantic && !query->Embedding();
  if (query->Embedding()) {
    auto synced = SyncedCache(opts, s.scopes, &response.warnings);
    if (!synced.ok()) return synced.status().WithContext("engine: search");
    s.cache = std::move(*synced);
    s.missing_vectors = s.cache == nullptr;
  }

  s.visibility.now = opts.clock->NowMillis();
  s.visibility.include_superseded = options.include_superseded;
  auto filter = NormalizeFilter(options.filter);
  if (!filter.ok()) return filter.status().WithContext("engine: search");
  s.visibility.filter = std::move(*filter);

  // Candidates gathered, ranked and loaded in one read snapshot.
  Status read = ReadSnapshot(
      [&](Store& store) -> Status {
        ENGRAM_ASSIGN_OR_RETURN(response.missing_scopes, store.facts().MissingScopes(s.scopes));
        ENGRAM_RETURN_IF_ERROR(GatherLexical(store, &lexical_cache_, &s));
        AwaitQueryVector(query, &response);
        if (query->vector.empty() && s.cache) {  // it failed to embed
          s.cache = nullptr;
          s.missing_vectors = true;
        }
        ENGRAM_RETURN_IF_ERROR(GatherVectors(store, &s, &response));
        ENGRAM_RETURN_IF_ERROR(CompleteCandidates(store, &s, &response));
        RankCandidates(&s, &response);
        return LoadRanked(store, &s);
      },
      &response.warnings);
  if (!read.ok()) return read.WithContext("engine: search");

  // The hits served, their access recorded.
  const std::vector<size_t> served = ServableFacts(s, &response.warnings);
  RecordAccessAndPoke(opts, options, s.visibility.now, s.missing_vectors, served, &s.facts,
                      &response);
  if (served_out != nullptr) {
    served_out->rowids.clear();
    for (size_t i : served) served_out->rowids.push_back(s.facts[i].rowid);
    served_out->cache = s.cache;
  }
  MakeHits(&s, served, &response);
  return response;
}

}  // namespace engram
