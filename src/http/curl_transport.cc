#include "src/http/curl_transport.h"

#include <exception>
#include <string>
#include <string_view>

#include "src/common/url_for_message.h"
#include "src/http/curl_api.h"
#include "src/http/http_client.h"

namespace engram {

namespace {

struct EasyDeleter {
  const CurlApi* api;
  void operator()(CURL* easy) const { api->easy_cleanup(easy); }
};
struct SlistDeleter {
  const CurlApi* api;
  void operator()(curl_slist* list) const { api->slist_free_all(list); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;
using HeaderList = std::unique_ptr<curl_slist, SlistDeleter>;

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// libcurl callbacks run inside curl_easy_perform; an exception must not
// cross the C frames, so a failed append stops the transfer instead.
size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  try {
    static_cast<std::string*>(user)->append(data, size * count);
    return size * count;
  } catch (const std::exception&) {
    return 0;
  }
}

// Collects the headers of the final response: every status line ("HTTP/...")
// starts afresh, so interim answers (100 Continue, a proxy's CONNECT reply)
// leave nothing behind.
size_t WriteHeader(char* data, size_t size, size_t count, void* user) {
  try {
    auto* headers = static_cast<HttpHeaders*>(user);
    const std::string_view line(data, size * count);
    if (line.substr(0, 5) == "HTTP/") {
      headers->clear();
    } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
      headers->emplace_back(std::string(TrimSpace(line.substr(0, colon))),
                            std::string(TrimSpace(line.substr(colon + 1))));
    }
    return size * count;
  } catch (const std::exception&) {
    return 0;
  }
}

Status ErrorFor(const CurlApi& api, CURLcode code, const char* detail, const HttpRequest& request) {
  std::string message = "http: " + request.method + " " + UrlForMessage(request.url) + ": ";
  message += (detail != nullptr && detail[0] != '\0') ? detail : api.easy_strerror(code);
  message = Redact(message, request.secrets);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return DeadlineExceeded(std::move(message));
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return InvalidArgument(std::move(message));
    case CURLE_OUT_OF_MEMORY:
    case CURLE_WRITE_ERROR:
    case CURLE_FAILED_INIT:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_UNKNOWN_OPTION:
      return Internal(std::move(message));
    default:
      // Refused, reset, DNS, TLS handshake or verification, an empty or
      // garbled reply: no usable answer came.
      return Unavailable(std::move(message));
  }
}

// Puts each request header on `list`. libcurl's own defaults that the
// request did not ask for are removed, so the server sees what was sent:
// no form Content-Type for a body, no "Expect: 100-continue" round trip.
Result<HeaderList> BuildHeaders(const CurlApi& api, const HttpRequest& request) {
  HeaderList list(nullptr, SlistDeleter{&api});
  auto append = [&api, &list](const std::string& line) -> Status {
    curl_slist* next = api.slist_append(list.get(), line.c_str());
    if (next == nullptr) return Internal("http: request: out of memory for headers");
    if (!list) list.reset(next);
    return Status::OK();
  };
  for (const auto& [name, value] : request.headers) {
    if (name.empty() || name.find_first_of(":\r\n") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      // Names the header, never its value.
      return InvalidArgument(
          Redact("http: request: header '" + name + "' is malformed", request.secrets));
    }
    // "Name;" is libcurl's way to send a header with an empty value.
    std::string line = name;
    line += value.empty() ? ";" : ": ";
    line += value;
    ENGRAM_RETURN_IF_ERROR(append(line));
  }
  if (!FindHeader(request.headers, "Content-Type")) ENGRAM_RETURN_IF_ERROR(append("Content-Type:"));
  if (!FindHeader(request.headers, "Expect")) ENGRAM_RETURN_IF_ERROR(append("Expect:"));
  return list;
}

class CurlHttpTransport final : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request,
                            const HttpTimeouts& timeouts) const override {
    const std::string context = "http: " + request.method + " " + UrlForMessage(request.url);
    const Result<const CurlApi*> loaded = Curl();
    if (!loaded.ok()) return loaded.status().WithContext(Redact(context, request.secrets));
    const CurlApi& api = **loaded;
    if (request.method.empty() || request.method.find_first_of(" \r\n") != std::string::npos) {
      return InvalidArgument(Redact(context + ": bad method", request.secrets));
    }
    EasyHandle easy(api.easy_init(), EasyDeleter{&api});
    if (!easy) return Internal(Redact(context + ": curl_easy_init failed", request.secrets));
    ENGRAM_ASSIGN_OR_RETURN(HeaderList headers, BuildHeaders(api, request));

    HttpResponse response;
    char error_buffer[CURL_ERROR_SIZE] = {};
    CURL* h = easy.get();
    // The option calls can fail only for unknown options or out of memory;
    // the first such failure is kept and reported.
    CURLcode setup = CURLE_OK;
    auto set = [&setup](CURLcode code) {
      if (setup == CURLE_OK) setup = code;
    };
    set(api.easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer));
    set(api.easy_setopt(h, CURLOPT_URL, request.url.c_str()));
    set(api.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https"));
    set(api.easy_setopt(h, CURLOPT_NOSIGNAL, 1L));
    set(api.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L));
    set(api.easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L));
    set(api.easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L));
    // Non-positive timeouts mean "no limit" (libcurl's 0).
    set(api.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                        static_cast<long>(timeouts.connect_ms > 0 ? timeouts.connect_ms : 0)));
    set(api.easy_setopt(h, CURLOPT_TIMEOUT_MS,
                        static_cast<long>(timeouts.total_ms > 0 ? timeouts.total_ms : 0)));
    if (request.method == "GET" && request.body.empty()) {
      set(api.easy_setopt(h, CURLOPT_HTTPGET, 1L));
    } else if (request.method == "HEAD") {
      set(api.easy_setopt(h, CURLOPT_NOBODY, 1L));
    } else {
      // The body is sent from request.body, which outlives the transfer.
      set(api.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                          static_cast<curl_off_t>(request.body.size())));
      set(api.easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data()));
      if (request.method != "POST") {
        set(api.easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str()));
      }
    }
    set(api.easy_setopt(h, CURLOPT_HTTPHEADER, headers.get()));
    set(api.easy_setopt(h, CURLOPT_WRITEFUNCTION, &WriteBody));
    set(api.easy_setopt(h, CURLOPT_WRITEDATA, &response.body));
    set(api.easy_setopt(h, CURLOPT_HEADERFUNCTION, &WriteHeader));
    set(api.easy_setopt(h, CURLOPT_HEADERDATA, &response.headers));
    if (setup != CURLE_OK) return ErrorFor(api, setup, nullptr, request);

    const CURLcode code = api.easy_perform(h);
    if (code != CURLE_OK) return ErrorFor(api, code, error_buffer, request);
    long status = 0;
    if (api.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status <= 0) {
      return Unavailable(Redact(context + ": no HTTP status in the answer", request.secrets));
    }
    response.status = static_cast<int>(status);
    return response;
  }
};

}  // namespace

std::shared_ptr<const HttpTransport> CurlTransport() {
  static const std::shared_ptr<const HttpTransport> transport =
      std::make_shared<CurlHttpTransport>();
  return transport;
}

}  // namespace engram
