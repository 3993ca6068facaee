// `engram serve`: its flags, registered by cmd_serve.cc for both programs,
// and RunServe, which each program defines once:
//  - engram-serve (serve_http.cc) runs the HTTP JSON API;
//  - engram (serve_exec.cc) replaces its own process with engram-serve,
//    with the same arguments, environment, process id and signal mask.
// The engram command links no HTTP server (cpp-httplib, and through it
// OpenSSL's TLS and brotli), so a one-shot command does not pay for
// placing those libraries at every start.
#ifndef ENGRAM_TOOLS_ENGRAM_SERVE_H_
#define ENGRAM_TOOLS_ENGRAM_SERVE_H_

#include <string>
#include <vector>

#include "tools/engram/cli.h"

namespace engram::cli {

// The flags of `engram serve`; empty, negative or zero means "from the
// configuration".
struct ServeArgs {
  std::string host;
  int port = -1;
  int threads = 0;
  std::string mcp_scope;
  std::vector<std::string> mcp_read_scopes;
};

// Runs `engram serve` until SIGTERM or SIGINT; returns the exit code.
int RunServe(Cli& cli, const ServeArgs& args);

// The program `engram serve` runs in the engram command.
inline constexpr char kServingProgram[] = "engram-serve";

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_SERVE_H_
