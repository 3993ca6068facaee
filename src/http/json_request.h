// What every HTTP provider (embeddings, LLMs) builds its calls from: the
// default client, the endpoint base and a JSON POST.
#ifndef ENGRAM_SRC_HTTP_JSON_REQUEST_H_
#define ENGRAM_SRC_HTTP_JSON_REQUEST_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/remote.h"
#include "src/http/http_client.h"

namespace engram {

// An HttpClient on libcurl with the timeouts, retry policy and log sink of
// `options`.
std::shared_ptr<const HttpClient> DefaultHttpClient(const RemoteOptions& options);

// `base` without trailing slashes, or `fallback` when `base` is empty.
std::string BaseUrlOr(std::string_view base, std::string_view fallback);

// A POST of `body` as JSON (Content-Type and Accept application/json) to
// `url`, with `headers`; `secrets` are the values those headers carry that
// must never be logged. Invalid UTF-8 in the body becomes U+FFFD rather
// than an exception: the texts are the user's.
HttpRequest JsonPost(std::string url, const nlohmann::json& body, HttpHeaders headers = {},
                     std::vector<std::string> secrets = {});

// JsonPost with "Authorization: Bearer <api_key>" when the key is set, the
// key listed as the request's secret.
HttpRequest BearerJsonPost(std::string url, const std::string& api_key, const nlohmann::json& body);

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_JSON_REQUEST_H_
