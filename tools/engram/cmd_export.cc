// engram export: every fact as JSONL, which `import` reads back exactly.
#include <fstream>

#include "src/common/private_files.h"
#include "src/engine/fact_files.h"
#include "tools/engram/cli.h"

namespace engram::cli {

void RegisterExport(CLI::App& app, Cli& cli) {
  struct Args {
    std::vector<std::string> scopes;
    std::string output;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("export", "Write facts as JSONL (all scopes by default)");
  sub->footer("Example: engram export --scope default -o backup.jsonl");
  sub->add_option("-s,--scope", args->scopes, "Only this scope (repeatable)");
  sub->add_option("-o,--output", args->output, "Output file (default: standard output)");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    std::ofstream file;
    std::ostream* out = &cli.out();
    if (!args->output.empty()) {
      // Memories are private: a new export file is 0600.
      if (Status made = CreatePrivateFile(args->output); !made.ok()) {
        return cli.Fail(made.WithContext("export"));
      }
      file.open(args->output, std::ios::binary | std::ios::trunc);
      if (!file) return cli.Fail(IOError("export: cannot write '" + args->output + "'"));
      out = &file;
    }
    auto count = WriteFactsJsonl(**engine, args->scopes, *out,
                                 args->output.empty() ? std::string("stdout") : args->output);
    if (!count.ok()) return cli.Fail(count.status());
    if (*count == 0 && !args->scopes.empty()) cli.WarnMissingScopes(**engine, args->scopes);
    if (!args->output.empty()) cli.err() << "exported " << *count << " fact(s)\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
