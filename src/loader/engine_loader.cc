#include "src/loader/engine_loader.h"

#include <utility>

#include "src/embed/local_embedder.h"

namespace engram {

Result<std::shared_ptr<const Embedder>> LoadEmbedder(const ResolvedConfig& config,
                                                     EmbedderNeed need, const ProviderLog& log,
                                                     std::vector<std::string>* warnings) {
  if (need == EmbedderNeed::kNone || config.embed_provider == "null") {
    return std::shared_ptr<const Embedder>();
  }
  EmbedderOptions options = config.embedder;
  if (log) options.remote.log = log;
  auto embedder = UsesEmbeddedModel(config) && !config.model.Found()
                      ? Result<std::unique_ptr<Embedder>>(
                            NotFound(config.model.NotFoundMessage(kUseLiteModelFileName)))
                      : CreateEmbedder(config.embed_provider, options);
  if (embedder.ok()) return std::shared_ptr<const Embedder>(std::move(*embedder));
  if (need == EmbedderNeed::kRequired) return embedder.status();
  warnings->push_back("semantic signal off (keyword-only): " + embedder.status().message());
  return std::shared_ptr<const Embedder>();
}

std::shared_ptr<const Llm> LoadLlm(const ResolvedConfig& config, const ProviderLog& log,
                                   std::vector<std::string>* warnings) {
  if (!config.engine.hyde.enabled) return nullptr;
  if (config.llm_spec.empty()) {
    warnings->push_back(
        "HyDE is enabled but no LLM is configured (llm.provider); searching without it");
    return nullptr;
  }
  LlmOptions options = config.llm;
  if (log) options.remote.log = log;
  auto llm = CreateLlm(config.llm_spec, options);
  if (llm.ok()) return std::shared_ptr<const Llm>(std::move(*llm));
  warnings->push_back("HyDE off: " + llm.status().message());
  return nullptr;
}

Result<std::unique_ptr<Engine>> OpenConfiguredEngine(ResolvedConfig config, EmbedderNeed need,
                                                     const ProviderLog& log,
                                                     std::vector<std::string>* warnings) {
  ENGRAM_ASSIGN_OR_RETURN(config.engine.embedder, LoadEmbedder(config, need, log, warnings));
  config.engine.llm = LoadLlm(config, log, warnings);
  return Engine::Open(config.engine);
}

}  // namespace engram
