// The MCP tools' calls: arguments read leniently, the scopes the host
// opened enforced, the call mapped onto MemoryApi, and the answer's text.
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "src/server/api_json.h"
#include "src/server/mcp_tools.h"

namespace engram {
namespace {

using nlohmann::json;

bool IsWriteTool(const std::string& name) {
  return name == "memory_add" || name == "memory_update" || name == "memory_forget";
}

// The arguments each tool's schema types as integers, read once from the
// definitions (which fields they are does not depend on limits or scopes).
const std::set<std::string>& IntegerArguments(const std::string& name) {
  static const std::map<std::string, std::set<std::string>> by_tool = [] {
    std::map<std::string, std::set<std::string>> out;
    for (const json& tool : McpToolDefinitions(RequestLimits{}, McpScopes{}, false)) {
      std::set<std::string>& integers = out[tool["name"].get<std::string>()];
      for (const auto& [key, schema] : tool["inputSchema"]["properties"].items()) {
        if (schema.value("type", "") == "integer") integers.insert(key);
      }
    }
    return out;
  }();
  static const std::set<std::string> none;
  const auto it = by_tool.find(name);
  return it == by_tool.end() ? none : it->second;
}

// `arguments` as the schema of tool `name` reads them: null members are
// absent, and a float with no fraction is an integer where the schema
// says integer (hosts serialise 5 as 5.0).
json Lenient(const std::string& name, const json& arguments) {
  json out = json::object();
  for (const auto& [key, value] : arguments.items()) {
    if (!value.is_null()) out[key] = value;
  }
  for (const std::string& key : IntegerArguments(name)) {
    if (!out.contains(key) || !out[key].is_number_float()) continue;
    const double d = out[key].get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.007199254740992e15) {
      out[key] = static_cast<int64_t>(d);
    }
  }
  return out;
}

bool Opened(const McpScopes& scopes, const std::string& scope, bool read) {
  if (scope == scopes.pinned) return true;
  if (!read) return false;
  for (const std::string& s : scopes.read_only) {
    if (s == scope) return true;
  }
  return false;
}

std::string OpenedNames(const McpScopes& scopes, bool read) {
  std::string names = "'" + scopes.pinned + "'";
  if (read) {
    for (const std::string& s : scopes.read_only) names += ", '" + s + "'";
  }
  return names;
}

// Puts the host's scopes into `args`: the pinned one for writes, the
// pinned and read-only ones for reads that name none; refuses any other.
Status ApplyScopes(const McpScopes& scopes, const std::string& name, json* args) {
  if (scopes.pinned.empty() || name == "memory_scopes") return Status::OK();
  const bool read = !IsWriteTool(name);
  if (!args->contains("scope")) {
    if (!read || scopes.read_only.empty()) {
      (*args)["scope"] = scopes.pinned;
    } else {
      json all = json::array({scopes.pinned});
      for (const std::string& s : scopes.read_only) all.push_back(s);
      (*args)["scope"] = std::move(all);
    }
    return Status::OK();
  }
  const json& given = (*args)["scope"];
  const json names = given.is_array() ? given : json::array({given});
  for (const json& scope : names) {
    if (!scope.is_string()) continue;  // MemoryApi names the bad type
    if (!Opened(scopes, scope.get<std::string>(), read)) {
      return InvalidArgument(std::string(read ? "search" : "write") + ": field 'scope': '" +
                             scope.get<std::string>() + "' is not open to this server (" +
                             (read ? "it reads " : "it writes ") + OpenedNames(scopes, read) + ")");
    }
  }
  return Status::OK();
}

Result<json> ListScopes(MemoryApi* api, const McpScopes& scopes) {
  ENGRAM_ASSIGN_OR_RETURN(json config, api->Config());
  const json& counts = config["store"]["scopes"];
  const auto count_of = [&counts](const std::string& scope) -> int64_t {
    return counts.contains(scope) ? counts[scope].get<int64_t>() : 0;
  };
  json list = json::array();
  if (scopes.pinned.empty()) {
    for (const auto& [scope, count] : counts.items()) {
      list.push_back({{"name", scope}, {"facts", count}, {"writable", true}});
    }
  } else {
    list.push_back(
        {{"name", scopes.pinned}, {"facts", count_of(scopes.pinned)}, {"writable", true}});
    for (const std::string& s : scopes.read_only) {
      list.push_back({{"name", s}, {"facts", count_of(s)}, {"writable", false}});
    }
  }
  return json{{"scopes", std::move(list)}};
}

std::string Day(const json& time) {
  return time.is_string() ? time.get<std::string>().substr(0, 10) : std::string();
}

// "0.8123  3f2a1b9c4d5e  content\n        scope default, kind fact, created
// 2026-12-01, updated 2026-12-02, tags: a, b"
std::string FactLines(const json& fact, const json* score) {
  std::string line;
  if (score != nullptr) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f  ", score->get<double>());
    line += buf;
  }
  line += fact.value("id", "").substr(0, 12) + "  " + fact.value("content", "") + "\n";
  line += "        scope " + fact.value("scope", "") + ", kind " + fact.value("kind", "") +
          ", created " + Day(fact["created_at"]) + ", updated " + Day(fact["updated_at"]);
  const json& tags = fact["tags"];
  if (tags.is_array() && !tags.empty()) {
    line += ", tags: ";
    for (size_t i = 0; i < tags.size(); ++i) line += (i ? ", " : "") + tags[i].get<std::string>();
  }
  if (fact["superseded_by"].is_string()) {
    line += ", replaced by " + fact["superseded_by"].get<std::string>().substr(0, 12) + " on " +
            Day(fact["valid_until"]);
  }
  if (fact["expires_at"].is_string()) line += ", expires " + Day(fact["expires_at"]);
  return line + "\n";
}

std::string Warnings(const json& answer) {
  std::string text;
  const auto warnings = answer.find("warnings");
  if (warnings == answer.end() || !warnings->is_array()) return text;
  for (const json& w : *warnings) text += "warning: " + w.get<std::string>() + "\n";
  return text;
}

}  // namespace

Result<json> CallMcpTool(MemoryApi* api, const McpScopes& scopes, const std::string& name,
                         const json& arguments) {
  if (!IsMcpTool(name)) return InvalidArgument("unknown tool '" + name + "'");
  json args = Lenient(name, arguments);
  ENGRAM_RETURN_IF_ERROR(ApplyScopes(scopes, name, &args));
  if (name == "memory_search") return api->Search(args);
  if (name == "memory_list") return api->List(args, /*from_query=*/false);
  if (name == "memory_forget") return api->Forget(args, /*from_query=*/false);
  if (name == "memory_update") return api->Update(args);
  if (name == "memory_scopes") {
    if (!args.empty()) return InvalidArgument("scopes: takes no arguments");
    return ListScopes(api, scopes);
  }
  // memory_add: one fact per call; a "facts" batch is the HTTP API's.
  if (args.contains("facts")) {
    return InvalidArgument("add: unknown field 'facts' (memory_add stores one fact)");
  }
  return api->Add(args);
}

std::string McpToolText(const std::string& name, const json& answer) {
  std::string text;
  if (name == "memory_search") {
    const json& hits = answer["hits"];
    const std::string note = answer.value("note", std::string());
    if (!note.empty()) text += note + "\n";
    if (hits.empty() && note.empty()) text += "No stored fact matches the query.\n";
    if (!hits.empty()) text += std::to_string(hits.size()) + " fact(s), best first:\n";
    for (const json& h : hits) text += FactLines(h["fact"], &h["score"]);
  } else if (name == "memory_list") {
    const json& facts = answer["facts"];
    if (facts.empty()) text += "No facts.\n";
    for (const json& f : facts) text += FactLines(f, nullptr);
  } else if (name == "memory_add") {
    for (const json& f : answer["facts"]) {
      const std::string id = f.value("id", "").substr(0, 12);
      text += f.value("created", false) ? "Stored a new fact " + id
                                        : "Merged into the existing fact " + id;
      text += " in scope " + f.value("scope", "") + ".\n";
      if (f.contains("near_duplicate")) {
        text +=
            "It nearly repeated that fact, whose text was kept: " + DumpJson(f["near_duplicate"]) +
            "\n";
      }
    }
  } else if (name == "memory_update") {
    text += "Replaced " + answer["superseded"].value("id", "").substr(0, 12) +
            " by its new version:\n" + FactLines(answer["fact"], nullptr);
  } else if (name == "memory_forget") {
    text += "Forgot " + std::to_string(answer.value("forgotten", int64_t{0})) + " fact(s).\n";
  } else if (name == "memory_scopes") {
    for (const json& s : answer["scopes"]) {
      text += s.value("name", "") + "  " + std::to_string(s.value("facts", int64_t{0})) +
              " fact(s)" + (s.value("writable", false) ? "" : "  (read-only)") + "\n";
    }
    if (answer["scopes"].empty()) text += "No scopes yet.\n";
  } else {
    text += DumpJson(answer) + "\n";
  }
  return text + Warnings(answer);
}

}  // namespace engram
