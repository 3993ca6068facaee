// engram check: read the whole store and name what is not whole.
#include "tools/engram/cli.h"

namespace engram::cli {

void RegisterCheck(CLI::App& app, Cli& cli) {
  CLI::App* sub = app.add_subcommand(
      "check",
      "Check the store: SQLite and full-text integrity, fact ids against content, vectors");
  sub->footer(
      "Exit status 0 when the store is whole, 1 when a problem is named.\n"
      "Example: engram check");
  cli.OnRun(sub, [&cli]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto report = (*engine)->Check();
    if (!report.ok()) return cli.Fail(report.status());
    for (const std::string& problem : report->problems) cli.out() << problem << "\n";
    for (const std::string& skipped : report->skipped) cli.err() << "engram: " << skipped << "\n";
    cli.out() << "checked " << report->facts << " fact(s) and " << report->vectors << " vector(s): "
              << (report->problems.empty()
                      ? std::string("no problem")
                      : std::to_string(report->problems.size()) + " problem(s)")
              << "\n";
    return report->problems.empty() ? kExitOk : kExitError;
  });
}

}  // namespace engram::cli
