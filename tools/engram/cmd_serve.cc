// engram serve: the flags, for both programs (tools/engram/serve.h).
#include "tools/engram/serve.h"

namespace engram::cli {

void RegisterServe(CLI::App& app, Cli& cli) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* sub = app.add_subcommand(
      "serve", "Serve the memory over an HTTP JSON API, with a page to browse it at /");
  sub->footer(
      "Routes: POST/GET /v1/facts, GET/PUT/DELETE /v1/facts/{id}, GET /v1/facts/{id}/history,\n"
      "POST /v1/search, GET /v1/export, GET /v1/config, POST /v1/reload, GET /healthz;\n"
      "MCP over Streamable HTTP at /mcp; the memory browser at / (open it in a web browser).\n"
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
  cli.OnRun(sub, [&cli, args]() -> int { return RunServe(cli, *args); });
}

}  // namespace engram::cli
