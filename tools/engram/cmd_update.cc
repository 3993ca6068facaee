// engram update ID TEXT: replace fact ID by a new version that keeps the
// old one as history; and engram history ID: every version of it.
#include "src/common/time_format.h"
#include "tools/engram/cli.h"
#include "tools/engram/fact_args.h"
#include "tools/engram/fact_printer.h"
#include "tools/engram/update_report.h"

namespace engram::cli {

int ReportUpdate(Cli& cli, const Result<UpdateOutcome>& outcome) {
  if (!outcome.ok()) return cli.Fail(outcome.status());
  for (const auto& w : outcome->warnings) cli.err() << "engram: warning: " << w << "\n";
  cli.out() << outcome->superseded.id << " superseded by " << outcome->fact.id
            << (outcome->created ? " (new)" : " (an existing fact, current again)") << "\n";
  return kExitOk;
}

void RegisterUpdate(CLI::App& app, Cli& cli) {
  struct Args {
    std::string id;
    FactArgs fact;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "update", "Replace a fact by a new version; the old one is kept as its history");
  sub->footer(
      "Example: engram update 3f2a1b9c \"Standup moved to 10:15 on Google Meet\"\n"
      "The old fact leaves search and list (see it with --include-superseded, or engram "
      "history).");
  sub->add_option("id", args->id, "The fact to replace (id or unique prefix)")->required();
  sub->add_option("text", args->fact.text, "The new version's text ('-' reads stdin)")->required();
  AddFactOptions(sub, &args->fact);
  cli.OnRun(sub, [&cli, args]() -> int {
    auto fact = MakeNewFact(args->fact);
    if (!fact.ok()) return cli.UsageError("update: " + fact.status().message());
    auto engine = cli.OpenEngine(/*create=*/false, Cli::Embedding::kIfAvailable);
    if (!engine.ok()) return cli.Fail(engine.status());
    return ReportUpdate(cli, (*engine)->Update({fact->scope, args->id, *fact}));
  });
}

void RegisterHistory(CLI::App& app, Cli& cli) {
  struct Args {
    std::string id;
    std::string scope = kDefaultScope;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("history", "Every version of a fact, oldest first");
  sub->footer("Example: engram history 3f2a1b9c");
  sub->add_option("id", args->id, "Any version's id or unique prefix")->required();
  sub->add_option("-s,--scope", args->scope, "Scope (default 'default')");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto chain = (*engine)->History(args->scope, args->id);
    if (!chain.ok()) return cli.Fail(chain.status());
    for (const Fact& f : *chain) {
      PrintFactLine(cli.out(), f);
      cli.out() << "    from " << FormatIso8601(f.created_at);
      if (f.IsSuperseded()) {
        cli.out() << " until " << FormatIso8601(f.valid_until) << ", superseded by "
                  << f.superseded_by << "\n";
      } else {
        cli.out() << ", current\n";
      }
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
