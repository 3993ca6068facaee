// JSON views of the engine's answers, shared by `engram search --json`,
// the HTTP API and the MCP tools, so every surface shows one shape.
// Pure functions, thread-safe.
#ifndef ENGRAM_SRC_SERVER_API_JSON_H_
#define ENGRAM_SRC_SERVER_API_JSON_H_

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "engram/status.h"
#include "src/common/json_text.h"
#include "src/engine/stats_json.h"  // StoreStatsToJson, for the API's callers

namespace engram {

// {query, mode, language, terms, candidates, semantic, vector_candidates,
// no_match, temporal_fallback, below_min_score, note, hyde, warnings,
// missing_scopes, hits: [{score, fact, signals?, weights?, matched_terms?,
// newer_version_of?, own_score?}]}. The per-hit explanation is included
// when `explain`.
nlohmann::json SearchResponseToJson(const std::string& query, FusionMode mode,
                                    const SearchResponse& response, bool explain);

// What a reader must know before taking the hits for answers, in one
// sentence: nothing matched, or the hits are recent facts and not matches,
// or every match was too weak. Empty for an ordinary answer. Every surface
// (CLI, HTTP, MCP) shows it.
std::string SearchResultNote(const SearchResponse& response);

// `message` with every absolute file path in it cut to its last
// component: an HTTP client learns which file failed, not where the store
// lives. A path starts with '/' at the start or after a space, quote, '('
// or '=', and runs to the next space, quote, ')', ',', ';' or ':'.
std::string WithoutAbsolutePaths(std::string_view message);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_API_JSON_H_
