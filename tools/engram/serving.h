// What `engram serve` and `engram mcp` share: the configuration a server
// runs with, resolved from the same sources as every command and resolved
// again on reload.
#ifndef ENGRAM_TOOLS_ENGRAM_SERVING_H_
#define ENGRAM_TOOLS_ENGRAM_SERVING_H_

#include <memory>

#include <nlohmann/json.hpp>

#include "src/config/config.h"
#include "src/server/memory_api.h"
#include "tools/engram/cli.h"

namespace engram::cli {

// Resolves the configuration (file, environment, the command's flags) and
// loads its embedder and LLM. A provider that cannot load is a warning in
// the result (keyword-only, or no HyDE), not an error, as for `search`.
// `server` receives the server.* options when given.
Result<ServingConfig> LoadServingConfig(Cli& cli, ServerOptions* server = nullptr);

// Opens the store (created when missing) with LoadServingConfig's
// configuration, and a MemoryApi whose reload resolves it again. Prints
// the configuration's warnings.
struct Served {
  std::unique_ptr<Engine> engine;
  std::unique_ptr<MemoryApi> api;
  ServerOptions server;
};
Result<Served> OpenServed(Cli& cli);

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_SERVING_H_
