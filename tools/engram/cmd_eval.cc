#include "tools/engram/cli.h"
namespace engram::cli {
void RegisterEval(CLI::App& app, Cli& cli) {}
}  // namespace engram::cli
