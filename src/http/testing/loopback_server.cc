#include "src/http/testing/loopback_server.h"

#include <strings.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <stdexcept>
#include <utility>

#include <httplib.h>

namespace engram::testing {

struct LoopbackServer::Impl {
  httplib::Server server;
  std::thread thread;
  mutable std::mutex mutex;
  Handler handler;                        // guarded by mutex
  std::vector<ReceivedRequest> requests;  // guarded by mutex
  bool stopping = false;                  // guarded by mutex
  std::condition_variable stopped;        // cuts a delayed answer short
};

namespace {

constexpr size_t kThreads = 16;

// What cpp-httplib adds to a request's headers about the connection; not
// sent by the client, so not reported.
bool IsPseudoHeader(const std::string& name) {
  return name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" ||
         name == "LOCAL_PORT";
}

}  // namespace

LoopbackServer::LoopbackServer(Handler handler) : impl_(new Impl) {
  impl_->handler = std::move(handler);
  Impl* impl = impl_.get();
  auto serve = [impl](const httplib::Request& req, httplib::Response& res) {
    ReceivedRequest r;
    r.method = req.method;
    const size_t q = req.target.find('?');
    r.path = req.target.substr(0, q);
    r.query = q == std::string::npos ? "" : req.target.substr(q + 1);
    for (const auto& [name, value] : req.headers) {
      if (!IsPseudoHeader(name)) r.headers.emplace_back(name, value);
    }
    r.body = req.body;
    Handler h;
    {
      std::lock_guard lock(impl->mutex);
      impl->requests.push_back(r);
      h = impl->handler;
    }
    const CannedResponse answer =
        h ? h(r) : CannedResponse{404, R"({"error":"no handler"})", {}, 0};
    if (answer.delay_ms > 0) {
      std::unique_lock lock(impl->mutex);
      impl->stopped.wait_for(lock, std::chrono::milliseconds(answer.delay_ms),
                             [impl] { return impl->stopping; });
    }
    res.status = answer.status;
    std::string content_type = "application/json";
    for (const auto& [name, value] : answer.headers) {
      if (strcasecmp(name.c_str(), "Content-Type") == 0) {
        content_type = value;
      } else {
        res.set_header(name, value);
      }
    }
    res.set_content(answer.body, content_type);
  };
  // Room for parallel callers (Bedrock sends 8 at once) while some answers
  // are held back by delay_ms.
  impl_->server.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  impl_->server.Get(".*", serve);
  impl_->server.Post(".*", serve);
  impl_->server.Put(".*", serve);
  impl_->server.Delete(".*", serve);
  impl_->server.Patch(".*", serve);
  port_ = impl_->server.bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("loopback server: cannot bind 127.0.0.1");
  impl_->thread = std::thread([impl] { impl->server.listen_after_bind(); });
  for (int i = 0; i < 5000 && !impl_->server.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

LoopbackServer::~LoopbackServer() { Stop(); }

void LoopbackServer::Stop() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->stopped.notify_all();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string LoopbackServer::BaseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }

void LoopbackServer::SetHandler(Handler handler) {
  std::lock_guard lock(impl_->mutex);
  impl_->handler = std::move(handler);
}

std::vector<ReceivedRequest> LoopbackServer::Requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

LoopbackServer::Handler Sequence(std::vector<CannedResponse> responses) {
  auto next = std::make_shared<std::atomic<size_t>>(0);
  auto shared = std::make_shared<std::vector<CannedResponse>>(std::move(responses));
  if (shared->empty())
    shared->push_back(CannedResponse{500, R"({"error":"empty sequence"})", {}, 0});
  return [next, shared](const ReceivedRequest&) {
    const size_t i = next->fetch_add(1);
    return (*shared)[std::min(i, shared->size() - 1)];
  };
}

}  // namespace engram::testing
