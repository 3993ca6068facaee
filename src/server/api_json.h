// JSON views of the engine's answers, shared by `engram search --json`,
// the HTTP API and the MCP tools, so every surface shows one shape.
// Pure functions, thread-safe.
#ifndef ENGRAM_SRC_SERVER_API_JSON_H_
#define ENGRAM_SRC_SERVER_API_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "engram/engine.h"

namespace engram {

// {query, mode, language, terms, candidates, semantic, vector_candidates,
// temporal_fallback, hyde, warnings, missing_scopes, hits: [{score, fact,
// signals?, weights?, matched_terms?}]}. The per-hit explanation is
// included when `explain`.
nlohmann::json SearchResponseToJson(const std::string& query, FusionMode mode,
                                    const SearchResponse& response, bool explain);

// {facts, scopes: {name: count}, schema_version, embedding: {provider,
// model, dimension, vectors, missing_vectors} or null, spaces: [...]}.
nlohmann::json StoreStatsToJson(const StoreStats& stats);

// Serialises `value` for the wire: compact, invalid UTF-8 replaced.
std::string DumpJson(const nlohmann::json& value);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_API_JSON_H_
