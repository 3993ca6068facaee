// engram serve: the HTTP JSON API (src/server/http_server.h) on one store.
// SIGHUP reloads the configuration; SIGTERM or SIGINT stops accepting,
// lets requests in flight finish and stops the background worker.
#include <pthread.h>
#include <signal.h>

#include "src/server/http_server.h"
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

void RegisterServe(CLI::App& app, Cli& cli) {
  struct Args {
    std::string host;
    int port = -1;
    int threads = 0;
    std::string mcp_scope;
    std::vector<std::string> mcp_read_scopes;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("serve", "Serve the memory over an HTTP JSON API");
  sub->footer(
      "Routes: POST/GET /v1/facts, GET/DELETE /v1/facts/{id}, POST /v1/search, GET /v1/config,\n"
      "POST /v1/reload, GET /healthz; MCP over Streamable HTTP at /mcp.\n"
      "SIGHUP reloads the configuration; SIGTERM drains.\n"
      "Any address but 127.0.0.1, ::1 or localhost needs server.token (ENGRAM_SERVER_TOKEN).\n"
      "Example: engram serve --port 7411");
  sub->add_option("--host", args->host, "Address to listen on (default: server.host, 127.0.0.1)");
  sub->add_option("--port", args->port, "TCP port; 0 picks a free one (default: server.port, 7411)")
      ->check(CLI::Range(0, 65535));
  sub->add_option("--threads", args->threads, "Threads serving connections (default: 64)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--mcp-scope", args->mcp_scope,
                  "Bind every MCP session at /mcp to this scope (default: the URL's ?scope=)");
  sub->add_option("--mcp-read-scope", args->mcp_read_scopes,
                  "A scope MCP sessions may also read (repeatable; with --mcp-scope)")
      ->needs("--mcp-scope");
  cli.OnRun(sub, [&cli, args]() -> int {
    if (!args->host.empty()) cli.SetFlag("server.host", args->host);
    if (args->port >= 0) cli.SetFlag("server.port", std::to_string(args->port));
    if (args->threads > 0) cli.SetFlag("server.threads", std::to_string(args->threads));
    // Before any thread starts, so every thread inherits the mask.
    const BlockedSignals signals({SIGHUP, SIGTERM, SIGINT});
    auto served = OpenServed(cli);
    if (!served.ok()) return cli.Fail(served.status());
    served->server.mcp_scope = args->mcp_scope;
    served->server.mcp_read_scopes = args->mcp_read_scopes;
    auto server = HttpServer::Create(served->api.get(), served->server);
    if (!server.ok()) return cli.UsageError(server.status().message());
    if (Status s = (*server)->Start(); !s.ok()) return cli.Fail(s);
    const EngineOptions options = served->engine->options();
    cli.err() << "engram: serving http://"
              << (served->server.host.find(':') != std::string::npos
                      ? "[" + served->server.host + "]"
                      : served->server.host)
              << ":" << (*server)->port() << " (store " << options.db_path << ", "
              << (options.embedder ? "embedding " + options.embedder->Space().Key()
                                   : std::string("keyword-only"))
              << (served->server.token.empty() ? "" : ", bearer token required") << ")"
              << std::endl;
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
  });
}

}  // namespace engram::cli
