#include "src/server/api_json.h"

#include <algorithm>

#include "src/store/fact_codec.h"

namespace engram {
namespace {

using nlohmann::json;

json SignalJson(const SignalValue& s) {
  return {{"present", s.present}, {"raw", s.raw}, {"normalized", s.normalized}, {"rank", s.rank}};
}

json HydeJson(const HydeReport& h) {
  if (!h.enabled) return nullptr;
  json out = {{"llm", h.llm},           {"hypothesis", h.hypothesis}, {"cached", h.cached},
              {"keywords", h.keywords}, {"vector", h.vector},         {"fallbacks", h.fallbacks}};
  if (!h.feedback_facts.empty()) out["feedback_facts"] = h.feedback_facts;
  return out;
}

}  // namespace

json SearchResponseToJson(const std::string& query, FusionMode mode, const SearchResponse& response,
                          bool explain) {
  json hits = json::array();
  for (const SearchHit& h : response.hits) {
    json hit = {{"score", h.score}, {"fact", FactToJson(h.fact)}};
    if (explain) {
      const Explanation& e = h.explanation;
      hit["signals"] = {{"semantic", SignalJson(e.semantic)},
                        {"lexical", SignalJson(e.lexical)},
                        {"temporal", SignalJson(e.temporal)}};
      hit["weights"] = {{"semantic", e.weights.semantic},
                        {"lexical", e.weights.lexical},
                        {"temporal", e.weights.temporal}};
      hit["matched_terms"] = e.matched_terms;
      if (!e.newer_version_of.empty()) {
        hit["newer_version_of"] = e.newer_version_of;
        hit["own_score"] = e.own_score;
      }
    }
    hits.push_back(std::move(hit));
  }
  return {{"query", query},
          {"mode", FusionModeName(mode)},
          {"language", response.language},
          {"translation", response.translation},
          {"terms", response.query_terms},
          {"candidates", response.candidates},
          {"semantic", response.semantic},
          {"vector_candidates", response.vector_candidates},
          {"no_match", response.no_match},
          {"temporal_fallback", response.temporal_fallback},
          {"below_min_score", response.below_min_score},
          {"without_evidence", response.without_evidence},
          {"note", SearchResultNote(response)},
          {"hyde", HydeJson(response.hyde)},
          {"missing_scopes", response.missing_scopes},
          {"warnings", response.warnings},
          {"hits", std::move(hits)}};
}

std::string SearchResultNote(const SearchResponse& response) {
  if (response.temporal_fallback) {
    return "No fact matches the query. These are the most recent facts of the scope, not "
           "matches.";
  }
  if (response.no_match && response.without_evidence > 0) {
    return "No fact matches the query: " + std::to_string(response.without_evidence) +
           " fact(s) share only minor words with it.";
  }
  if (response.no_match) return "No fact matches the query.";
  if (response.hits.empty() && response.below_min_score > 0) {
    return "No fact matches the query well enough: " + std::to_string(response.below_min_score) +
           " weak match(es) scored below fusion.min_score.";
  }
  return "";
}

std::string WithoutAbsolutePaths(std::string_view message) {
  constexpr std::string_view kBefore = " '\"(=";
  constexpr std::string_view kAfter = " '\"),;:";
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    const bool starts =
        message[i] == '/' && (i == 0 || kBefore.find(message[i - 1]) != std::string_view::npos);
    if (!starts) {
      out += message[i++];
      continue;
    }
    const size_t end = std::min(message.find_first_of(kAfter, i), message.size());
    std::string_view path = message.substr(i, end - i);
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    const size_t last = path.rfind('/');
    out += last == 0 ? path : path.substr(last + 1);
    i = end;
  }
  return out;
}

}  // namespace engram
