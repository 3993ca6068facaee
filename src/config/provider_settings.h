// The settings of the HTTP providers that are not configuration keys:
// which API key, endpoint variable and AWS credentials each provider uses,
// looked up in the environment and the AWS shared files (DESIGN §7, §8).
#ifndef ENGRAM_SRC_CONFIG_PROVIDER_SETTINGS_H_
#define ENGRAM_SRC_CONFIG_PROVIDER_SETTINGS_H_

#include "src/config/config.h"

namespace engram {

// Fills config->embedder.remote and config->llm.remote from config->http
// (timeouts, retries, region; the LLM's own timeout and attempts) plus, for the providers that
// config->embed_provider and config->llm_spec name: the API key
// (OPENAI_API_KEY, VOYAGE_API_KEY, ANTHROPIC_API_KEY), OLLAMA_HOST as the
// Ollama endpoint when no base_url is set, and for Bedrock the AWS
// credentials (environment, then the shared files of aws.profile) and the
// profile's region when aws.region is not set. Notes what it found in
// config->credentials (never a value) and what it could not find in
// config->warnings. `region_set` says whether aws.region came from
// anywhere but the default.
void ApplyProviderSettings(const Environment& env, bool region_set, ResolvedConfig* config);

// "openai" of "openai:gpt-4o-mini".
std::string ProviderName(const std::string& spec);

}  // namespace engram

#endif  // ENGRAM_SRC_CONFIG_PROVIDER_SETTINGS_H_
