// Helpers for the LLM provider tests: options that point a provider at a
// loopback server with quick retries, a sink for the log lines, and
// readers for what the server received.
#ifndef ENGRAM_SRC_LLM_LLM_TEST_UTIL_H_
#define ENGRAM_SRC_LLM_LLM_TEST_UTIL_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/llm.h"
#include "engram/remote.h"
#include "src/http/http_transport.h"
#include "src/http/testing/json_exchange.h"
#include "src/http/testing/log_lines.h"
#include "src/http/testing/loopback_server.h"

namespace engram::testing {

// Options for a provider behind `base_url`: 3 attempts, 1-5 ms backoff,
// 5 s per attempt, every log line into `sink` (when given).
inline LlmOptions LoopbackOptions(const std::string& base_url,
                                  const std::shared_ptr<LogLines>& sink = nullptr) {
  LlmOptions options;
  options.remote.base_url = base_url;
  options.remote.max_attempts = 3;
  options.remote.backoff_initial_ms = 1;
  options.remote.backoff_max_ms = 5;
  options.remote.connect_timeout_ms = 2000;
  options.remote.timeout_ms = 5000;
  if (sink) options.remote.log = [sink](std::string_view line) { sink->Add(line); };
  return options;
}

// What HyDE sends: fixed instructions and the query.
inline LlmRequest HydeRequest() {
  LlmRequest request;
  request.system = "Write a 2-4 sentence plausible answer.";
  request.user = "how do I rotate the postgres logs?";
  request.max_tokens = 200;
  request.temperature = 0.0;
  return request;
}

}  // namespace engram::testing

#endif  // ENGRAM_SRC_LLM_LLM_TEST_UTIL_H_
