// BedrockClient: signed JSON calls to the Bedrock runtime API, shared by
// the Bedrock embedder (InvokeModel) and the Bedrock LLM (Converse).
//
// The endpoint is RemoteOptions::base_url when set, else
// https://bedrock-runtime.<aws_region>.amazonaws.com. The model id is
// percent-encoded once in the path (':' -> %3A) and signed as SigV4
// requires (encoded twice in the canonical request).
//
// Thread-safety: Post may be called from several threads at once.
#ifndef ENGRAM_SRC_HTTP_BEDROCK_CLIENT_H_
#define ENGRAM_SRC_HTTP_BEDROCK_CLIENT_H_

#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engram/clock.h"
#include "engram/remote.h"
#include "engram/status.h"
#include "src/http/http_client.h"

namespace engram {

class BedrockClient {
 public:
  // `client` sends (and retries); `options` gives region, credentials and
  // base URL; `clock` dates the signatures (null: the system clock).
  // InvalidArgument when the credentials or the region are empty or
  // `client` is null.
  static Result<std::unique_ptr<BedrockClient>> Create(std::shared_ptr<const HttpClient> client,
                                                       const RemoteOptions& options,
                                                       std::shared_ptr<const Clock> clock = {});

  // POSTs `body` to /model/<model_id>/<action> ("invoke", "converse"),
  // signed for service "bedrock", and returns the parsed JSON answer.
  // Errors as HttpClient::SendJson, with Bedrock's x-amzn-ErrorType named;
  // InvalidArgument, before anything is sent, for an empty model id or a
  // body with text that is not UTF-8.
  Result<nlohmann::json> Post(const std::string& model_id, std::string_view action,
                              const nlohmann::json& body, std::string_view what) const;

 private:
  BedrockClient(std::shared_ptr<const HttpClient> client, RemoteOptions options,
                std::shared_ptr<const Clock> clock);
  std::shared_ptr<const HttpClient> client_;
  RemoteOptions options_;
  std::shared_ptr<const Clock> clock_;
};

// "amazon.titan-embed-text-v2:0" -> "amazon.titan-embed-text-v2%3A0":
// every byte but unreserved ones percent-encoded.
std::string PercentEncodePathSegment(std::string_view segment);

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_BEDROCK_CLIENT_H_
