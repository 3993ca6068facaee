// RemoteOptions: how a provider that runs behind an HTTP API is reached —
// endpoint, credentials, timeouts and retries. Shared by the embedding
// providers (embedder.h) and the LLM providers (llm.h); src/config fills it
// from the configuration and the provider's own environment variables.
//
// Secrets (api_key, the AWS secret key and session token) are only ever
// sent on the wire; they never appear in a log line or an error message.
#ifndef ENGRAM_REMOTE_H_
#define ENGRAM_REMOTE_H_

#include <functional>
#include <string>
#include <string_view>

namespace engram {

// AWS credentials for SigV4 signing (Bedrock).
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;  // secret
  std::string session_token;      // secret; empty for long-term keys
  bool empty() const { return access_key_id.empty() || secret_access_key.empty(); }
};

struct RemoteOptions {
  // Endpoint base, e.g. "https://api.openai.com" or "http://127.0.0.1:8080".
  // Empty: the provider's own (OpenAI, Voyage, Anthropic: their public API;
  // Bedrock: https://bedrock-runtime.<region>.amazonaws.com; Ollama:
  // http://localhost:11434).
  std::string base_url;
  // Bearer token or API key of the provider. Secret.
  std::string api_key;
  // Bedrock: region and credentials.
  std::string aws_region = "us-east-1";
  AwsCredentials aws;
  // Time to establish a connection, in ms.
  int connect_timeout_ms = 5000;
  // Time for one whole attempt (connect, send, answer), in ms. A timed-out
  // attempt is not retried: its budget is spent.
  int timeout_ms = 30000;
  // Attempts per call, the first included; retried on 429, 5xx and
  // connection errors; 1 turns retries off.
  int max_attempts = 4;
  // First backoff, in ms; each retry doubles it, up to backoff_max_ms, and
  // waits a random time between half of it and all of it (jitter). A
  // Retry-After header of the answer replaces the backoff when it is no
  // longer than retry_after_max_ms; a longer one ends the retries.
  int backoff_initial_ms = 500;
  int backoff_max_ms = 8000;
  int retry_after_max_ms = 30000;
  // Receives one line per notable event (a retry and why). Lines are
  // redacted of every secret above. Empty: nothing is logged.
  std::function<void(std::string_view)> log;
};

}  // namespace engram

#endif  // ENGRAM_REMOTE_H_
