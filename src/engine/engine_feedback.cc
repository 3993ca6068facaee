// EngineImpl::RunFeedback: pseudo-relevance feedback, HyDE without an LLM
// (docs/ARCHITECTURE.md, "Pseudo-relevance feedback"). A first pass of the
// prepared query, in the search's own mode and scopes, reads its top
// `feedback.docs` facts; RM3 adds their most probable terms to the lexical
// query and Rocchio moves the query vector toward their vectors. The pass
// records no access. What fails becomes a fallback and the search goes on
// with the query as it was.
#include <string>
#include <vector>

#include "src/engine/engine_impl.h"
#include "src/hyde/feedback.h"

namespace engram {
namespace {

// The name the feedback gives itself in SearchResponse::hyde::llm.
constexpr char kFeedbackSource[] = "feedback";

// Mixes the relevance model into `query` (RM3): with Q the sum of the
// query's own weights and s the share, each own term keeps (1 - s) of its
// weight and each feedback term t adds s * Q * P(t|R), so the weights still
// sum to Q. Returns the feedback terms the query did not have.
std::vector<std::string> MixTerms(const std::vector<WeightedTerm>& model, double share,
                                  LexicalQuery* query) {
  double own = 0.0;
  for (QueryTerm& t : query->terms) {
    own += t.weight;
    t.weight *= 1.0 - share;
  }
  std::vector<std::string> added;
  for (const WeightedTerm& t : model) {
    if (AddTermWeight(query, t.term, share * own * t.weight)) added.push_back(t.term);
  }
  return added;
}

}  // namespace

void EngineImpl::RunFeedback(const EngineOptions& options, const SearchOptions& search,
                             PreparedQuery* query, SearchResponse* response) {
  HydeReport& report = response->hyde;
  report.enabled = true;
  report.llm = kFeedbackSource;

  // Phase 1: the first pass.
  SearchOptions first = search;
  first.k = options.feedback.docs;
  first.explain = false;
  first.record_access = false;
  Served served;
  Result<SearchResponse> pass = SearchPrepared(options, query, first, SearchResponse{}, &served);
  if (!pass.ok()) {
    report.fallbacks.push_back("first pass failed: " + pass.status().message());
    return;
  }
  if (pass->hits.empty() || pass->temporal_fallback) {
    report.fallbacks.push_back("the first pass found nothing to learn from");
    return;
  }

  for (const SearchHit& hit : pass->hits) report.feedback_facts.push_back(hit.fact.id);

  // Phase 2: RM3 over the feedback facts' terms.
  if (options.feedback.terms > 0 && options.feedback.term_weight > 0.0) {
    std::vector<FeedbackDoc> docs;
    docs.reserve(pass->hits.size());
    for (const SearchHit& hit : pass->hits) docs.push_back({hit.fact.content, hit.score});
    const std::vector<WeightedTerm> model = RelevanceModel(docs, options.feedback.terms);
    if (model.empty()) {
      report.fallbacks.push_back("the feedback facts hold no term");
    } else {
      report.keywords = MixTerms(model, options.feedback.term_weight, &query->lexical);
    }
  }

  // Phase 3: Rocchio over their vectors, from the cache the first pass
  // searched.
  if (query->vector.empty()) return;
  report.vector = "query";
  if (options.feedback.vector_weight <= 0.0) return;
  if (served.cache == nullptr) {
    report.fallbacks.push_back("feedback vectors not read: no vectors stored");
    return;
  }
  std::vector<FactKey> keys;
  keys.reserve(served.rowids.size());
  for (size_t i = 0; i < served.rowids.size(); ++i) {
    keys.push_back(FactKey{pass->hits[i].fact.scope, served.rowids[i]});
  }
  std::vector<std::vector<float>> vectors;
  {
    const VectorCache::View view(*served.cache);
    vectors = view.Vectors(keys);
  }
  std::erase_if(vectors,
                [&](const std::vector<float>& v) { return v.size() != query->vector.size(); });
  if (vectors.empty()) {
    report.fallbacks.push_back("the feedback facts have no vectors yet");
    return;
  }
  query->vector = RocchioVector(query->vector, vectors, options.feedback.vector_weight);
  report.vector = "query+feedback";
}

}  // namespace engram
