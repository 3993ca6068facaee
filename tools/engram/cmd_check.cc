// engram check: read the whole store and name what is not whole, and hash
// the whole embedded model file when the local provider is configured (a
// model load otherwise trusts its stamp, src/embed/model_stamp.h).
#include "src/embed/use_lite_model_file.h"
#include "tools/engram/cli.h"

namespace engram::cli {

void RegisterCheck(CLI::App& app, Cli& cli) {
  CLI::App* sub = app.add_subcommand(
      "check",
      "Check the store: SQLite and full-text integrity, fact ids against content, vectors; "
      "and the embedded model file");
  sub->footer(
      "Exit status 0 when the store is whole, 1 when a problem is named.\n"
      "Example: engram check");
  cli.OnRun(sub, [&cli]() -> int {
    auto config = cli.Config();
    if (!config.ok()) return cli.Fail(config.status());
    ResolvedConfig existing = *config;
    existing.engine.create_if_missing = false;
    auto engine = cli.OpenEngine(std::move(existing), Cli::Embedding::kNone);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto report = (*engine)->Check();
    if (!report.ok()) return cli.Fail(report.status());
    const bool check_model = UsesEmbeddedModel(*config) && config->model.Found();
    if (check_model) {
      UseLiteModelReadOptions whole;
      whole.map = true;
      whole.full_check = true;
      const auto model = ReadUseLiteModelFile(config->model.path, whole);
      if (!model.ok()) report->problems.push_back(model.status().message());
    }
    for (const std::string& problem : report->problems) cli.out() << problem << "\n";
    for (const std::string& skipped : report->skipped) cli.err() << "engram: " << skipped << "\n";
    cli.out() << "checked " << report->facts << " fact(s), " << report->vectors << " vector(s)"
              << (check_model ? " and the model file" : "") << ": "
              << (report->problems.empty()
                      ? std::string("no problem")
                      : std::to_string(report->problems.size()) + " problem(s)")
              << "\n";
    return report->problems.empty() ? kExitOk : kExitError;
  });
}

}  // namespace engram::cli
