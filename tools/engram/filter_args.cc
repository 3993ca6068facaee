#include "tools/engram/filter_args.h"

#include "src/common/time_format.h"

namespace engram::cli {

void AddFilterOptions(CLI::App* sub, FilterArgs* args, bool with_kind) {
  sub->add_option("--any-tag", args->tags_any, "Only facts with at least one of these tags");
  sub->add_option("--all-tags", args->tags_all, "Only facts with every one of these tags");
  if (with_kind) sub->add_option("--kind", args->kind, "Only facts of this kind");
  sub->add_option("--meta-is", args->metadata,
                  "Only facts whose metadata has KEY=VALUE (repeatable; compared as text)");
  sub->add_option("--since", args->since,
                  "Only facts created or updated at or after this (ISO-8601, or 7d for a "
                  "week ago)");
  sub->add_option("--until", args->until, "Only facts created or updated before this");
  sub->add_option("--as-of", args->as_of,
                  "The facts that were current at this time (replaced and expired ones too)");
}

Result<FactFilter> MakeFilter(const FilterArgs& args, Timestamp now) {
  FactFilter f;
  f.tags_any = args.tags_any;
  f.tags_all = args.tags_all;
  f.kind = args.kind;
  for (const std::string& pair : args.metadata) {
    const size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--meta-is '" + pair + "': expected KEY=VALUE");
    }
    f.metadata.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
  }
  const auto instant = [&](const char* option, const std::string& text,
                           std::optional<Timestamp>* out) -> Status {
    if (text.empty()) return Status::OK();
    auto t = ParseInstant(text, now);
    if (!t.ok()) return InvalidArgument(std::string(option) + ": " + t.status().message());
    *out = *t;
    return Status::OK();
  };
  ENGRAM_RETURN_IF_ERROR(instant("--since", args.since, &f.since));
  ENGRAM_RETURN_IF_ERROR(instant("--until", args.until, &f.until));
  ENGRAM_RETURN_IF_ERROR(instant("--as-of", args.as_of, &f.as_of));
  return f;
}

}  // namespace engram::cli
