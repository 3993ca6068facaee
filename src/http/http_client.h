// HttpClient: requests with timeouts, bounded retries and redaction, on top
// of an HttpTransport. Every provider (embeddings, LLMs) talks through one.
//
// Retries: on 429, on 5xx and on connection errors (Unavailable), never on
// a timeout (DeadlineExceeded: the attempt's budget is spent) or another
// 4xx. The wait before retry n (1-based) is backoff_initial_ms * 2^(n-1),
// capped at backoff_max_ms, with jitter: a uniform draw between half of it
// and all of it. A Retry-After header (seconds, or an HTTP date, measured
// from the answer's Date header when it has one, else from the system
// clock) replaces that wait when it is at most retry_after_max_ms; a longer
// one ends the retries at once with the server's answer. Each retry logs one
// line through RemoteOptions::log: method, URL (UrlForMessage), the cause
// and the wait; never a header value or a body.
//
// Redaction: every log line and error message is passed through Redact()
// with the request's secrets, so no key, token or signature leaks.
//
// Thread-safety: Send and SendJson may be called from several threads.
#ifndef ENGRAM_SRC_HTTP_HTTP_CLIENT_H_
#define ENGRAM_SRC_HTTP_HTTP_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engram/remote.h"
#include "engram/status.h"
#include "src/http/http_transport.h"

namespace engram {

// Sleeps for the given number of milliseconds; the seam that lets unit tests
// run retries without waiting.
using Sleeper = std::function<void(int)>;
Sleeper RealSleeper();

class HttpClient {
 public:
  // `options` supplies timeouts, retry policy and the log sink; its
  // credentials are not used here. `sleep` empty: RealSleeper(). `seed`
  // seeds the jitter of each call, so a fixed seed gives every call the same
  // schedule (for tests); 0 seeds each call from the clock.
  HttpClient(std::shared_ptr<const HttpTransport> transport, RemoteOptions options,
             Sleeper sleep = {}, uint64_t seed = 0);

  // Sends `request`, retrying as above. Returns the last response, whatever
  // its status, or the last transport error.
  Result<HttpResponse> Send(const HttpRequest& request) const;

  // Sends `request` and parses a 2xx answer's body as JSON. `what` names the
  // call in errors ("embed: openai"). Errors read "<what>: HTTP <status>:
  // <the API's own message>" (see ApiErrorMessage) with codes:
  // Unavailable for 429 and 5xx, FailedPrecondition for 401 and 403 (and a
  // redirect, which is not followed), InvalidArgument for other 4xx;
  // "<what>: answer: malformed JSON at byte N" (or another refusal of
  // src/common/json_text.h) for a 2xx body that does not parse
  // (Unavailable). A transport error keeps its code and
  // reads "<what>: <its message>".
  Result<nlohmann::json> SendJson(const HttpRequest& request, std::string_view what) const;

  const RemoteOptions& options() const { return options_; }

 private:
  std::shared_ptr<const HttpTransport> transport_;
  RemoteOptions options_;
  Sleeper sleep_;
  uint64_t seed_;
};

// The error message an API put in its answer, in any of the shapes the
// providers use: OpenAI {"error":{"message","type","code"}}, Anthropic
// {"type":"error","error":{"type","message"}}, Bedrock's x-amzn-ErrorType
// header (the part before ':') with {"message"} or {"Message"}, Voyage
// {"detail"}, Ollama {"error":"..."}; read as "type: message (code)".
// Falls back to the first 200 bytes of the body. On one line, at most 200
// bytes. Not redacted: callers do.
std::string ApiErrorMessage(const HttpResponse& response);

// `text` with every occurrence of each non-empty secret, and of its
// percent-encoded form (as it appears in a URL), replaced by "[redacted]".
std::string Redact(std::string_view text, const std::vector<std::string>& secrets);

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_HTTP_CLIENT_H_
