// engram show ID: every field of one fact.
#include "src/store/fact_codec.h"
#include "tools/engram/cli.h"
#include "tools/engram/fact_printer.h"

namespace engram::cli {

void RegisterShow(CLI::App& app, Cli& cli) {
  struct Args {
    std::string id;
    std::string scope = kDefaultScope;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("show", "Show one fact by id or unique id prefix");
  sub->footer("Example: engram show 3f2a1b9c");
  sub->add_option("id", args->id, "Fact id or a unique prefix (>= 4 characters)")->required();
  sub->add_option("-s,--scope", args->scope, "Scope (default 'default')");
  sub->add_flag("--json", args->json, "As a JSON object");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto fact = (*engine)->Get(args->scope, args->id);
    if (!fact.ok()) return cli.Fail(fact.status());
    if (args->json) {
      cli.out() << FactToJsonLine(*fact) << "\n";
    } else {
      PrintFactDetail(cli.out(), *fact);
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
