#include "src/config/provider_settings.h"

#include <string>

#include "src/http/aws_credentials.h"

namespace engram {
namespace {

// The variable holding the API key of `provider`; empty when it takes none.
std::string ApiKeyVariable(const std::string& provider) {
  if (provider == "openai") return "OPENAI_API_KEY";
  if (provider == "voyage") return "VOYAGE_API_KEY";
  if (provider == "anthropic") return "ANTHROPIC_API_KEY";
  return "";
}

// OLLAMA_HOST as Ollama's own tools read it: "host:port" or a URL.
std::string OllamaBase(const std::string& host) {
  if (host.find("://") != std::string::npos) return host;
  return "http://" + host;
}

// Key, endpoint and AWS credentials for one provider's RemoteOptions.
void FillRemote(const Environment& env, const std::string& provider, const std::string& what,
                const std::optional<AwsCredentials>& aws, ResolvedConfig* config,
                RemoteOptions* remote) {
  const std::string base_url = remote->base_url;
  *remote = config->http;
  remote->base_url = base_url;
  const std::string variable = ApiKeyVariable(provider);
  if (!variable.empty()) {
    if (auto key = env(variable); key && !key->empty()) {
      remote->api_key = *key;
      config->credentials.push_back(what + ": " + variable + " set");
    } else {
      config->credentials.push_back(what + ": " + variable + " not set");
    }
  }
  if (provider == "ollama" && remote->base_url.empty()) {
    if (auto host = env("OLLAMA_HOST"); host && !host->empty()) {
      remote->base_url = OllamaBase(*host);
    }
  }
  if (provider == "bedrock" && aws) remote->aws = *aws;
}

}  // namespace

std::string ProviderName(const std::string& spec) { return spec.substr(0, spec.find(':')); }

void ApplyProviderSettings(const Environment& env, bool region_set, ResolvedConfig* config) {
  const std::string embed = ProviderName(config->embed_provider);
  const std::string llm = ProviderName(config->llm_spec);
  std::optional<AwsCredentials> aws;
  if (embed == "bedrock" || llm == "bedrock") {
    const std::string home = env("HOME").value_or(".");
    AwsCredentialSources sources;
    sources.access_key_id = env("AWS_ACCESS_KEY_ID").value_or("");
    sources.secret_access_key = env("AWS_SECRET_ACCESS_KEY").value_or("");
    sources.session_token = env("AWS_SESSION_TOKEN").value_or("");
    sources.profile = config->aws_profile;
    sources.credentials_file =
        env("AWS_SHARED_CREDENTIALS_FILE").value_or(home + "/.aws/credentials");
    sources.config_file = env("AWS_CONFIG_FILE").value_or(home + "/.aws/config");
    auto found = ResolveAwsCredentials(sources);
    if (found.ok()) {
      aws = *found;
      config->credentials.push_back(std::string("bedrock: AWS credentials found") +
                                    (found->session_token.empty() ? "" : " (with session token)"));
    } else {
      config->warnings.push_back("config: bedrock: " + found.status().message());
    }
    if (!region_set) {
      if (auto region = ProfileRegion(sources)) {
        config->http.aws_region = *region;
        for (ConfigEntry& e : config->entries) {
          if (e.key != "aws.region") continue;
          e.value = *region;
          e.source = ConfigSource::kFile;
          e.origin = sources.config_file + " [" + sources.profile + "]";
        }
      }
    }
  }
  FillRemote(env, embed, "embed", aws, config, &config->embedder.remote);
  FillRemote(env, llm, "llm", aws, config, &config->llm.remote);
  config->llm.remote.timeout_ms = config->llm_timeout_ms;
  config->llm.remote.max_attempts = config->llm_max_attempts;
}

}  // namespace engram
