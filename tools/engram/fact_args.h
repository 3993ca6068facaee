// The options that describe one fact, shared by `add` and `update`, and the
// NewFact they make.
#ifndef ENGRAM_TOOLS_ENGRAM_FACT_ARGS_H_
#define ENGRAM_TOOLS_ENGRAM_FACT_ARGS_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engram/fact.h"
#include "engram/status.h"

namespace engram::cli {

struct FactArgs {
  std::string text;  // "-" reads standard input
  std::vector<std::string> tags;
  std::string kind = kDefaultKind;
  std::string source;
  std::string scope = kDefaultScope;
  double confidence = 1.0;
  std::string metadata = "{}";
  std::string created_at;  // ISO-8601; empty: now
  std::string ttl;         // "30d": expires that long after now; empty: never
};

// Adds --tag, --kind, --source, --scope, --confidence, --meta,
// --created-at and --ttl to `sub`, filling `args` (which must outlive it). The text
// is the caller's positional.
void AddFactOptions(CLI::App* sub, FactArgs* args);

// The fact the options describe; InvalidArgument naming the option when
// --created-at or --ttl does not parse.
Result<NewFact> MakeNewFact(const FactArgs& args);

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_FACT_ARGS_H_
