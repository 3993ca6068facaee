// engram backfill: embed every fact that lacks a vector in the active
// embedding space (after an import without a provider, or a provider
// switch), with a progress bar on a terminal.
#include "tools/engram/cli.h"
#include "tools/engram/progress_bar.h"

namespace engram::cli {

void RegisterBackfill(CLI::App& app, Cli& cli) {
  auto limit = std::make_shared<size_t>(0);
  CLI::App* sub =
      app.add_subcommand("backfill", "Embed every fact that has no vector in the active space");
  sub->footer(
      "The active space is the configured provider's (embed.provider): switching provider\n"
      "starts a new space; the old one is kept until `engram prune`.\n"
      "Example: ENGRAM_EMBED_PROVIDER=local engram backfill");
  sub->add_option("--limit", *limit, "Embed at most this many facts (default: all)");
  cli.OnRun(sub, [&cli, limit]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false, Cli::Embedding::kRequired);
    if (!engine.ok()) return cli.Fail(engine.status());
    ProgressBar bar(cli.err(), "embedding", IsTerminal(2));
    BackfillOptions options;
    options.limit = *limit;
    options.progress = [&bar](size_t done, size_t total) { bar.Update(done, total); };
    auto report = (*engine)->Backfill(options);
    if (!report.ok()) return cli.Fail(report.status());
    for (const auto& w : report->warnings) cli.err() << "engram: warning: " << w << "\n";
    auto stats = (*engine)->Stats();
    if (report->replaced > 0) {
      cli.out() << "deleted " << report->replaced
                << " unusable stored vector(s), to embed their facts again\n";
    }
    cli.out() << "embedded " << report->embedded << " fact(s)";
    if (stats.ok()) cli.out() << " into " << stats->active_space.Key();
    cli.out() << "; " << report->remaining << " still without a vector\n";
    return report->warnings.empty() ? kExitOk : kExitError;
  });
}

void RegisterPrune(CLI::App& app, Cli& cli) {
  CLI::App* sub =
      app.add_subcommand("prune", "Delete the vectors of every embedding space but the active one");
  sub->footer("Example: engram prune   (then `engram config` shows one space)");
  cli.OnRun(sub, [&cli]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false, Cli::Embedding::kRequired);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto removed = (*engine)->PruneVectors();
    if (!removed.ok()) return cli.Fail(removed.status());
    cli.out() << "removed " << *removed << " vector(s) of other spaces\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
