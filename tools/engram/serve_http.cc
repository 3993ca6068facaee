// engram serve in engram-serve (tools/engram/serve.h): the HTTP JSON API
// (src/server/http_server.h) on one store. SIGHUP reloads the
// configuration; SIGTERM or SIGINT stops accepting, lets requests in flight
// finish and stops the background worker.
#include <pthread.h>
#include <signal.h>

#include "src/common/url_for_message.h"
#include "src/server/http_server.h"
#include "tools/engram/serve.h"
#include "tools/engram/serving.h"

namespace engram::cli {
namespace {

// Blocks `signals` in the calling thread (and the threads it starts) for
// its lifetime, so that they arrive only through sigwait.
class BlockedSignals {
 public:
  explicit BlockedSignals(std::initializer_list<int> signals) {
    sigemptyset(&set_);
    for (int s : signals) sigaddset(&set_, s);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~BlockedSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

  int Wait() const {
    int signal = 0;
    sigwait(&set_, &signal);
    return signal;
  }

 private:
  sigset_t set_{};
  sigset_t old_{};
};

}  // namespace

int RunServe(Cli& cli, const ServeArgs& args) {
  if (!args.host.empty()) cli.SetFlag("server.host", args.host);
  if (args.port >= 0) cli.SetFlag("server.port", std::to_string(args.port));
  if (args.threads > 0) cli.SetFlag("server.threads", std::to_string(args.threads));
  // Before any thread starts, so every thread inherits the mask.
  const BlockedSignals signals({SIGHUP, SIGTERM, SIGINT});
  auto served = OpenServed(cli);
  if (!served.ok()) return cli.Fail(served.status());
  served->server.mcp_scope = args.mcp_scope;
  served->server.mcp_read_scopes = args.mcp_read_scopes;
  auto server = HttpServer::Create(served->api.get(), served->server);
  if (!server.ok()) return cli.UsageError(server.status().message());
  if (Status s = (*server)->Start(); !s.ok()) return cli.Fail(s);
  const EngineOptions options = served->engine->options();
  const std::string address =
      "http://" +
      (served->server.host.find(':') != std::string::npos ? "[" + served->server.host + "]"
                                                          : served->server.host) +
      ":" + std::to_string((*server)->port());
  cli.err() << "engram: serving " << address << " (store "
            << (options.store_url.empty() ? options.db_path : UrlForMessage(options.store_url))
            << ", "
            << (options.embedder ? "embedding " + options.embedder->Space().Key()
                                 : std::string("keyword-only"))
            << (served->server.token.empty() ? "" : ", bearer token required") << ")\n"
            << "engram: memory browser: open " << address << "/ in a web browser" << std::endl;
  for (;;) {
    const int signal = signals.Wait();
    if (signal == SIGHUP) {
      auto reloaded = served->api->Reload();
      if (!reloaded.ok()) {
        cli.err() << "engram: " << reloaded.status().message() << " (configuration kept)"
                  << std::endl;
        continue;
      }
      for (const auto& w : (*reloaded)["warnings"]) {
        cli.err() << "engram: warning: " << w.get<std::string>() << "\n";
      }
      const auto& embedding = (*reloaded)["embedding"];
      cli.err() << "engram: reloaded: "
                << (embedding.is_null() ? "keyword-only"
                                        : "embedding " + embedding.get<std::string>())
                << std::endl;
      continue;
    }
    cli.err() << "engram: stopping: finishing requests in flight (again to stop at once)"
              << std::endl;
    // A second SIGTERM or SIGINT during the drain takes its default
    // action: the main thread no longer blocks it.
    sigset_t stop_now;
    sigemptyset(&stop_now);
    sigaddset(&stop_now, SIGTERM);
    sigaddset(&stop_now, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &stop_now, nullptr);
    (*server)->Stop();
    break;
  }
  server->reset();
  served->api.reset();
  served->engine.reset();  // stops the background worker
  cli.err() << "engram: stopped" << std::endl;
  return kExitOk;
}

}  // namespace engram::cli
