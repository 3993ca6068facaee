#include "src/http/bedrock_client.h"

#include <string>
#include <utility>

#include "src/http/sigv4_signer.h"

namespace engram {
namespace {

// The service name Bedrock runtime signatures are scoped to.
constexpr char kService[] = "bedrock";

std::string Endpoint(const RemoteOptions& options) {
  std::string base = options.base_url.empty()
                         ? "https://bedrock-runtime." + options.aws_region + ".amazonaws.com"
                         : options.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base;
}

}  // namespace

std::string PercentEncodePathSegment(std::string_view segment) {
  return SigV4UriEncode(segment, /*keep_slash=*/false);
}

BedrockClient::BedrockClient(std::shared_ptr<const HttpClient> client, RemoteOptions options,
                             std::shared_ptr<const Clock> clock)
    : client_(std::move(client)), options_(std::move(options)), clock_(std::move(clock)) {}

Result<std::unique_ptr<BedrockClient>> BedrockClient::Create(
    std::shared_ptr<const HttpClient> client, const RemoteOptions& options,
    std::shared_ptr<const Clock> clock) {
  if (client == nullptr) return InvalidArgument("bedrock: create: no http client");
  if (options.aws.empty()) {
    return InvalidArgument(
        "bedrock: create: no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
        "or a profile in the shared credentials file)");
  }
  if (options.aws_region.empty()) return InvalidArgument("bedrock: create: no AWS region");
  if (clock == nullptr) clock = SystemClock();
  return std::unique_ptr<BedrockClient>(
      new BedrockClient(std::move(client), options, std::move(clock)));
}

Result<nlohmann::json> BedrockClient::Post(const std::string& model_id, std::string_view action,
                                           const nlohmann::json& body,
                                           std::string_view what) const {
  if (model_id.empty()) return InvalidArgument(std::string(what) + ": empty model id");
  HttpRequest request;
  request.method = "POST";
  request.url = Endpoint(options_) + "/model/" + PercentEncodePathSegment(model_id) + "/" +
                PercentEncodePathSegment(action);
  request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  try {
    request.body = body.dump();
  } catch (const nlohmann::json::exception&) {
    // dump() throws only for strings that are not UTF-8.
    return InvalidArgument(std::string(what) + ": request body: text is not valid UTF-8");
  }
  ENGRAM_RETURN_IF_ERROR(
      SignRequestSigV4(&request, options_.aws, options_.aws_region, kService, clock_->NowMillis()));
  return client_->SendJson(request, what);
}

}  // namespace engram
