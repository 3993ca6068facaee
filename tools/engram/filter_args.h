// The filter options of `search` and `list` (FactFilter) and the filter
// they make.
#ifndef ENGRAM_TOOLS_ENGRAM_FILTER_ARGS_H_
#define ENGRAM_TOOLS_ENGRAM_FILTER_ARGS_H_

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engram/clock.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram::cli {

struct FilterArgs {
  std::vector<std::string> tags_any;
  std::vector<std::string> tags_all;
  std::string kind;
  std::vector<std::string> metadata;  // "key=value"
  std::string since;                  // ISO-8601 or a duration ago
  std::string until;
  std::string as_of;
};

// Adds --any-tag, --all-tags, --meta-is, --since, --until, --as-of, and
// --kind when `with_kind` (list has its own), filling `args`.
void AddFilterOptions(CLI::App* sub, FilterArgs* args, bool with_kind);

// The filter; InvalidArgument naming the option when a value is bad.
Result<FactFilter> MakeFilter(const FilterArgs& args, Timestamp now);

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_FILTER_ARGS_H_
