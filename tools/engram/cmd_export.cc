// engram export: every fact as JSONL, which `import` reads back exactly.
#include <fstream>

#include "src/common/private_files.h"
#include "src/store/fact_codec.h"
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
    size_t count = 0;
    Status s = (*engine)->Export(args->scopes, [&](const Fact& f) {
      *out << FactToJsonLine(f) << "\n";
      ++count;
      return static_cast<bool>(*out);
    });
    if (!s.ok()) return cli.Fail(s);
    if (count == 0 && !args->scopes.empty()) cli.WarnMissingScopes(**engine, args->scopes);
    out->flush();
    if (!*out) {
      return cli.Fail(IOError("export: write to '" +
                              (args->output.empty() ? std::string("stdout") : args->output) +
                              "' failed"));
    }
    if (!args->output.empty()) cli.err() << "exported " << count << " fact(s)\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
