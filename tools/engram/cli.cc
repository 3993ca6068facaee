#include "tools/engram/cli.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

namespace engram::cli {

bool IsTerminal(int fd) { return isatty(fd) == 1; }

Cli::Cli(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}

Result<ResolvedConfig> Cli::Config() {
  ConfigFlags flags = flags_;
  if (!db_flag_.empty()) flags["db"] = db_flag_;
  ENGRAM_ASSIGN_OR_RETURN(ResolvedConfig config, ResolveConfig(ProcessEnvironment(), flags));
  for (const auto& w : config.warnings) err_ << "engram: warning: " << w << "\n";
  config.warnings.clear();
  return config;
}

Result<std::unique_ptr<Engine>> Cli::OpenEngine(bool create, Embedding embedding) {
  ENGRAM_ASSIGN_OR_RETURN(ResolvedConfig config, Config());
  config.engine.create_if_missing = create;
  return OpenEngine(std::move(config), embedding);
}

Result<std::shared_ptr<const Embedder>> Cli::LoadEmbedder(const ResolvedConfig& config,
                                                          Embedding embedding) {
  if (embedding == Embedding::kNone || config.embed_provider == "null") {
    return std::shared_ptr<const Embedder>();
  }
  EmbedderOptions embedder_options;
  embedder_options.models_dir = config.models_dir;
  auto embedder = CreateEmbedder(config.embed_provider, embedder_options);
  if (embedder.ok()) return std::shared_ptr<const Embedder>(std::move(*embedder));
  if (embedding == Embedding::kRequired) return embedder.status();
  err_ << "engram: warning: semantic signal off (keyword-only): " << embedder.status().message()
       << "\n";
  return std::shared_ptr<const Embedder>();
}

Result<std::unique_ptr<Engine>> Cli::OpenEngine(ResolvedConfig config, Embedding embedding) {
  ENGRAM_ASSIGN_OR_RETURN(config.engine.embedder, LoadEmbedder(config, embedding));
  return Engine::Open(config.engine);
}

int Cli::Fail(const Status& status) {
  err_ << "engram: " << status.message() << "\n";
  return kExitError;
}

int Cli::UsageError(const std::string& message) {
  err_ << "engram: " << message << "\n";
  return kExitUsage;
}

void Cli::WarnMissingScopes(Engine& engine, const std::vector<std::string>& scopes) {
  auto stats = engine.Stats();
  if (!stats.ok()) return;
  const std::vector<std::string> wanted =
      scopes.empty() ? std::vector<std::string>{kDefaultScope} : scopes;
  for (const auto& scope : wanted) {
    const bool present = std::any_of(stats->scopes.begin(), stats->scopes.end(),
                                     [&](const auto& entry) { return entry.first == scope; });
    if (!present) err_ << "engram: warning: scope '" << scope << "' holds no facts\n";
  }
}

void Cli::OnRun(CLI::App* sub, std::function<int()> run) {
  commands_.emplace_back(sub, std::move(run));
}

int Cli::Run(int argc, char** argv) {
  CLI::App app{
      "engram: long-term memory for LLM agents. Stores short facts and returns the right "
      "ones for a query (BM25 + recency, fused).",
      "engram"};
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--db", db_flag_, "SQLite database file (default: $ENGRAM_HOME/memory.db)");
  RegisterAdd(app, *this);
  RegisterImport(app, *this);
  RegisterList(app, *this);
  RegisterShow(app, *this);
  RegisterForget(app, *this);
  RegisterExport(app, *this);
  RegisterSearch(app, *this);
  RegisterConfig(app, *this);
  RegisterEval(app, *this);
  RegisterBackfill(app, *this);
  RegisterPrune(app, *this);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out_, err_);  // --help
    err_ << "engram: " << e.what() << "\n";
    err_ << "Run 'engram --help' or 'engram COMMAND --help' for usage.\n";
    return kExitUsage;
  }
  for (const auto& [sub, run] : commands_) {
    if (sub->parsed()) return run();
  }
  return UsageError("no command given");
}

}  // namespace engram::cli
