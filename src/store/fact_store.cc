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

std::string FactNotFoundMessage(const std::string& scope, const std::string& id_or_prefix,
                                const std::vector<std::string>& scopes) {
  std::string message = "store: get: no fact '" + id_or_prefix + "' in scope '" + scope + "'";
  if (!scopes.empty()) {
    message += scopes.size() == 1 ? "; it is in scope '" + scopes[0] + "': name that scope"
                                  : "; it is in several scopes (";
    if (scopes.size() > 1) {
      for (size_t i = 0; i < scopes.size(); ++i) message += (i ? ", '" : "'") + scopes[i] + "'";
      message += "): name one";
    }
  }
  return message;
}

}  // namespace engram
