// engram gc: remove the facts whose time to live has run out.
#include "tools/engram/cli.h"

namespace engram::cli {

void RegisterGc(CLI::App& app, Cli& cli) {
  CLI::App* sub = app.add_subcommand(
      "gc", "Remove expired facts (add --ttl) and the older versions they replaced");
  sub->footer("Example: engram gc");
  cli.OnRun(sub, [&cli]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto removed = (*engine)->RemoveExpired();
    if (!removed.ok()) return cli.Fail(removed.status());
    cli.out() << "removed " << *removed << " expired fact(s)\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
