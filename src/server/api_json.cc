#include "src/server/api_json.h"

#include "src/store/fact_codec.h"

namespace engram {
namespace {

using nlohmann::json;

json SignalJson(const SignalValue& s) {
  return {{"present", s.present}, {"raw", s.raw}, {"normalized", s.normalized}, {"rank", s.rank}};
}

json HydeJson(const HydeReport& h) {
  if (!h.enabled) return nullptr;
  return {{"llm", h.llm},           {"hypothesis", h.hypothesis}, {"cached", h.cached},
          {"keywords", h.keywords}, {"vector", h.vector},         {"fallbacks", h.fallbacks}};
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

json StoreStatsToJson(const StoreStats& stats) {
  json scopes = json::object();
  for (const auto& [scope, count] : stats.scopes) scopes[scope] = count;
  json spaces = json::array();
  for (const SpaceStats& s : stats.spaces) {
    spaces.push_back({{"space", s.space.Key()}, {"vectors", s.vectors}, {"active", s.active}});
  }
  json embedding = nullptr;
  if (!stats.active_space.provider.empty()) {
    embedding = {{"provider", stats.active_space.provider},
                 {"model", stats.active_space.model},
                 {"dimension", stats.active_space.dimension},
                 {"vectors", stats.vectors},
                 {"missing_vectors", stats.missing_vectors}};
  }
  return {{"facts", stats.facts},
          {"scopes", std::move(scopes)},
          {"schema_version", stats.schema_version},
          {"embedding", std::move(embedding)},
          {"spaces", std::move(spaces)}};
}

Result<json> ParseRequestJson(std::string_view text, std::string_view what) {
  struct TooDeep {};
  const json::parser_callback_t limit_depth = [](int depth, json::parse_event_t event, json&) {
    if (depth > kMaxRequestJsonDepth &&
        (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start)) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    return json::parse(text, limit_depth);
  } catch (const json::parse_error& e) {
    return InvalidArgument(std::string(what) + ": malformed JSON at byte " +
                           std::to_string(e.byte));
  } catch (const TooDeep&) {
    return InvalidArgument(std::string(what) + ": JSON nested deeper than " +
                           std::to_string(kMaxRequestJsonDepth) + " levels");
  }
}

std::string DumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace engram
