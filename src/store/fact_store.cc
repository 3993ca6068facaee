#include "src/store/fact_store.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"

namespace engram {

std::string EncodeTags(const std::vector<std::string>& tags) { return nlohmann::json(tags).dump(); }

std::vector<std::string> DecodeTags(const std::string& text) {
  std::vector<std::string> tags;
  const nlohmann::json j = ParseJson(text, "").value_or(nullptr);
  if (!j.is_array()) return tags;
  for (const auto& t : j) {
    if (t.is_string()) tags.push_back(t.get<std::string>());
  }
  return tags;
}

std::vector<std::string> ScopesOrDefault(const std::vector<std::string>& scopes) {
  return scopes.empty() ? std::vector<std::string>{kDefaultScope} : scopes;
}

}  // namespace engram
