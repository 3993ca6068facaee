// engram mcp: the memory as a Model Context Protocol server on stdio
// (src/server/mcp_server.h). Protocol messages go to stdout only; warnings
// go to stderr.
#include <signal.h>

#include <iostream>

#include "src/server/mcp_server.h"
#include "tools/engram/serving.h"

namespace engram::cli {

void RegisterMcp(CLI::App& app, Cli& cli) {
  CLI::App* sub = app.add_subcommand("mcp", "Serve the memory to an MCP client over stdin/stdout");
  sub->footer(
      "Tools: memory_search, memory_add, memory_update, memory_forget, memory_list,\n"
      "memory_scopes.\n"
      "Client configuration: {\"command\": \"engram\", \"args\": [\"mcp\", \"--scope\", \"me\"]}");
  auto scopes = std::make_shared<McpScopes>();
  sub->add_option("--scope", scopes->pinned,
                  "Bind the session to this scope: every write goes there, and a call naming "
                  "another is refused (default: each call names its own)");
  sub->add_option("--read-scope", scopes->read_only,
                  "A scope the session may also search and list (repeatable; with --scope)")
      ->needs("--scope");
  cli.OnRun(sub, [&cli, scopes]() -> int {
    // A SIGHUP meant for `engram serve` (pkill -HUP engram) must not end an
    // agent's session; the session ends when its input does.
    signal(SIGHUP, SIG_IGN);
    auto served = OpenServed(cli);
    if (!served.ok()) return cli.Fail(served.status());
    McpServer mcp(served->api.get(), *scopes);
    mcp.Serve(std::cin, cli.out());
    return kExitOk;
  });
}

}  // namespace engram::cli
