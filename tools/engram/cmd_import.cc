// engram import FILE: load facts from JSONL (as `export` writes) or CSV.
// All or nothing: any bad record aborts before the store is touched, unless
// --skip-bad, which imports the good records and lists the rest. The good
// records go in one transaction, so a crash mid-import leaves no trace.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "src/engine/fact_files.h"
#include "tools/engram/cli.h"
#include "tools/engram/progress_bar.h"

namespace engram::cli {
namespace {

constexpr size_t kMaxErrorsShown = 20;

}  // namespace

void RegisterImport(CLI::App& app, Cli& cli) {
  struct Args {
    std::string path;
    std::string format;
    bool skip_bad = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub =
      app.add_subcommand("import", "Import facts from a JSONL or CSV file ('-': stdin)");
  sub->footer(
      "Example: engram import examples/memory.jsonl\n"
      "JSONL keys: content, scope, tags, kind, source, confidence, metadata, id,\n"
      "created_at, updated_at, last_accessed, access_count. CSV: a header row with\n"
      "the same names; tags separated by ';'.");
  sub->add_option("file", args->path, "Input file")->required();
  sub->add_option("--format", args->format, "jsonl or csv (default: from the file name)")
      ->check(CLI::IsMember({"jsonl", "csv"}));
  sub->add_flag("--skip-bad", args->skip_bad, "Import the good records, report the bad ones");
  cli.OnRun(sub, [&cli, args]() -> int {
    const std::string format = args->format.empty() ? FactFileFormat(args->path) : args->format;
    std::ifstream file;
    std::istream* in = &std::cin;
    if (args->path != "-") {
      file.open(args->path, std::ios::binary);
      if (!file) {
        return cli.Fail(
            IOError("import: cannot read '" + args->path + "': " + std::strerror(errno)));
      }
      in = &file;
    }
    auto engine = cli.OpenEngine(/*create=*/true, Cli::Embedding::kIfAvailable);
    if (!engine.ok()) return cli.Fail(engine.status());

    auto records = ReadFactRecords(**engine, *in, format, args->path);
    if (!records.ok()) return cli.Fail(records.status());
    const std::vector<NewFact>& good = records->good;
    const std::vector<std::string>& errors = records->errors;
    for (size_t i = 0; i < errors.size() && i < kMaxErrorsShown; ++i) {
      cli.err() << "engram: import: " << errors[i] << "\n";
    }
    if (errors.size() > kMaxErrorsShown) {
      cli.err() << "engram: import: ... and " << errors.size() - kMaxErrorsShown
                << " more bad records\n";
    }
    if (!errors.empty() && !args->skip_bad) {
      cli.err() << "engram: import: " << errors.size()
                << " bad record(s); nothing imported (use --skip-bad to import the rest)\n";
      return kExitError;
    }
    const bool draw = IsTerminal(2) && good.size() >= 200;
    ProgressBar bar(cli.err(), "importing", draw);
    ProgressBar embed_bar(cli.err(), "embedding", draw);
    ImportOptions options;
    options.progress = [&bar](size_t done, size_t total) { bar.Update(done, total); };
    options.embed_progress = [&embed_bar](size_t done, size_t total) {
      embed_bar.Update(done, total);
    };
    auto report = (*engine)->Import(good, options);
    if (!report.ok()) return cli.Fail(report.status());
    for (const auto& w : report->warnings) cli.err() << "engram: warning: " << w << "\n";
    cli.out() << "imported " << report->added << " new, " << report->merged << " merged";
    if (report->near_duplicates > 0) {
      cli.out() << " (" << report->near_duplicates << " as near-duplicates of current facts)";
    }
    if (!errors.empty()) cli.out() << ", skipped " << errors.size() << " bad";
    if (report->embedded > 0) cli.out() << ", embedded " << report->embedded;
    cli.out() << "\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
