// How `add --supersedes` and `update` report an update.
#ifndef ENGRAM_TOOLS_ENGRAM_UPDATE_REPORT_H_
#define ENGRAM_TOOLS_ENGRAM_UPDATE_REPORT_H_

#include "engram/engine.h"
#include "tools/engram/cli.h"

namespace engram::cli {

// Prints the warnings and "ID superseded by ID2" (or the error); returns
// the exit code.
int ReportUpdate(Cli& cli, const Result<UpdateOutcome>& outcome);

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_UPDATE_REPORT_H_
