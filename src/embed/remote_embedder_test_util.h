// Helpers for the tests of the HTTP embedding providers: options that point
// at a loopback server, vectors that say which text they belong to, and a
// log sink that keeps its lines.
#ifndef ENGRAM_SRC_EMBED_REMOTE_EMBEDDER_TEST_UTIL_H_
#define ENGRAM_SRC_EMBED_REMOTE_EMBEDDER_TEST_UTIL_H_

#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/embedder.h"
#include "src/http/testing/json_exchange.h"
#include "src/http/testing/log_lines.h"
#include "src/http/testing/loopback_server.h"

namespace engram::testing {

// Options for a provider behind `server`: quick retries.
inline EmbedderOptions OptionsFor(const LoopbackServer& server) {
  EmbedderOptions options;
  options.remote.base_url = server.BaseUrl();
  options.remote.timeout_ms = 5000;
  // A burst of connections beyond the server's listen backlog waits for a
  // SYN retransmission (1 s): leave room for it.
  options.remote.connect_timeout_ms = 5000;
  options.remote.max_attempts = 3;
  options.remote.backoff_initial_ms = 1;
  options.remote.backoff_max_ms = 5;
  return options;
}

// Texts "text 0", "text 1", ... "text n-1".
inline std::vector<std::string> Texts(size_t n) {
  std::vector<std::string> texts;
  texts.reserve(n);
  for (size_t i = 0; i < n; ++i) texts.push_back("text " + std::to_string(i));
  return texts;
}

// The vector a fake API answers for `text`: [k+1, 1, 1, ...] where k is the
// number at the end of the text (0 when none), so TagOf tells it apart after
// normalisation.
inline nlohmann::json VectorFor(std::string_view text, size_t dimension) {
  size_t start = text.find_last_not_of("0123456789");
  start = start == std::string_view::npos ? 0 : start + 1;
  size_t k = 0;
  for (size_t i = start; i < text.size(); ++i) k = k * 10 + static_cast<size_t>(text[i] - '0');
  nlohmann::json v = nlohmann::json::array();
  v.push_back(static_cast<double>(k + 1));
  for (size_t i = 1; i < dimension; ++i) v.push_back(1.0);
  return v;
}

// The k of the text a VectorFor vector was made for.
inline long TagOf(const std::vector<float>& v) { return std::lround(v[0] / v[1]) - 1; }

inline double SquaredNorm(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return s;
}

// What OpenAI and Voyage answer for the request's "input": one
// {"index","embedding"} entry per text, listed last first (the index, not
// the order, says which text an entry is for).
inline CannedResponse IndexedDataAnswer(const ReceivedRequest& request, size_t dimension) {
  const nlohmann::json body = BodyJson(request);
  const nlohmann::json& input = body.at("input");
  nlohmann::json data = nlohmann::json::array();
  for (size_t i = input.size(); i-- > 0;) {
    data.push_back({{"object", "embedding"},
                    {"index", i},
                    {"embedding", VectorFor(input[i].get<std::string>(), dimension)}});
  }
  return Json(200, {{"object", "list"}, {"data", data}, {"usage", {{"total_tokens", 7}}}});
}

}  // namespace engram::testing

#endif  // ENGRAM_SRC_EMBED_REMOTE_EMBEDDER_TEST_UTIL_H_
