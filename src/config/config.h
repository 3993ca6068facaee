// Configuration: EngineOptions and CLI defaults resolved from
// defaults < config file < environment < flags (DESIGN §8).
//
// The config file is TOML at $ENGRAM_CONFIG (default
// ~/.config/engram/config.toml); keys are dotted names ("bm25.k1" is
// `k1 = ...` under `[bm25]`). Each key has one canonical environment
// variable, ENGRAM_<KEY> with dots as underscores, upper-case. Out-of-range
// numbers are clamped and unparsable values refused, each with a warning
// that names the key and where the value came from; a refused value leaves
// the lower-precedence one in force.
//
// This module is the only one that reads the environment, and only through
// the Environment it is given.
#ifndef ENGRAM_SRC_CONFIG_CONFIG_H_
#define ENGRAM_SRC_CONFIG_CONFIG_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/embedder.h"
#include "engram/llm.h"
#include "engram/options.h"
#include "engram/status.h"
#include "src/embed/model_location.h"
#include "src/server/server_options.h"

namespace engram {

// Looks up an environment variable; nullopt when unset.
using Environment = std::function<std::optional<std::string>(const std::string&)>;

// The process environment (getenv).
Environment ProcessEnvironment();

enum class ConfigSource { kDefault, kFile, kEnvironment, kFlag };
std::string_view ConfigSourceName(ConfigSource source);

// One effective setting and where it came from.
struct ConfigEntry {
  std::string key;    // "bm25.k1"
  std::string value;  // as text
  ConfigSource source = ConfigSource::kDefault;
  std::string origin;  // the file path, variable name or flag; empty for defaults
  std::string help;    // one line: unit, default, trade-off
};

struct ResolvedConfig {
  EngineOptions engine;                  // `embedder` and `llm` are left null: see below
  std::string home;                      // data directory
  std::string embed_provider = "local";  // spec for CreateEmbedder
  std::string models_dir;                // set by embed.models_dir; empty: looked up
  // The embedded model's file as looked up (src/embed/model_location.h):
  // in models_dir when set, else in <home>/models when home was set, the
  // user's data directory, the install prefix. embedder.models_dir is the
  // directory it was found in. Looked up only for the `local` provider.
  ModelLookup model;
  // For CreateEmbedder: model, dimensions, and the endpoint, key and
  // credentials of the provider embed_provider names.
  EmbedderOptions embedder;
  // The LLM as configured (llm.provider, llm.model) and the spec they make
  // for CreateLlm ("openai:gpt-4o-mini"); llm_spec empty: no LLM, no HyDE.
  std::string llm_provider;
  std::string llm_model;
  std::string llm_spec;
  LlmOptions llm;  // endpoint, key and credentials of that LLM
  // The LLM's own timeout and attempts, tighter than http.* because every
  // HyDE search waits for the LLM: a dead server costs one short retry, not
  // the embedders' patience.
  int llm_timeout_ms = 10000;
  int llm_max_attempts = 2;
  // Timeouts, retries and region shared by every provider (the http.* and
  // aws.region keys); copied into embedder.remote and llm.remote.
  RemoteOptions http;
  std::string aws_profile = "default";
  // Which credentials were found, for `engram config`: e.g. "OPENAI_API_KEY:
  // set". Never a secret's value.
  std::vector<std::string> credentials;
  std::string config_path;  // the file consulted (may not exist)
  size_t search_k = 10;
  FusionMode search_mode = FusionMode::kBlended;
  ServerOptions server;               // `engram serve` and `engram mcp`
  std::vector<ConfigEntry> entries;   // every key, in a stable order
  std::vector<std::string> warnings;  // clamped or refused values
};

// The configured provider is the embedded model (`local`, `local:MODEL`),
// whose file ResolvedConfig::model looks up.
inline bool UsesEmbeddedModel(const ResolvedConfig& config) {
  return config.embed_provider.rfind("local", 0) == 0;
}

// Flags given on the command line, by key ("db", "search.k", ...).
using ConfigFlags = std::map<std::string, std::string>;

// Resolves every key. Fails only when the config file exists but cannot be
// read or parsed; bad values become warnings. `read_file` false leaves the
// config file unread (the library's default: only what its caller set).
Result<ResolvedConfig> ResolveConfig(const Environment& env, const ConfigFlags& flags,
                                     bool read_file = true);

// `value` checked as configuration key `key` takes it: the canonical text
// ("1" -> "true" for a boolean), or InvalidArgument naming the key and why:
// an unknown key, a value it does not take, a number outside its range.
// Strict where a config file only warns, for callers that set keys one by
// one (the C API).
Result<std::string> CheckSetting(const std::string& key, const std::string& value);

// Every setting as {key: {value, source, origin}}; secrets read "(set)".
nlohmann::json ConfigEntriesJson(const ResolvedConfig& config);

}  // namespace engram

#endif  // ENGRAM_SRC_CONFIG_CONFIG_H_
