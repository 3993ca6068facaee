// engram add TEXT: store one fact (or merge it into the same text or a
// near-duplicate of a current fact); with
// --supersedes ID, store it as the new version of fact ID.
#include <iomanip>

#include "tools/engram/cli.h"
#include "tools/engram/fact_args.h"
#include "tools/engram/fact_printer.h"
#include "tools/engram/update_report.h"

namespace engram::cli {

void RegisterAdd(CLI::App& app, Cli& cli) {
  struct Args {
    FactArgs fact;
    std::string supersedes;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("add", "Add a fact (text '-' reads standard input)");
  sub->footer(
      "Example: engram add \"Prefers tabs over spaces in Go code\" --tag style --kind preference\n"
      "         engram add \"Standup moved to 10:15\" --supersedes 3f2a1b9c");
  sub->add_option("text", args->fact.text, "The fact's text")->required();
  AddFactOptions(sub, &args->fact);
  sub->add_option("--supersedes", args->supersedes,
                  "Store it as the new version of this fact, which is kept as superseded");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto fact = MakeNewFact(args->fact);
    if (!fact.ok()) return cli.UsageError("add: " + fact.status().message());
    auto engine = cli.OpenEngine(/*create=*/true, Cli::Embedding::kIfAvailable);
    if (!engine.ok()) return cli.Fail(engine.status());
    if (!args->supersedes.empty()) {
      return ReportUpdate(cli, (*engine)->Update({fact->scope, args->supersedes, *fact}));
    }
    auto outcome = (*engine)->Add(*fact);
    if (!outcome.ok()) return cli.Fail(outcome.status());
    for (const auto& w : outcome->warnings) cli.err() << "engram: warning: " << w << "\n";
    cli.out() << (outcome->created ? "added " : "merged into ") << outcome->fact.id;
    if (!outcome->updated_fields.empty()) {
      cli.out() << " (updated";
      for (const auto& f : outcome->updated_fields) cli.out() << " " << f;
      cli.out() << ")";
    }
    if (outcome->near_duplicate) {
      cli.out() << std::fixed << std::setprecision(2) << " (a near-duplicate of it: cosine "
                << outcome->near_duplicate->cosine << ", term overlap "
                << outcome->near_duplicate->overlap
                << "; it keeps its own text: " << OneLine(outcome->fact.content, 80) << ")";
    }
    cli.out() << "\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
