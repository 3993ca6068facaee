// Reading a ReceivedRequest and writing a CannedResponse as JSON: what every
// provider test against the LoopbackServer does.
#ifndef ENGRAM_SRC_HTTP_TESTING_JSON_EXCHANGE_H_
#define ENGRAM_SRC_HTTP_TESTING_JSON_EXCHANGE_H_

#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "src/http/http_transport.h"
#include "src/http/testing/loopback_server.h"

namespace engram::testing {

// The request's body as JSON (discarded when it does not parse).
inline nlohmann::json BodyJson(const ReceivedRequest& request) {
  return nlohmann::json::parse(request.body, nullptr, false);
}

// The header's value, or "" when the request has none.
inline std::string Header(const ReceivedRequest& request, std::string_view name) {
  return FindHeader(request.headers, name).value_or("");
}

// A JSON answer with `status`.
inline CannedResponse Json(int status, const nlohmann::json& body, HttpHeaders headers = {}) {
  return CannedResponse{status, body.dump(), std::move(headers), 0};
}

}  // namespace engram::testing

#endif  // ENGRAM_SRC_HTTP_TESTING_JSON_EXCHANGE_H_
