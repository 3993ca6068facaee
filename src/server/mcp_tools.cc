// The MCP tools' definitions: what a host shows a model. Each says when to
// call it, how to phrase what it takes and what an empty answer means, in
// the manner of the MCP reference servers (one short paragraph, the
// arguments described in the schema), with a human title and the hints a
// host uses to decide whether to ask before a call.
#include "src/server/mcp_tools.h"

namespace engram {
namespace {

using nlohmann::json;

json StringProp(const char* description) {
  return {{"type", "string"}, {"description", description}};
}

json TagsProp(const char* description) {
  return {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", description}};
}

json ScopeProp(const McpScopes& scopes, bool read) {
  if (scopes.pinned.empty()) {
    return StringProp(
        "Memory scope: a user, an agent or a project, so that their memories stay apart; "
        "default \"default\". memory_scopes lists them");
  }
  std::string text = "Memory scope; this server is bound to \"" + scopes.pinned + "\"";
  if (read && !scopes.read_only.empty()) {
    text += " and may also read";
    for (const std::string& s : scopes.read_only) text += " \"" + s + "\"";
    text += " (all of them when omitted)";
  }
  return {{"type", "string"}, {"description", text}};
}

// The filter fields of search and list (FactFilter).
json FilterProps() {
  return {{"tags_any", TagsProp("Only facts with at least one of these tags")},
          {"tags_all", TagsProp("Only facts with every one of these tags")},
          {"kind", StringProp("Only facts of this kind (fact, lesson, preference, ...)")},
          {"metadata",
           {{"type", "object"},
            {"description", "Only facts whose metadata has each of these key/value pairs"}}},
          {"since", StringProp("Only facts created or updated at or after this (ISO-8601, or 7d "
                               "for a week ago)")},
          {"until", StringProp("Only facts created or updated before this")},
          {"as_of", StringProp("The facts that were current at this time (ISO-8601)")}};
}

json Annotations(const char* title, bool read_only, bool destructive, bool idempotent) {
  return {{"title", title},
          {"readOnlyHint", read_only},
          {"destructiveHint", destructive},
          {"idempotentHint", idempotent},
          {"openWorldHint", false}};
}

// ---- Output schemas: the JSON each tool answers (src/server/memory_api.h).

json Nullable(const char* type) { return {{"type", json::array({type, "null"})}}; }

json Strings() { return {{"type", "array"}, {"items", {{"type", "string"}}}}; }

json FactSchema() {
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "string"}}},
            {"scope", {{"type", "string"}}},
            {"content", {{"type", "string"}}},
            {"tags", Strings()},
            {"kind", {{"type", "string"}}},
            {"source", {{"type", "string"}}},
            {"created_at", {{"type", "string"}}},
            {"updated_at", {{"type", "string"}}},
            {"last_accessed", {{"type", "string"}}},
            {"access_count", {{"type", "integer"}}},
            {"confidence", {{"type", "number"}}},
            {"metadata", {{"type", "object"}}},
            {"superseded_by", Nullable("string")},
            {"valid_until", Nullable("string")},
            {"expires_at", Nullable("string")}}},
          {"required", {"id", "scope", "content", "tags", "kind", "created_at", "updated_at"}}};
}

json Object(json properties, json required) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", required}};
}

json SearchOutput() {
  json hit = Object({{"score", {{"type", "number"}}},
                     {"fact", FactSchema()},
                     {"newer_version_of", {{"type", "string"}}}},
                    {"score", "fact"});
  return Object({{"query", {{"type", "string"}}},
                 {"mode", {{"type", "string"}}},
                 {"language", {{"type", "string"}}},
                 {"translation", {{"type", "string"}}},
                 {"terms", Strings()},
                 {"candidates", {{"type", "integer"}}},
                 {"semantic", {{"type", "boolean"}}},
                 {"no_match", {{"type", "boolean"}}},
                 {"temporal_fallback", {{"type", "boolean"}}},
                 {"note", {{"type", "string"}}},
                 {"hyde", Nullable("object")},
                 {"missing_scopes", Strings()},
                 {"warnings", Strings()},
                 {"hits", {{"type", "array"}, {"items", hit}}}},
                {"hits", "no_match", "temporal_fallback", "note", "warnings"});
}

json AddOutput() {
  json entry = Object({{"id", {{"type", "string"}}},
                       {"scope", {{"type", "string"}}},
                       {"created", {{"type", "boolean"}}},
                       {"near_duplicate", {{"type", "object"}}}},
                      {"id", "scope", "created"});
  return Object({{"added", {{"type", "integer"}}},
                 {"merged", {{"type", "integer"}}},
                 {"facts", {{"type", "array"}, {"items", entry}}},
                 {"warnings", Strings()}},
                {"added", "merged", "facts", "warnings"});
}

json UpdateOutput() {
  return Object({{"fact", FactSchema()},
                 {"created", {{"type", "boolean"}}},
                 {"superseded", FactSchema()},
                 {"warnings", Strings()}},
                {"fact", "created", "superseded", "warnings"});
}

json ListOutput() {
  return Object(
      {{"facts", {{"type", "array"}, {"items", FactSchema()}}}, {"count", {{"type", "integer"}}}},
      {"facts", "count"});
}

json ScopesOutput() {
  json scope = Object({{"name", {{"type", "string"}}},
                       {"facts", {{"type", "integer"}}},
                       {"writable", {{"type", "boolean"}}}},
                      {"name", "facts", "writable"});
  return Object({{"scopes", {{"type", "array"}, {"items", scope}}}}, {"scopes"});
}

json Tool(const char* name, const char* title, std::string description, json annotations,
          json input, json output, bool structured) {
  json tool = {{"name", name},
               {"title", title},
               {"description", std::move(description)},
               {"annotations", std::move(annotations)},
               {"inputSchema", std::move(input)}};
  if (structured) tool["outputSchema"] = std::move(output);
  return tool;
}

}  // namespace

json McpToolDefinitions(const RequestLimits& limits, const McpScopes& scopes, bool structured) {
  const auto max_results = static_cast<int64_t>(limits.max_results);
  json search_input = {
      {"type", "object"},
      {"properties",
       {{"query", StringProp("What to look for, as a short question or the key words of the "
                             "fact, in the user's language; not a sentence about searching")},
        {"k",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", max_results},
          {"description", "Number of facts to return; default the server's search.k (10)"}}},
        {"scope", ScopeProp(scopes, true)},
        {"mode",
         {{"type", "string"},
          {"enum", {"blended", "lexical", "semantic", "rrf", "temporal"}},
          {"description", "Ranking; default blended (meaning, words and recency together)"}}},
        {"include_superseded",
         {{"type", "boolean"},
          {"description", "Also return facts replaced by newer versions; default false"}}}}},
      {"required", {"query"}},
      {"additionalProperties", false}};
  search_input["properties"].update(FilterProps());

  json fact_props = {
      {"content", StringProp("The fact itself, one or a few self-contained sentences that make "
                             "sense without the conversation (\"Maya is allergic to peanuts\", "
                             "not \"she is allergic\")")},
      {"tags", TagsProp("Labels for filtering later, lower-cased (\"family\", \"project-x\")")},
      {"kind", StringProp("fact, lesson, preference, or free text; default fact")},
      {"source", StringProp("Where the fact came from (a file, a URL, \"user\")")},
      {"confidence",
       {{"type", "number"},
        {"minimum", 0},
        {"maximum", 1},
        {"description", "How sure, 0..1; default 1"}}},
      {"metadata", {{"type", "object"}, {"description", "Any JSON object"}}},
      {"scope", ScopeProp(scopes, false)}};
  json add_input = {{"type", "object"},
                    {"properties", fact_props},
                    {"required", {"content"}},
                    {"additionalProperties", false}};
  json update_props = fact_props;
  update_props["id"] = StringProp(
      "Id (or a unique prefix of 4+ characters) of the fact to replace, as memory_search or "
      "memory_list shows it");
  update_props["content"] = StringProp("The new version, one or a few self-contained sentences");
  json update_input = {{"type", "object"},
                       {"properties", update_props},
                       {"required", {"id", "content"}},
                       {"additionalProperties", false}};
  json forget_input = {
      {"type", "object"},
      {"properties",
       {{"id", StringProp("Id (or unique prefix of 4+ characters) of the fact to delete")},
        {"ids", TagsProp("Ids of several facts to delete, all or none")},
        {"tag", StringProp("Delete every fact with this tag")},
        {"history",
         {{"type", "string"},
          {"enum", {"restore", "delete"}},
          {"description",
           "When a deleted fact had replaced older versions: restore makes the newest of them "
           "current again, delete removes them too; without it such a fact is kept and the "
           "call fails, saying so"}}},
        {"scope", ScopeProp(scopes, false)}}},
      {"additionalProperties", false}};
  json list_input = {
      {"type", "object"},
      {"properties",
       {{"scope", ScopeProp(scopes, true)},
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
      {"additionalProperties", false}};
  list_input["properties"].update(FilterProps());
  const json scopes_input = {
      {"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};

  return json::array({
      Tool("memory_search", "Search memory",
           "Find what was remembered earlier: facts, lessons and preferences from past "
           "conversations, best match first. Call it before answering anything that may depend "
           "on what the user said, decided or prefers, or when they refer to something from "
           "before. Phrase the query as a short question or the key words of the fact you "
           "expect (\"what is Maya allergic to\"), not as an instruction. An empty result means "
           "nothing stored matches: say you do not know rather than guess. Each hit shows its "
           "id, scope, kind and dates; the text says when the hits are only recent facts, not "
           "matches.",
           Annotations("Search memory", true, false, true), search_input, SearchOutput(),
           structured),
      Tool("memory_add", "Remember a fact",
           "Store one short fact worth remembering across conversations: something the user "
           "told you about themselves, a decision, a preference, a lesson learned. Call it "
           "when you learn such a thing, one fact per call, written so that it makes sense on "
           "its own later. The same text in the same scope is merged, not duplicated (tags are "
           "united), and so is a near-duplicate of a current fact. When a stored fact has "
           "become untrue, use memory_update instead.",
           Annotations("Remember a fact", false, false, true), add_input, AddOutput(), structured),
      Tool("memory_update", "Update a fact",
           "Replace a stored fact that is no longer true by its new version (\"the standup "
           "moved to 10:00\"). Find its id with memory_search first. The old fact is kept as "
           "history, out of searches, and the new one is returned from now on.",
           Annotations("Update a fact", false, false, false), update_input, UpdateOutput(),
           structured),
      Tool("memory_forget", "Forget facts",
           "Delete facts the user asks you to forget, or that are wrong: by id (from "
           "memory_search or memory_list), by several ids, or every fact with a tag. Give "
           "exactly one of id, ids or tag. Deleting cannot be undone; to record a change, use "
           "memory_update instead.",
           Annotations("Forget facts", false, true, true), forget_input,
           Object({{"forgotten", {{"type", "integer"}}}}, {"forgotten"}), structured),
      Tool("memory_list", "List facts",
           "List the stored facts of a scope, newest first, optionally by tag, kind or date: "
           "for reviewing or cleaning up memory, not for answering a question (use "
           "memory_search). An empty result means the scope holds no such fact.",
           Annotations("List facts", true, false, true), list_input, ListOutput(), structured),
      Tool("memory_scopes", "List scopes",
           "List the memory scopes this server can reach (users, agents or projects whose "
           "memories are kept apart), with how many facts each holds and whether it can be "
           "written.",
           Annotations("List scopes", true, false, true), scopes_input, ScopesOutput(), structured),
  });
}

bool IsMcpTool(const std::string& name) {
  return name == "memory_search" || name == "memory_add" || name == "memory_update" ||
         name == "memory_forget" || name == "memory_list" || name == "memory_scopes";
}

}  // namespace engram
