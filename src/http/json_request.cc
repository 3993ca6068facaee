#include "src/http/json_request.h"

#include <utility>

#include "src/http/curl_transport.h"

namespace engram {

std::shared_ptr<const HttpClient> DefaultHttpClient(const RemoteOptions& options) {
  return std::make_shared<const HttpClient>(CurlTransport(), options);
}

std::string BaseUrlOr(std::string_view base, std::string_view fallback) {
  std::string_view url = base.empty() ? fallback : base;
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return std::string(url);
}

HttpRequest JsonPost(std::string url, const nlohmann::json& body, HttpHeaders headers,
                     std::vector<std::string> secrets) {
  HttpRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.headers = std::move(headers);
  request.headers.emplace_back("Content-Type", "application/json");
  request.headers.emplace_back("Accept", "application/json");
  request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  request.secrets = std::move(secrets);
  return request;
}

HttpRequest BearerJsonPost(std::string url, const std::string& api_key,
                           const nlohmann::json& body) {
  if (api_key.empty()) return JsonPost(std::move(url), body);
  return JsonPost(std::move(url), body, {{"Authorization", "Bearer " + api_key}}, {api_key});
}

}  // namespace engram
