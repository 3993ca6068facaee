#include "src/http/http_client.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "engram/clock.h"
#include "src/common/json_text.h"
#include "src/common/time_format.h"
#include "src/common/url_for_message.h"

namespace engram {

namespace {

constexpr size_t kApiMessageMaxBytes = 200;
constexpr char kRedacted[] = "[redacted]";

bool IsRetryableStatus(int status) { return status == 429 || (status >= 500 && status <= 599); }

// The wait before retry `retry` (1-based): the doubled backoff, capped, with
// a uniform draw in [half, all] of it.
int BackoffMillis(const RemoteOptions& options, int retry, std::mt19937_64& rng) {
  const int64_t cap = std::max(0, options.backoff_max_ms);
  int64_t full = std::max(0, options.backoff_initial_ms);
  for (int i = 1; i < retry && full < cap; ++i) full *= 2;
  full = std::min(full, cap);
  const int64_t low = (full + 1) / 2;
  // rng() % n over 2^64 values: the bias is far below a millisecond's worth.
  const uint64_t span = static_cast<uint64_t>(full - low) + 1;
  return static_cast<int>(low + static_cast<int64_t>(rng() % span));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", the form RFC 9110 makes
// servers send) as milliseconds since the epoch.
std::optional<Timestamp> ParseHttpDate(std::string_view text) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  text = Trim(text);
  // "Sun, 06 Nov 1994 08:49:37 GMT": 29 characters, fixed positions.
  if (text.size() != 29 || text[3] != ',' || text.substr(26) != "GMT") return std::nullopt;
  const std::string_view month_name = text.substr(8, 3);
  const auto month = std::find(std::begin(kMonths), std::end(kMonths), month_name);
  if (month == std::end(kMonths)) return std::nullopt;
  const int month_number = static_cast<int>(month - std::begin(kMonths)) + 1;
  std::string iso(text.substr(12, 4));  // year
  iso += '-';
  iso += static_cast<char>('0' + month_number / 10);
  iso += static_cast<char>('0' + month_number % 10);
  iso += '-';
  iso += text.substr(5, 2);  // day
  iso += 'T';
  iso += text.substr(17, 8);  // HH:MM:SS
  iso += 'Z';
  Result<Timestamp> parsed = ParseIso8601(iso);
  if (!parsed.ok()) return std::nullopt;
  return *parsed;
}

// The wait a Retry-After header asks for, in ms: delta seconds, or an HTTP
// date measured from the answer's own Date header (no clock skew), else from
// the local clock. Empty when absent or unreadable.
std::optional<int64_t> RetryAfterMillis(const HttpResponse& response) {
  const std::optional<std::string> header = FindHeader(response.headers, "Retry-After");
  if (!header) return std::nullopt;
  const std::string_view value = Trim(*header);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // More than 9 digits is over 31 years: any cap is exceeded.
    if (value.size() > 9) return std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(std::stoll(std::string(value))) * 1000;
  }
  const std::optional<Timestamp> when = ParseHttpDate(value);
  if (!when) return std::nullopt;
  std::optional<Timestamp> now;
  if (const std::optional<std::string> date = FindHeader(response.headers, "Date")) {
    now = ParseHttpDate(*date);
  }
  if (!now) now = SystemClock()->NowMillis();
  return std::max<int64_t>(0, *when - *now);
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

// `text` with control characters and runs of white space folded to one
// space, cut to at most `max_bytes` without splitting a UTF-8 sequence.
std::string OneLine(std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) {
    size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end);
  }
  std::string out;
  for (const char c : text) {
    const bool space = static_cast<unsigned char>(c) < 0x20 || c == ' ' || c == 0x7F;
    if (!space) {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string StringField(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  if (it == object.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return "";
}

// FastAPI's validation errors (Voyage): [{"loc": [...], "msg": "..."}, ...].
std::string JoinDetail(const nlohmann::json& detail) {
  std::string out;
  for (const auto& item : detail) {
    const std::string msg = StringField(item, "msg");
    if (msg.empty()) continue;
    if (!out.empty()) out += "; ";
    out += msg;
  }
  return out.empty() ? detail.dump() : out;
}

std::string MessageFromJson(const nlohmann::json& body) {
  if (!body.is_object()) return "";
  if (const auto error = body.find("error"); error != body.end()) {
    if (error->is_string()) return error->get<std::string>();  // Ollama
    if (error->is_object()) {                                  // OpenAI, Anthropic
      const std::string message = StringField(*error, "message");
      const std::string type = StringField(*error, "type");
      const std::string code = StringField(*error, "code");
      std::string out = type.empty() ? message : (message.empty() ? type : type + ": " + message);
      if (!code.empty() && code != type) out += (out.empty() ? "" : " ") + ("(" + code + ")");
      return out;
    }
  }
  if (const auto detail = body.find("detail"); detail != body.end()) {  // Voyage
    if (detail->is_string()) return detail->get<std::string>();
    if (detail->is_array()) return JoinDetail(*detail);
  }
  std::string message = StringField(body, "message");
  if (message.empty()) message = StringField(body, "Message");
  return message;
}

}  // namespace

Sleeper RealSleeper() {
  return [](int ms) {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
}

HttpClient::HttpClient(std::shared_ptr<const HttpTransport> transport, RemoteOptions options,
                       Sleeper sleep, uint64_t seed)
    : transport_(std::move(transport)),
      options_(std::move(options)),
      sleep_(sleep ? std::move(sleep) : RealSleeper()),
      seed_(seed) {}

Result<HttpResponse> HttpClient::Send(const HttpRequest& request) const {
  const HttpTimeouts timeouts{options_.connect_timeout_ms, options_.timeout_ms};
  const int max_attempts = std::max(1, options_.max_attempts);
  const int max_retries = max_attempts - 1;
  // Each call draws its own jitter: from `seed_` when set (the same
  // schedule every call, for tests), else from the clock.
  uint64_t seed = seed_;
  if (seed == 0) {
    seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
           std::hash<std::thread::id>()(std::this_thread::get_id());
  }
  std::mt19937_64 rng(seed);
  const std::string context = "http: " + request.method + " " + UrlForMessage(request.url);
  auto log = [&](const std::string& line) {
    if (options_.log) options_.log(Redact(line, request.secrets));
  };

  for (int attempt = 1;; ++attempt) {
    Result<HttpResponse> result = transport_->Send(request, timeouts);
    std::string cause;
    int wait_ms = 0;
    if (!result.ok()) {
      const Status status = result.status();
      if (!status.retryable() || attempt == max_attempts) {
        return Status(status.code(), Redact(status.message(), request.secrets));
      }
      cause = status.message();
      wait_ms = BackoffMillis(options_, attempt, rng);
    } else {
      if (!IsRetryableStatus(result->status) || attempt == max_attempts) return result;
      cause = context + ": HTTP " + std::to_string(result->status);
      if (const std::optional<int64_t> retry_after = RetryAfterMillis(*result)) {
        if (*retry_after > options_.retry_after_max_ms) {
          log(cause + ", Retry-After " + std::to_string(*retry_after / 1000) + " s exceeds " +
              std::to_string(options_.retry_after_max_ms) + " ms, not retrying");
          return result;
        }
        wait_ms = static_cast<int>(*retry_after);
        cause += " (Retry-After)";
      } else {
        wait_ms = BackoffMillis(options_, attempt, rng);
      }
    }
    log(cause + ", retry " + std::to_string(attempt) + " of " + std::to_string(max_retries) +
        " in " + std::to_string(wait_ms) + " ms");
    sleep_(wait_ms);
  }
}

Result<nlohmann::json> HttpClient::SendJson(const HttpRequest& request,
                                            std::string_view what) const {
  const std::string prefix(what);
  Result<HttpResponse> result = Send(request);
  if (!result.ok()) return result.status().WithContext(prefix);
  const HttpResponse& response = *result;
  if (response.status >= 200 && response.status <= 299) {
    Result<nlohmann::json> answer = ParseJson(response.body, "answer");
    if (!answer.ok()) return Unavailable(prefix + ": " + answer.status().message());
    return answer;
  }
  // Redacted before the API's message is cut to length: a secret the server
  // echoes across the cut would otherwise leave its first bytes behind.
  HttpResponse redacted = response;
  redacted.body = Redact(response.body, request.secrets);
  for (auto& header : redacted.headers) header.second = Redact(header.second, request.secrets);
  std::string message = prefix + ": HTTP " + std::to_string(response.status);
  if (const std::string api = ApiErrorMessage(redacted); !api.empty()) message += ": " + api;
  message = Redact(message, request.secrets);
  if (IsRetryableStatus(response.status)) return Unavailable(std::move(message));
  if (response.status == 401 || response.status == 403) {
    return FailedPrecondition(std::move(message));
  }
  if (response.status >= 400 && response.status <= 499) return InvalidArgument(std::move(message));
  // 1xx or 3xx (redirects are not followed): the endpoint is not what the
  // configuration thinks it is.
  return FailedPrecondition(std::move(message));
}

std::string ApiErrorMessage(const HttpResponse& response) {
  const nlohmann::json body = ParseJson(response.body, "").value_or(nullptr);
  std::string message = MessageFromJson(body);
  if (const std::optional<std::string> type = FindHeader(response.headers, "x-amzn-ErrorType")) {
    // Bedrock: "ThrottlingException:http://internal.amazon.com/coral/..." -> the name.
    const std::string_view name = Trim(std::string_view(*type).substr(0, type->find(':')));
    if (!name.empty())
      message = message.empty() ? std::string(name) : std::string(name) + ": " + message;
  }
  if (message.empty()) message = response.body;
  return OneLine(message, kApiMessageMaxBytes);
}

std::string Redact(std::string_view text, const std::vector<std::string>& secrets) {
  // Longer first, so a secret that contains another is replaced whole. The
  // percent-encoded form is caught too, as a secret in a URL query is.
  std::vector<std::string> needles;
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    needles.push_back(secret);
    if (std::string encoded = PercentEncode(secret); encoded != secret) {
      needles.push_back(std::move(encoded));
    }
  }
  std::sort(needles.begin(), needles.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string out(text);
  for (const std::string& needle : needles) {
    for (size_t pos = out.find(needle); pos != std::string::npos;
         pos = out.find(needle, pos + sizeof(kRedacted) - 1)) {
      out.replace(pos, needle.size(), kRedacted);
    }
  }
  return out;
}

}  // namespace engram
