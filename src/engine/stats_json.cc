#include "src/engine/stats_json.h"

namespace engram {

using json = nlohmann::json;

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

}  // namespace engram
