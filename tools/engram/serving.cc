#include "tools/engram/serving.h"

#include <utility>

namespace engram::cli {

Result<ServingConfig> LoadServingConfig(Cli& cli, ServerOptions* server) {
  ServingConfig serving;
  ENGRAM_ASSIGN_OR_RETURN(ResolvedConfig config, cli.Config(&serving.warnings));
  config.engine.create_if_missing = true;
  ENGRAM_ASSIGN_OR_RETURN(
      config.engine.embedder,
      cli.LoadEmbedder(config, Cli::Embedding::kIfAvailable, &serving.warnings));
  config.engine.llm = cli.LoadLlm(config, &serving.warnings);
  serving.settings = ConfigEntriesJson(config);
  serving.search_k = config.search_k;
  serving.search_mode = config.search_mode;
  if (server != nullptr) *server = config.server;
  serving.engine = std::move(config.engine);
  return serving;
}

Result<Served> OpenServed(Cli& cli) {
  Served served;
  ENGRAM_ASSIGN_OR_RETURN(ServingConfig config, LoadServingConfig(cli, &served.server));
  cli.PrintWarnings(config.warnings);
  ENGRAM_ASSIGN_OR_RETURN(served.engine, Engine::Open(config.engine));
  served.api =
      std::make_unique<MemoryApi>(served.engine.get(), served.server.limits, std::move(config),
                                  [&cli] { return LoadServingConfig(cli); });
  return served;
}

}  // namespace engram::cli
