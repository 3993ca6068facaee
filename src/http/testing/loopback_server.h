// LoopbackServer: a real HTTP server on 127.0.0.1, on a free port, for
// tests of the providers. Each test installs a handler that checks the
// request and answers as the real API would; the server records every
// request it saw.
//
// Thread-safety: the handler runs on the server's threads (16, so up to 16
// requests are answered at once); Requests() and
// the setters may be called from the test thread at any time.
#ifndef ENGRAM_SRC_HTTP_TESTING_LOOPBACK_SERVER_H_
#define ENGRAM_SRC_HTTP_TESTING_LOOPBACK_SERVER_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "src/http/http_transport.h"

namespace engram::testing {

// A request as the server received it. `path` is the raw path as sent on
// the wire (percent-encoding kept), without the query; for a request sent
// to a proxy it is the absolute form ("http://host/x"). `headers` leaves out
// any header whose value is empty (cpp-httplib drops them).
struct ReceivedRequest {
  std::string method;
  std::string path;
  std::string query;  // raw, without '?'
  HttpHeaders headers;
  std::string body;
};

// What the handler answers. `delay_ms` > 0 holds the answer back (for
// timeout tests).
struct CannedResponse {
  int status = 200;
  std::string body;
  HttpHeaders headers;  // Content-Type defaults to application/json
  int delay_ms = 0;
};

class LoopbackServer {
 public:
  using Handler = std::function<CannedResponse(const ReceivedRequest&)>;

  // Starts listening on 127.0.0.1 at a free port; every request goes to
  // `handler`. The server stops in the destructor.
  explicit LoopbackServer(Handler handler);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  // "http://127.0.0.1:<port>".
  std::string BaseUrl() const;
  int port() const { return port_; }  // NOLINT(readability-identifier-naming): accessor

  void SetHandler(Handler handler);
  // Every request seen so far, in arrival order.
  std::vector<ReceivedRequest> Requests() const;
  // Stops listening (later requests see a refused connection); an answer
  // held back by delay_ms goes out at once. Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

// A handler that answers every request with `responses` in turn, the last
// one repeated once they run out.
LoopbackServer::Handler Sequence(std::vector<CannedResponse> responses);

}  // namespace engram::testing

#endif  // ENGRAM_SRC_HTTP_TESTING_LOOPBACK_SERVER_H_
