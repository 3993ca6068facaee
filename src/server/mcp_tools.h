// The MCP tools of engram: their definitions (name, title, description,
// annotations, JSON Schemas of the input and of the structured output) and
// how a call maps onto MemoryApi.
//
//   memory_search  {query, k?, scope?, mode?, include_superseded?, filters}  ranked facts
//   memory_add     {content, tags?, kind?, source?, confidence?, metadata?, scope?}
//   memory_update  {id, content, ...}                       a new version of a fact
//   memory_forget  {id | ids | tag, history?, scope?}
//   memory_list    {scope?, tag?, kind?, limit?, offset?, filters}
//   memory_scopes  {}                                       the scopes and their sizes
//
// Hosts differ in how they fill arguments, so a call is read leniently
// before it is checked: an optional argument given as null is absent, and
// a whole number written as a float (5.0) is an integer where the schema
// asks for one.
//
// Pure mappings; thread-safe as MemoryApi is.
#ifndef ENGRAM_SRC_SERVER_MCP_TOOLS_H_
#define ENGRAM_SRC_SERVER_MCP_TOOLS_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/server/memory_api.h"

namespace engram {

// The scopes a host lets the server use (`engram mcp --scope NAME
// --read-scope OTHER`): every write goes to `pinned`; searches and lists
// read `pinned` and `read_only` (all of them when a call names none), and
// a call naming another scope is refused. Empty `pinned`: any scope, as
// each call names it (default "default").
struct McpScopes {
  std::string pinned;
  std::vector<std::string> read_only;
};

// The `tools` array of tools/list. `structured`: the protocol has
// structured output (2025-06-18 on), so each tool carries its outputSchema.
nlohmann::json McpToolDefinitions(const RequestLimits& limits, const McpScopes& scopes,
                                  bool structured);

// True when `name` is one of the tools above.
bool IsMcpTool(const std::string& name);

// Runs tool `name` with `arguments`. InvalidArgument for arguments the tool
// refuses (or a name that is no tool, or a scope the host did not open);
// other errors are the tool's own failures. The answer is the tool's
// structured output, which its outputSchema describes.
Result<nlohmann::json> CallMcpTool(MemoryApi* api, const McpScopes& scopes, const std::string& name,
                                   const nlohmann::json& arguments);

// The text of a tool's answer for the model to read: for searches and
// lists one line per fact with its id, scope, kind and dates, then any
// note (nothing matched, recent facts instead of matches) and warnings.
std::string McpToolText(const std::string& name, const nlohmann::json& answer);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_MCP_TOOLS_H_
