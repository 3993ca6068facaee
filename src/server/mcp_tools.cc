#include "src/server/mcp_tools.h"

#include <cstdio>

#include "src/server/api_json.h"

namespace engram {
namespace {

using nlohmann::json;

json StringProp(const char* description) {
  return {{"type", "string"}, {"description", description}};
}

json ScopeProp() {
  return StringProp("Memory scope (a user, agent or project); default \"default\"");
}

// "0.8123  3f2a1b9c4d5e  content  [tag, tag]"
std::string FactLine(const json& fact, const json* score) {
  std::string line;
  if (score != nullptr) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f  ", score->get<double>());
    line += buf;
  }
  line += fact.value("id", "").substr(0, 12) + "  " + fact.value("content", "");
  const json& tags = fact["tags"];
  if (tags.is_array() && !tags.empty()) {
    line += "  [";
    for (size_t i = 0; i < tags.size(); ++i) line += (i ? ", " : "") + tags[i].get<std::string>();
    line += "]";
  }
  return line;
}

// The filter fields of search and list (FactFilter).
json FilterProps() {
  const json tags = {{"type", "array"}, {"items", {{"type", "string"}}}};
  json any = tags;
  any["description"] = "Only facts with at least one of these tags";
  json all = tags;
  all["description"] = "Only facts with every one of these tags";
  return {{"tags_any", any},
          {"tags_all", all},
          {"kind", StringProp("Only facts of this kind")},
          {"metadata",
           {{"type", "object"},
            {"description", "Only facts whose metadata has each of these key/value pairs"}}},
          {"since", StringProp("Only facts created or updated at or after this (ISO-8601, or 7d "
                               "for a week ago)")},
          {"until", StringProp("Only facts created or updated before this")},
          {"as_of", StringProp("The facts that were current at this time")}};
}

}  // namespace

json McpToolDefinitions(const RequestLimits& limits) {
  const auto max_results = static_cast<int64_t>(limits.max_results);
  json search = {
      {"name", "memory_search"},
      {"description",
       "Find the stored facts (notes, lessons, preferences) that answer a query, best first. "
       "Fuses meaning (embeddings), exact terms (BM25) and recency of use."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"query", StringProp("What to look for, in plain words")},
          {"k",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", max_results},
            {"description", "Number of facts to return; default the server's search.k"}}},
          {"scope", ScopeProp()},
          {"mode",
           {{"type", "string"},
            {"enum", {"blended", "lexical", "semantic", "rrf", "temporal"}},
            {"description", "Ranking; default the server's search.mode (blended)"}}},
          {"include_superseded",
           {{"type", "boolean"},
            {"description", "Also search facts replaced by newer versions; default false"}}}}},
        {"required", {"query"}},
        {"additionalProperties", false}}}};
  json add = {
      {"name", "memory_add"},
      {"description",
       "Store one short fact in long-term memory. The same text in the same scope is merged, "
       "not duplicated (tags are united), and so is a near-duplicate of a current fact (the "
       "answer's near_duplicate says which text was merged away)."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"content", StringProp("The fact, one or a few sentences")},
          {"tags",
           {{"type", "array"},
            {"items", {{"type", "string"}}},
            {"description", "Labels, lower-cased"}}},
          {"kind", StringProp("fact, lesson, preference, or free text; default fact")},
          {"source", StringProp("Where the fact came from")},
          {"confidence",
           {{"type", "number"},
            {"minimum", 0},
            {"maximum", 1},
            {"description", "How sure, 0..1; default 1"}}},
          {"metadata", {{"type", "object"}, {"description", "Any JSON object"}}},
          {"scope", ScopeProp()}}},
        {"required", {"content"}},
        {"additionalProperties", false}}}};
  json forget = {
      {"name", "memory_forget"},
      {"description",
       "Delete facts by id (or unique id prefix of 4+ characters), by several ids, or by tag. "
       "Give exactly one of id, ids or tag."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"id", StringProp("Id of the fact to delete")},
          {"ids",
           {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Ids to delete"}}},
          {"tag", StringProp("Delete every fact with this tag")},
          {"history",
           {{"type", "string"},
            {"enum", {"restore", "delete"}},
            {"description",
             "When a deleted fact had replaced older versions: restore makes the newest of "
             "them current again, delete removes them too; without it such a fact is kept"}}},
          {"scope", ScopeProp()}}},
        {"additionalProperties", false}}}};
  json update = {
      {"name", "memory_update"},
      {"description",
       "Replace a fact that is no longer true by its new version. The old fact is kept as "
       "history (superseded, left out of search) and the new one is returned from now on."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"id", StringProp("Id (or unique prefix of 4+ characters) of the fact to replace")},
          {"content", StringProp("The new version, one or a few sentences")},
          {"tags",
           {{"type", "array"},
            {"items", {{"type", "string"}}},
            {"description", "Labels of the new version"}}},
          {"kind", StringProp("fact, lesson, preference, or free text; default fact")},
          {"source", StringProp("Where the new version came from")},
          {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
          {"metadata", {{"type", "object"}, {"description", "Any JSON object"}}},
          {"scope", ScopeProp()}}},
        {"required", {"id", "content"}},
        {"additionalProperties", false}}}};
  json list = {
      {"name", "memory_list"},
      {"description", "List the facts of a scope, newest first, optionally by tag or kind."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"scope", ScopeProp()},
          {"tag", StringProp("Only facts with this tag")},
          {"kind", StringProp("Only facts of this kind")},
          {"limit",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", max_results},
            {"description", "Most facts to return; default 50"}}},
          {"offset", {{"type", "integer"}, {"minimum", 0}, {"description", "Facts to skip"}}},
          {"include_superseded",
           {{"type", "boolean"},
            {"description", "Also list facts replaced by newer versions; default false"}}}}},
        {"additionalProperties", false}}}};
  search["inputSchema"]["properties"].update(FilterProps());
  list["inputSchema"]["properties"].update(FilterProps());
  return json::array({search, add, update, forget, list});
}

bool IsMcpTool(const std::string& name) {
  return name == "memory_search" || name == "memory_add" || name == "memory_update" ||
         name == "memory_forget" || name == "memory_list";
}

Result<json> CallMcpTool(MemoryApi* api, const std::string& name, const json& arguments) {
  if (name == "memory_search") return api->Search(arguments);
  if (name == "memory_list") return api->List(arguments, /*from_query=*/false);
  if (name == "memory_forget") return api->Forget(arguments, /*from_query=*/false);
  if (name == "memory_update") return api->Update(arguments);
  if (name == "memory_add") {
    // One fact per call: a "facts" batch is the HTTP API's.
    if (arguments.is_object() && arguments.contains("facts")) {
      return InvalidArgument("add: unknown field 'facts' (memory_add stores one fact)");
    }
    return api->Add(arguments);
  }
  return InvalidArgument("unknown tool '" + name + "'");
}

std::string McpToolText(const std::string& name, const json& answer) {
  if (name == "memory_search") {
    const json& hits = answer["hits"];
    const std::string note = answer.value("note", std::string());
    if (hits.empty()) return note.empty() ? "No facts found." : note;
    std::string text = note.empty() ? "" : note + "\n";
    for (const json& h : hits) text += FactLine(h["fact"], &h["score"]) + "\n";
    return text;
  }
  if (name == "memory_list") {
    const json& facts = answer["facts"];
    if (facts.empty()) return "No facts.";
    std::string text;
    for (const json& f : facts) text += FactLine(f, nullptr) + "\n";
    return text;
  }
  return DumpJson(answer);
}

}  // namespace engram
