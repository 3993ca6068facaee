// The MCP server on any bytes as one stdio line: a JSON-RPC answer or
// nothing (a notification), and always JSON when answered.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_engine.h"
#include "src/common/json_text.h"
#include "src/server/mcp_server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static engram::McpServer server(&engram::fuzz::FuzzedApi());
  const std::string_view frame(reinterpret_cast<const char*>(data), size);
  const auto answer = server.Handle(frame);
  if (answer && !engram::ParseJson(*answer, "answer").ok()) std::abort();
  return 0;
}
