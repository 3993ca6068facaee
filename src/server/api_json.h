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

// {facts, scopes: {name: count}, schema_version, embedding: {provider,
// model, dimension, vectors, missing_vectors} or null, spaces: [...]}.
nlohmann::json StoreStatsToJson(const StoreStats& stats);

// Most levels of nesting a request's JSON may have. Deeper values are
// refused while parsing: serialising or copying them recurses once per
// level, and a few hundred kilobytes of brackets would overflow the stack.
inline constexpr int kMaxRequestJsonDepth = 64;

// Parses a request's JSON; InvalidArgument naming `what` and the byte for
// malformed text, invalid UTF-8 or nesting deeper than kMaxRequestJsonDepth.
Result<nlohmann::json> ParseRequestJson(std::string_view text, std::string_view what);

// Serialises `value` for the wire: compact, invalid UTF-8 replaced.
std::string DumpJson(const nlohmann::json& value);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_API_JSON_H_
