// MemoryApi: the operations a server offers an agent — add, search, list,
// get, forget, configuration and reload — on JSON arguments, with the
// argument checks and limits every transport shares. The HTTP API
// (http_server.h) and the MCP tools (mcp_server.h) are thin mappings onto
// it, so a request means the same thing on either.
//
// Errors are Status values: InvalidArgument for bad arguments (the message
// names the request and the field), NotFound, and the engine's own.
//
// Thread-safety: every method may be called from many threads at once;
// the engine serialises writes. Reload swaps the configuration for the
// calls that start after it; a call already running finishes with what it
// started with. Ownership: the engine must outlive the MemoryApi.
#ifndef ENGRAM_SRC_SERVER_MEMORY_API_H_
#define ENGRAM_SRC_SERVER_MEMORY_API_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "src/server/server_options.h"

namespace engram {

// The configuration a server runs with.
struct ServingConfig {
  EngineOptions engine;  // embedder and LLM loaded
  size_t search_k = 10;  // results when a search does not say
  FusionMode search_mode = FusionMode::kBlended;
  // What GET /v1/config shows of the settings: {key: {value, source,
  // origin}}. Secrets are shown as "(set)".
  nlohmann::json settings = nlohmann::json::object();
  // Problems met while resolving it (clamped values, a provider that could
  // not load and left the server keyword-only).
  std::vector<std::string> warnings;
};

// Makes a new configuration from its sources, for a reload.
using ConfigLoader = std::function<Result<ServingConfig>()>;

class MemoryApi {
 public:
  MemoryApi(Engine* engine, RequestLimits limits, ServingConfig initial, ConfigLoader loader);

  // One fact ({content, tags, kind, source, confidence, metadata, scope})
  // or a batch ({scope, facts: [...]}), stored all or nothing. Answers
  // {added, merged, facts, warnings}: facts holds {id, scope, created} for
  // one fact, {id, scope} for each fact of a batch.
  Result<nlohmann::json> Add(const nlohmann::json& args);
  // {query, k, scope (a name or a list), mode, explain, record, hyde,
  // include_superseded}.
  // Answers SearchResponseToJson.
  Result<nlohmann::json> Search(const nlohmann::json& args);
  // {scope, tag, kind, limit, offset, include_superseded} (FromQuery when
  // `from_query`).
  // Answers {facts, count}.
  Result<nlohmann::json> List(const nlohmann::json& args, bool from_query);
  // {scope, id}: the fact, or NotFound.
  Result<nlohmann::json> Get(const nlohmann::json& args, bool from_query);
  // {scope, id | ids | tag, history?: "restore" | "delete"}: answers
  // {forgotten}; NotFound when an id does not exist, FailedPrecondition
  // when a current fact with older versions is forgotten without `history`
  // (then nothing is removed).
  Result<nlohmann::json> Forget(const nlohmann::json& args, bool from_query);
  // {scope, id, content, tags?, kind?, source?, confidence?, metadata?}:
  // the new version of fact `id`, which is kept as superseded. Answers
  // {fact, created, superseded, warnings}.
  Result<nlohmann::json> Update(const nlohmann::json& args);
  // {scope, id}: every version, oldest first: {facts, count}.
  Result<nlohmann::json> History(const nlohmann::json& args, bool from_query);
  // {scope (a name or a list; "default" when absent)}: every fact of the
  // scopes, every version, as the JSONL `engram export` writes and
  // `engram import` reads back; the text is built whole before it is sent.
  Result<std::string> Export(const nlohmann::json& args, bool from_query);
  // {settings, search: {k, mode}, store: StoreStatsToJson}.
  Result<nlohmann::json> Config();
  // Resolves the configuration again and puts it in force. On failure the
  // old one stays and the error says why. The server.* settings are read at
  // start only: a change to one is a warning. Answers {reloaded, embedding,
  // llm, hyde, warnings}.
  Result<nlohmann::json> Reload();
  // {status: "ok"}.
  Result<nlohmann::json> Health();

  // NOLINTNEXTLINE(readability-identifier-naming): accessor
  const RequestLimits& limits() const { return limits_; }

 private:
  std::shared_ptr<const ServingConfig> Current() const;

  Engine* engine_;
  RequestLimits limits_;
  ConfigLoader loader_;
  mutable std::mutex mutex_;                      // guards current_; serialises reloads
  std::shared_ptr<const ServingConfig> current_;  // guarded by mutex_
  std::mutex reload_mutex_;                       // one reload at a time
};

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_MEMORY_API_H_
