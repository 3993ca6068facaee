// engram serve in the engram command (tools/engram/serve.h): replaces this
// process with engram-serve, found beside this program (a build tree) or
// in the libexec directory an install puts it in.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "tools/engram/serve.h"

// Where an install puts engram-serve, relative to the engram command's
// directory (tools/engram/CMakeLists.txt).
#ifndef ENGRAM_SERVE_FROM_BINDIR
#define ENGRAM_SERVE_FROM_BINDIR "../libexec/engram"
#endif

namespace engram::cli {

int RunServe(Cli& cli, const ServeArgs& /*args: engram-serve parses them again*/) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return cli.Fail(IOError("serve: cannot find this program's path: " + ec.message()));
  const fs::path dir = self.parent_path();
  const fs::path places[] = {dir / kServingProgram,
                             (dir / ENGRAM_SERVE_FROM_BINDIR / kServingProgram).lexically_normal()};
  for (const fs::path& program : places) {
    if (access(program.c_str(), X_OK) != 0) continue;
    cli.out().flush();
    cli.err().flush();
    execv(program.c_str(), cli.Argv());
    return cli.Fail(IOError("serve: cannot run " + program.string() + ": " + std::strerror(errno)));
  }
  return cli.Fail(NotFound("serve: the HTTP server is the program " + std::string(kServingProgram) +
                           ", which is neither at " + places[0].string() + " nor at " +
                           places[1].string() + "; reinstall engram"));
}

}  // namespace engram::cli
