// Loading what a resolved configuration names: its embedder and its LLM,
// with the same fallbacks on every surface (the CLI, the servers, the C
// API), so a library user gets the CLI's behaviour from the same settings.
//
// Pure functions of their arguments; thread-safe.
#ifndef ENGRAM_SRC_LOADER_ENGINE_LOADER_H_
#define ENGRAM_SRC_LOADER_ENGINE_LOADER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/embedder.h"
#include "engram/engine.h"
#include "engram/llm.h"
#include "src/config/config.h"

namespace engram {

// How much an operation needs the embedder: not at all (list, show, ...),
// when the configured provider can be loaded (add, import, search:
// otherwise a warning and keyword-only), or necessarily (backfill).
enum class EmbedderNeed { kNone, kIfAvailable, kRequired };

// Receives provider log lines (retries and their causes, secrets redacted);
// empty: nothing is logged.
using ProviderLog = std::function<void(std::string_view)>;

// The configured embedder: null for kNone or provider "null"; for
// kIfAvailable a provider that cannot load appends a warning to `warnings`
// and gives null; for kRequired, its error.
Result<std::shared_ptr<const Embedder>> LoadEmbedder(const ResolvedConfig& config,
                                                     EmbedderNeed need, const ProviderLog& log,
                                                     std::vector<std::string>* warnings);

// The LLM for HyDE: null unless hyde.enabled; with HyDE on and no LLM
// configured, or one that cannot be created, a warning and null (searches
// run without HyDE).
std::shared_ptr<const Llm> LoadLlm(const ResolvedConfig& config, const ProviderLog& log,
                                   std::vector<std::string>* warnings);

// config.engine with the embedder for `need` and the LLM loaded, opened.
Result<std::unique_ptr<Engine>> OpenConfiguredEngine(ResolvedConfig config, EmbedderNeed need,
                                                     const ProviderLog& log,
                                                     std::vector<std::string>* warnings);

}  // namespace engram

#endif  // ENGRAM_SRC_LOADER_ENGINE_LOADER_H_
