#include "src/server/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <utility>

#include "src/server/api_json.h"
#include "src/server/request_guard.h"
#include "src/server/web_assets.h"

namespace engram {
namespace {

using nlohmann::json;

constexpr char kJson[] = "application/json";

// Connections the kernel queues before the server accepts them; the
// kernel caps it at net.core.somaxconn.
constexpr int kListenBacklog = 1024;
// Seconds a client is told to wait before repeating a request that met an
// unavailable store (a 503).
constexpr char kRetryAfterSeconds[] = "1";

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(DumpJson(body) + "\n", kJson);
}

void SendError(httplib::Response& res, int status, std::string_view code,
               const std::string& message) {
  SendJson(res, status, {{"error", {{"code", code}, {"message", message}}}});
}

void SendStatus(httplib::Response& res, const Status& status) {
  const int http_status = HttpStatusFor(status.code());
  // What is unavailable now (the store's database restarting, a connection
  // being made again) may answer in a moment: say when to try again.
  if (http_status == 503) res.set_header("Retry-After", kRetryAfterSeconds);
  SendError(res, http_status, StatusCodeName(status.code()),
            WithoutAbsolutePaths(status.message()));
}

// What the memory browser's files are served with: scripts, styles and
// images from this server only, no inline script or style, no frame around
// the page, no plugin, and form posts nowhere (the page calls the API
// itself).
constexpr char kPagePolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The browser's page and files, served to anyone who may reach the server:
// they hold no memory, and the API calls the page makes carry the token.
bool IsPublicPage(const httplib::Request& req) {
  if (req.method != "GET" && req.method != "HEAD") return false;
  return req.path == "/" || req.path.rfind("/ui/", 0) == 0;
}

void SendWebFile(httplib::Response& res, const WebFile& file) {
  res.set_header("Content-Security-Policy", kPagePolicy);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cache-Control", "no-cache");
  res.set_content(file.body.data(), file.body.size(), std::string(WebContentType(file.name)));
}

// Compares without stopping at the first difference, so the time taken
// says nothing about how much of a guess was right.
bool SameSecret(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^ expected[i % expected.size()]);
  }
  return diff == 0;
}

// The request's query parameters as a JSON object; a name given twice
// becomes an array.
json QueryParams(const httplib::Request& req) {
  json out = json::object();
  for (const auto& [name, value] : req.params) {
    if (!out.contains(name)) {
      out[name] = value;
    } else if (out[name].is_array()) {
      out[name].push_back(value);
    } else {
      out[name] = json::array({out[name], value});
    }
  }
  return out;
}

// httplib's thread pool, counting the accepted connections that wait for
// a thread (the watchdog makes room when any do).
class CountingThreadPool final : public httplib::TaskQueue {
 public:
  CountingThreadPool(size_t threads, std::shared_ptr<std::atomic<size_t>> queued)
      : pool_(threads), queued_(std::move(queued)) {}
  void enqueue(std::function<void()> fn) override {
    queued_->fetch_add(1);
    pool_.enqueue([queued = queued_, fn = std::move(fn)] {
      queued->fetch_sub(1);
      fn();
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  std::shared_ptr<std::atomic<size_t>> queued_;
};

// The request's Content-Length, 0 when absent or unreadable (httplib then
// refuses the request itself).
size_t ContentLength(const httplib::Request& req) {
  const std::string value = req.get_header_value("Content-Length");
  char* end = nullptr;
  const unsigned long long n = std::strtoull(value.c_str(), &end, 10);
  return end == value.c_str() || *end != '\0' ? 0 : static_cast<size_t>(n);
}

// True when `header` starts with the auth scheme "Bearer " in any case
// (RFC 7235: schemes are case-insensitive).
bool HasBearerScheme(std::string_view header) {
  constexpr std::string_view kScheme = "bearer ";
  if (header.size() < kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return false;
  }
  return true;
}

}  // namespace

void HttpServer::ServeMcp(const httplib::Request& req, httplib::Response& res) {
  watchdog_.ReportHandling(req.remote_addr, req.remote_port);
  McpHttpRequest request;
  request.method = req.method;
  request.session_id = req.get_header_value("Mcp-Session-Id");
  request.protocol_version = req.get_header_value("MCP-Protocol-Version");
  request.body = req.body;
  if (!options_.mcp_scope.empty()) {
    request.scopes = McpScopes{options_.mcp_scope, options_.mcp_read_scopes};
  } else if (req.has_param("scope")) {
    request.scopes.pinned = req.get_param_value("scope");
    for (size_t i = 0; i < req.get_param_value_count("read_scope"); ++i) {
      request.scopes.read_only.push_back(req.get_param_value("read_scope", i));
    }
  }
  const McpHttpAnswer answer = mcp_.Handle(request);
  res.status = answer.status;
  if (!answer.session_id.empty()) res.set_header("Mcp-Session-Id", answer.session_id);
  if (!answer.allow.empty()) res.set_header("Allow", answer.allow);
  if (!answer.body.empty()) res.set_content(answer.body, answer.content_type);
}

Result<json> HttpServer::BodyJson(const httplib::Request& req) {
  watchdog_.ReportHandling(req.remote_addr, req.remote_port);
  if (req.body.empty()) return InvalidArgument("request body: empty; expected a JSON object");
  return ParseJson(req.body, "request body");
}

int HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kNotSupported:
      return 501;
    case StatusCode::kUnavailable:
    case StatusCode::kCancelled:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kIOError:
    case StatusCode::kCorruption:
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

bool IsDefaultLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "::1" || host == "localhost";
}

Result<std::unique_ptr<HttpServer>> HttpServer::Create(MemoryApi* api, ServerOptions options) {
  if (!IsDefaultLoopback(options.host) && options.token.empty()) {
    return InvalidArgument("serve: refusing to listen on " + options.host +
                           " without a bearer token: set server.token (ENGRAM_SERVER_TOKEN), "
                           "or listen on 127.0.0.1");
  }
  if (options.port < 0 || options.port > 65535) {
    return InvalidArgument("serve: port " + std::to_string(options.port) + " is not in 0..65535");
  }
  if (options.threads < 1) return InvalidArgument("serve: threads must be at least 1");
  return std::unique_ptr<HttpServer>(new HttpServer(api, std::move(options)));
}

HttpServer::HttpServer(MemoryApi* api, ServerOptions options)
    : api_(api),
      options_(std::move(options)),
      mcp_(api),
      server_(std::make_unique<httplib::Server>()),
      queued_(std::make_shared<std::atomic<size_t>>(0)),
      watchdog_(ConnectionWatchdogOptions{
          .header_timeout = std::chrono::milliseconds(options_.header_timeout_ms)}) {
  const auto threads = static_cast<size_t>(options_.threads);
  server_->new_task_queue = [threads, queued = queued_] {
    return new CountingThreadPool(threads, queued);
  };
  server_->set_payload_max_length(options_.limits.max_body_bytes);
  server_->set_read_timeout(std::chrono::milliseconds(options_.read_timeout_ms));
  server_->set_keep_alive_timeout(std::max(1, options_.keep_alive_timeout_ms / 1000));
  // httplib closes a kept-alive connection after 5 requests by default; an
  // agent's client keeps one open for its session.
  server_->set_keep_alive_max_count(1000000);
  // Answers are small and written in pieces (headers, body): without
  // TCP_NODELAY, Nagle's algorithm meets the client's delayed ACK and each
  // answer on a kept-alive connection waits ~40 ms.
  server_->set_tcp_nodelay(true);
  // httplib listens with a backlog of 5: a burst of clients connecting at
  // once overflows it and their handshakes stall or fail. Keep the
  // listening socket (this is called for it alone) to listen again, with a
  // real backlog, once it is bound.
  server_->set_socket_options([this](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd_ = sock;
  });
  Route();
}

HttpServer::~HttpServer() { Stop(); }

bool HttpServer::Refused(const httplib::Request& req, httplib::Response& res) const {
  const std::string header = req.get_header_value("Authorization");
  if (header.empty()) {
    res.set_header("WWW-Authenticate", "Bearer realm=\"engram\"");
    SendError(res, 401, "unauthenticated", "missing bearer token (Authorization: Bearer ...)");
    return true;
  }
  constexpr size_t kSchemeBytes = 7;  // "Bearer "
  if (!HasBearerScheme(header) ||
      !SameSecret(std::string_view(header).substr(kSchemeBytes), options_.token)) {
    res.set_header("WWW-Authenticate", "Bearer realm=\"engram\", error=\"invalid_token\"");
    SendError(res, 401, "unauthenticated", "wrong bearer token");
    return true;
  }
  return false;
}

void HttpServer::Route() {
  httplib::Server& s = *server_;
  // Each request's phases, for the watchdog that closes slow connections:
  // headers in (below), body in (BodyJson), answered (here).
  s.set_logger([this](const httplib::Request& req, const httplib::Response&) {
    watchdog_.ReportAnswered(req.remote_addr, req.remote_port);
  });
  // The token check comes before routing, so an unknown path tells an
  // unauthenticated caller nothing either.
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    watchdog_.ReportHeaders(req.remote_addr, req.remote_port, ContentLength(req));
    // Where the request comes from before who sends it: a page the user
    // visits must not reach the memory even with a token in hand.
    RequestGuardOptions guard{options_.host, SplitOriginList(options_.allowed_origins)};
    const std::string host = req.get_header_value("Host");
    for (const auto& refusal :
         {CheckHost(host, guard), CheckOrigin(req.get_header_value("Origin"), host, guard),
          CheckContentType(req.method, req.get_header_value("Content-Type"))}) {
      if (refusal) {
        SendError(res, refusal->http_status, refusal->code, refusal->message);
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    if (!options_.token.empty() && !IsPublicPage(req)) {
      if (Refused(req, res)) return httplib::Server::HandlerResponse::Handled;
    }
    // The body limit holds only for a body of known length, sent as is:
    // a chunked body could run past it, a compressed one inflate past it.
    if (req.has_header("Transfer-Encoding")) {
      SendError(res, 411, "length_required",
                "request body: send it with Content-Length, not Transfer-Encoding");
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::string encoding = req.get_header_value("Content-Encoding");
    if (!encoding.empty() && encoding != "identity") {
      SendError(res, 415, "unsupported_media_type",
                "request body: Content-Encoding '" + encoding +
                    "' is not accepted; send it "
                    "uncompressed");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  // Answers the API's result, or its error.
  const auto reply = [](httplib::Response& res, const Result<json>& result, int ok_status = 200) {
    if (result.ok()) {
      SendJson(res, ok_status, *result);
    } else {
      SendStatus(res, result.status());
    }
  };
  // Runs `call` on the parsed body.
  const auto with_body = [this, reply](auto call) {
    return [this, reply, call](const httplib::Request& req, httplib::Response& res) {
      auto body = BodyJson(req);
      if (!body.ok()) return SendStatus(res, body.status());
      reply(res, call(*body));
    };
  };
  s.Post("/v1/facts", [this](const httplib::Request& req, httplib::Response& res) {
    auto body = BodyJson(req);
    if (!body.ok()) return SendStatus(res, body.status());
    if (req.has_param("scope")) {
      json& b = *body;
      if (b.is_object() && b.contains("scope") && b["scope"] != req.get_param_value("scope")) {
        return SendStatus(res, InvalidArgument("add: the scope in the URL differs from the "
                                               "body's field 'scope'"));
      }
      if (b.is_object()) b["scope"] = req.get_param_value("scope");
    }
    auto result = api_->Add(*body);
    const bool created = result.ok() && (*result)["added"].get<int64_t>() > 0;
    if (result.ok()) return SendJson(res, created ? 201 : 200, *result);
    SendStatus(res, result.status());
  });
  s.Get("/v1/facts", [this, reply](const httplib::Request& req, httplib::Response& res) {
    reply(res, api_->List(QueryParams(req), /*from_query=*/true));
  });
  s.Get(R"(/v1/facts/([^/]+))", [this, reply](const httplib::Request& req, httplib::Response& res) {
    json args = QueryParams(req);
    args["id"] = req.matches[1].str();
    reply(res, api_->Get(args, /*from_query=*/true));
  });
  s.Delete(R"(/v1/facts/([^/]+))",
           [this, reply](const httplib::Request& req, httplib::Response& res) {
             json args = QueryParams(req);
             args["id"] = req.matches[1].str();
             reply(res, api_->Forget(args, /*from_query=*/true));
           });
  // An update: PUT or POST on the fact replaces it by a new version.
  const auto update = [this](const httplib::Request& req, httplib::Response& res) {
    auto body = BodyJson(req);
    if (!body.ok()) return SendStatus(res, body.status());
    json& b = *body;
    if (!b.is_object()) return SendStatus(res, InvalidArgument("update: expected a JSON object"));
    if (b.contains("id") && b["id"] != req.matches[1].str()) {
      return SendStatus(res, InvalidArgument("update: the id in the URL differs from the body's "
                                             "field 'id'"));
    }
    b["id"] = req.matches[1].str();
    if (req.has_param("scope")) {
      if (b.contains("scope") && b["scope"] != req.get_param_value("scope")) {
        return SendStatus(res, InvalidArgument("update: the scope in the URL differs from the "
                                               "body's field 'scope'"));
      }
      b["scope"] = req.get_param_value("scope");
    }
    auto result = api_->Update(b);
    if (!result.ok()) return SendStatus(res, result.status());
    SendJson(res, (*result)["created"].get<bool>() ? 201 : 200, *result);
  };
  s.Put(R"(/v1/facts/([^/]+))", update);
  s.Post(R"(/v1/facts/([^/]+))", update);
  s.Get(R"(/v1/facts/([^/]+)/history)",
        [this, reply](const httplib::Request& req, httplib::Response& res) {
          json args = QueryParams(req);
          args["id"] = req.matches[1].str();
          reply(res, api_->History(args, /*from_query=*/true));
        });
  s.Post("/v1/search", with_body([this](const json& body) { return api_->Search(body); }));
  s.Get("/v1/export", [this](const httplib::Request& req, httplib::Response& res) {
    auto jsonl = api_->Export(QueryParams(req), /*from_query=*/true);
    if (!jsonl.ok()) return SendStatus(res, jsonl.status());
    res.set_header("Content-Disposition", "attachment; filename=\"engram-export.jsonl\"");
    res.set_content(*jsonl, "application/x-ndjson");
  });
  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    SendWebFile(res, *FindWebFile("index.html"));
  });
  s.Get(R"(/ui/([^/]+))", [](const httplib::Request& req, httplib::Response& res) {
    const WebFile* file = FindWebFile(req.matches[1].str());
    if (file == nullptr || file->name == "index.html") {
      return SendError(res, 404, "not_found", "no page file " + req.path);
    }
    SendWebFile(res, *file);
  });
  s.Get("/v1/config", [this, reply](const httplib::Request&, httplib::Response& res) {
    reply(res, api_->Config());
  });
  s.Post("/v1/reload", [this, reply](const httplib::Request&, httplib::Response& res) {
    reply(res, api_->Reload());
  });
  s.Get("/healthz", [this, reply](const httplib::Request&, httplib::Response& res) {
    reply(res, api_->Health());
  });
  const auto mcp = [this](const httplib::Request& req, httplib::Response& res) {
    ServeMcp(req, res);
  };
  s.Post("/mcp", mcp);
  s.Get("/mcp", mcp);
  s.Delete("/mcp", mcp);

  // A known path with the wrong method: 405 and the methods it takes.
  const auto wrong_method = [](const char* allow) {
    return [allow](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", allow);
      SendError(res, 405, "method_not_allowed",
                req.method + " " + req.path + ": allowed: " + allow);
    };
  };
  for (const char* path : {"/v1/search", "/v1/reload"}) {
    s.Get(path, wrong_method("POST"));
    s.Put(path, wrong_method("POST"));
    s.Delete(path, wrong_method("POST"));
  }
  for (const char* path : {"/v1/config", "/v1/export", "/healthz"}) {
    s.Post(path, wrong_method("GET"));
    s.Put(path, wrong_method("GET"));
    s.Delete(path, wrong_method("GET"));
  }
  s.Put("/v1/facts", wrong_method("GET, POST"));
  s.Delete("/v1/facts", wrong_method("GET, POST"));
  s.Patch(R"(/v1/facts/([^/]+))", wrong_method("GET, PUT, POST, DELETE"));

  // Errors httplib answers itself (no route, body too large, unreadable
  // request) get the same JSON shape; a handler's own error body stays.
  s.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 413) {
      SendError(res, 413, "payload_too_large",
                "request body: larger than the limit of " +
                    std::to_string(options_.limits.max_body_bytes) +
                    " bytes (server.max_body_bytes)");
    } else if (res.status == 404) {
      SendError(res, 404, "not_found", "no route " + req.method + " " + req.path);
    } else if (res.status == 400 && req.method == "POST" && !req.has_header("Content-Length")) {
      SendError(res, 400, "length_required",
                "request body: a POST needs a Content-Length header (curl: -d '{}')");
    } else {
      SendError(res, res.status, "bad_request",
                "request: refused with HTTP " + std::to_string(res.status));
    }
  });
  s.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(std::move(error));
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        SendError(res, 500, "internal", "server: " + what);
      });
}

Status HttpServer::Start() {
  if (listener_.joinable()) return FailedPrecondition("serve: already started");
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.host);
  } else if (server_->bind_to_port(options_.host, options_.port)) {
    port_ = options_.port;
  }
  if (port_ > 0 && listen_fd_ >= 0) listen(listen_fd_, kListenBacklog);
  if (port_ <= 0) {
    port_ = 0;
    return IOError("serve: cannot listen on " + options_.host + ":" +
                   std::to_string(options_.port) + " (address in use or not local)");
  }
  watchdog_.Start(listen_fd_, port_, [queued = queued_] { return queued->load(); });
  listener_ = std::thread([this] {
    server_->listen_after_bind();
    listener_ended_ = true;
  });
  // httplib ignores a stop() that comes before its loop runs: wait for it,
  // so that Stop() right after Start() (a SIGTERM at start-up) is kept.
  while (!server_->is_running() && !listener_ended_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::OK();
}

void HttpServer::Stop() {
  if (!listener_.joinable()) return;
  server_->stop();
  listener_.join();
  watchdog_.Stop();
}

}  // namespace engram
