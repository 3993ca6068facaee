#include "tools/engram/cli.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <mutex>

#include "engram/llm.h"

namespace engram::cli {

bool IsTerminal(int fd) { return isatty(fd) == 1; }

Cli::Cli(std::ostream& out, std::ostream& err) : out_(out), err_(err) {}

Result<ResolvedConfig> Cli::Config(std::vector<std::string>* warnings) {
  ConfigFlags flags = flags_;
  if (!db_flag_.empty()) flags["db"] = db_flag_;
  ENGRAM_ASSIGN_OR_RETURN(ResolvedConfig config, ResolveConfig(ProcessEnvironment(), flags));
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), config.warnings.begin(), config.warnings.end());
  } else {
    PrintWarnings(config.warnings);
  }
  config.warnings.clear();
  return config;
}

void Cli::PrintWarnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) err_ << "engram: warning: " << w << "\n";
}

Result<std::unique_ptr<Engine>> Cli::OpenEngine(bool create, Embedding embedding) {
  ENGRAM_ASSIGN_OR_RETURN(ResolvedConfig config, Config());
  config.engine.create_if_missing = create;
  return OpenEngine(std::move(config), embedding);
}

Result<std::shared_ptr<const Embedder>> Cli::LoadEmbedder(const ResolvedConfig& config,
                                                          Embedding embedding,
                                                          std::vector<std::string>* warnings) {
  std::vector<std::string> found;
  auto embedder = engram::LoadEmbedder(config, embedding, verbose_ ? LogSink() : nullptr, &found);
  for (const auto& w : found) Warn(w, warnings);
  return embedder;
}

std::shared_ptr<const Llm> Cli::LoadLlm(const ResolvedConfig& config,
                                        std::vector<std::string>* warnings) {
  std::vector<std::string> found;
  auto llm = engram::LoadLlm(config, verbose_ ? LogSink() : nullptr, &found);
  for (const auto& w : found) Warn(w, warnings);
  return llm;
}

void Cli::Warn(const std::string& warning, std::vector<std::string>* warnings) {
  if (warnings != nullptr) {
    warnings->push_back(warning);
  } else {
    PrintWarnings({warning});
  }
}

std::function<void(std::string_view)> Cli::LogSink() {
  return [this](std::string_view line) {
    std::lock_guard lock(log_mutex_);
    err_ << "engram: " << line << "\n";
  };
}

void Cli::ForOneShot(ResolvedConfig* config) {
  config->embedder.map_model_file = true;
  config->engine.map_store = true;
  // Searches read on the engine's own connection: one connection opened,
  // and the pages a search read are there for the write of its accesses.
  config->engine.readers = 0;
  config->engine.vector.flat_snapshots = true;
  config->engine.lexical_cache = false;          // one search: the store's index is faster
  config->engine.keep_version_links = false;     // the same: it asks for a few links
  config->engine.vector.int8_scan = false;       // one scan: each float row read once
  config->engine.access_delay_ms = 0;            // written before exit, with no thread for it
  config->engine.vector.hnsw_save_delay_ms = 0;  // the same
  // A background step would race the exit; `engram backfill` does it whole.
  config->engine.vector.background_backfill = false;
}

Result<std::unique_ptr<Engine>> Cli::OpenEngine(ResolvedConfig config, Embedding embedding) {
  ForOneShot(&config);
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
  argv_ = argv;
  CLI::App app{
      "engram: long-term memory for LLM agents. Stores short facts and returns the right "
      "ones for a query (BM25 + recency, fused).",
      "engram"};
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--db", db_flag_, "SQLite database file (default: $ENGRAM_HOME/memory.db)");
  app.add_flag("-v,--verbose", verbose_,
               "Log provider retries and their causes to stderr (secrets redacted)");
  RegisterAdd(app, *this);
  RegisterUpdate(app, *this);
  RegisterHistory(app, *this);
  RegisterCheck(app, *this);
  RegisterMigrate(app, *this);
  RegisterGc(app, *this);
  RegisterImport(app, *this);
  RegisterList(app, *this);
  RegisterShow(app, *this);
  RegisterForget(app, *this);
  RegisterExport(app, *this);
  RegisterSearch(app, *this);
  RegisterEmbed(app, *this);
  RegisterConfig(app, *this);
  RegisterEval(app, *this);
  RegisterBackfill(app, *this);
  RegisterPrune(app, *this);
  RegisterContext(app, *this);
  RegisterServe(app, *this);
  RegisterMcp(app, *this);
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
