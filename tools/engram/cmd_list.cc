// engram list: facts of a scope, newest first.
#include "src/store/fact_codec.h"
#include "tools/engram/cli.h"
#include "tools/engram/fact_printer.h"
#include "tools/engram/filter_args.h"

namespace engram::cli {

void RegisterList(CLI::App& app, Cli& cli) {
  struct Args {
    ListOptions options;
    FilterArgs filter;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("list", "List facts, newest first");
  sub->footer("Example: engram list --tag editor --limit 20");
  sub->add_option("-s,--scope", args->options.scopes, "Scope (repeatable; default 'default')");
  sub->add_option("-t,--tag", args->options.tag, "Only facts with this tag");
  sub->add_option("--kind", args->options.kind, "Only facts of this kind");
  sub->add_option("-n,--limit", args->options.limit, "At most this many (0: all; default 50)");
  sub->add_option("--offset", args->options.offset, "Skip this many first");
  sub->add_flag("--include-superseded", args->options.include_superseded,
                "Also list facts replaced by newer versions");
  AddFilterOptions(sub, &args->filter, /*with_kind=*/false);
  sub->add_flag("--json", args->json, "One JSON object per line");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto filter = MakeFilter(args->filter, SystemClock()->NowMillis());
    if (!filter.ok()) return cli.UsageError("list: " + filter.status().message());
    args->options.filter = std::move(*filter);
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto facts = (*engine)->List(args->options);
    if (!facts.ok()) return cli.Fail(facts.status());
    if (facts->empty()) cli.WarnMissingScopes(**engine, args->options.scopes);
    for (const Fact& f : *facts) {
      if (args->json) {
        cli.out() << FactToJsonLine(f) << "\n";
      } else {
        PrintFactLine(cli.out(), f);
      }
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
