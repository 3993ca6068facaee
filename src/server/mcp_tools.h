// The MCP tools of engram: their definitions (name, description, JSON
// Schema of the input) and how a call maps onto MemoryApi.
//
//   memory_search  {query, k?, scope?, mode?}        ranked facts
//   memory_add     {content, tags?, kind?, source?, confidence?, metadata?, scope?}
//   memory_forget  {id | ids | tag, scope?}
//   memory_list    {scope?, tag?, kind?, limit?, offset?}
//
// Pure mappings; thread-safe as MemoryApi is.
#ifndef ENGRAM_SRC_SERVER_MCP_TOOLS_H_
#define ENGRAM_SRC_SERVER_MCP_TOOLS_H_

#include <string>

#include <nlohmann/json.hpp>

#include "src/server/memory_api.h"

namespace engram {

// The `tools` array of tools/list.
nlohmann::json McpToolDefinitions(const RequestLimits& limits);

// True when `name` is one of the tools above.
bool IsMcpTool(const std::string& name);

// Runs tool `name` with `arguments`. InvalidArgument for arguments the tool
// refuses (or a name that is no tool); other errors are the tool's own
// failures.
Result<nlohmann::json> CallMcpTool(MemoryApi* api, const std::string& name,
                                   const nlohmann::json& arguments);

// A short text of a tool's answer for the model to read: one line per fact
// for searches and lists, the JSON otherwise.
std::string McpToolText(const std::string& name, const nlohmann::json& answer);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_MCP_TOOLS_H_
