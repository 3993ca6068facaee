// A store's counts as JSON, the same on every surface that shows them
// (GET /v1/config, the MCP tools, the C API's engram_config_json). Pure.
#ifndef ENGRAM_SRC_ENGINE_STATS_JSON_H_
#define ENGRAM_SRC_ENGINE_STATS_JSON_H_

#include <nlohmann/json.hpp>

#include "engram/engine.h"

namespace engram {

// {facts, scopes: {name: count}, schema_version, embedding: {provider,
// model, dimension, vectors, missing_vectors} or null, spaces: [{space,
// vectors, active}]}.
nlohmann::json StoreStatsToJson(const StoreStats& stats);

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_STATS_JSON_H_
