// Shared plumbing of the engram CLI: global flags, configuration, opening
// the engine, error reporting and exit codes (DESIGN §9: 0 ok, 1 runtime
// error, 2 usage error). Each command lives in its own cmd_*.cc and
// registers itself through one function declared here.
#ifndef ENGRAM_TOOLS_ENGRAM_CLI_H_
#define ENGRAM_TOOLS_ENGRAM_CLI_H_

#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "engram/engine.h"
#include "engram/status.h"
#include "src/config/config.h"
#include "src/loader/engine_loader.h"

namespace engram::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

class Cli {
 public:
  Cli(std::ostream& out, std::ostream& err);

  // Parses argv and runs the chosen command; returns the exit code.
  int Run(int argc, char** argv);

  // For commands: the resolved configuration (flags applied). Its warnings
  // go to `warnings` when given, else to stderr.
  Result<ResolvedConfig> Config(std::vector<std::string>* warnings = nullptr);
  // Whether a command embeds (src/loader/engine_loader.h).
  using Embedding = EmbedderNeed;

  // Opens the store; `create` false refuses to create a missing database.
  Result<std::unique_ptr<Engine>> OpenEngine(bool create, Embedding embedding = Embedding::kNone);
  // The configured embedder for `embedding`: null for kNone or provider
  // "null"; for kIfAvailable a provider that cannot load gives a warning and
  // null; for kRequired, its error. Warnings go to `warnings` when given,
  // else to stderr (so for LoadLlm).
  Result<std::shared_ptr<const Embedder>> LoadEmbedder(
      const ResolvedConfig& config, Embedding embedding,
      std::vector<std::string>* warnings = nullptr);
  // The LLM for HyDE: null unless hyde.enabled; a provider that cannot be
  // created gives a warning and null (the search runs without HyDE).
  std::shared_ptr<const Llm> LoadLlm(const ResolvedConfig& config,
                                     std::vector<std::string>* warnings = nullptr);
  // The same with a configuration already resolved (flags applied).
  Result<std::unique_ptr<Engine>> OpenEngine(ResolvedConfig config, Embedding embedding);
  // Settings for a command that runs once and exits (every one that opens
  // an engine through OpenEngine, and embed): it maps the model and the
  // database, opens no reader connections, reads a large scope's vectors
  // from its snapshot, writes a search's access counts before it returns
  // and starts no thread for background backfill.
  // The servers load theirs in serving.cc, read the model whole, keep
  // vectors in memory, batch access counts and backfill in the background.
  static void ForOneShot(ResolvedConfig* config);
  // Prints "engram: <message>" and returns the exit code for `status`.
  int Fail(const Status& status);
  // Prints a usage error and returns kExitUsage.
  int UsageError(const std::string& message);

  std::ostream& out() { return out_; }
  std::ostream& err() { return err_; }

  // Sets a configuration key from a command's flag (shown as source "flag").
  void SetFlag(const std::string& key, std::string value) { flags_[key] = std::move(value); }

  // Prints "engram: warning: <message>" for each of `warnings`.
  void PrintWarnings(const std::vector<std::string>& warnings);

  // Prints "engram: warning: ..." for each scope of `scopes` (the default
  // scope when empty) that holds no fact in `engine`.
  void WarnMissingScopes(Engine& engine, const std::vector<std::string>& scopes);

  // Registers `run` as the body of subcommand `sub`.
  void OnRun(CLI::App* sub, std::function<int()> run);

  // The arguments Run was given, null-terminated as execv wants them.
  char** Argv() const { return argv_; }

 private:
  std::ostream& out_;
  std::ostream& err_;
  // Appends `warning` to `warnings` when given, else prints it.
  void Warn(const std::string& warning, std::vector<std::string>* warnings);
  // Writes provider log lines to err_ (--verbose).
  std::function<void(std::string_view)> LogSink();

  ConfigFlags flags_;
  std::string db_flag_;
  bool verbose_ = false;
  char** argv_ = nullptr;
  std::mutex log_mutex_;
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands_;
};

// True when file descriptor `fd` is a terminal.
bool IsTerminal(int fd);

void RegisterAdd(CLI::App& app, Cli& cli);
void RegisterUpdate(CLI::App& app, Cli& cli);
void RegisterHistory(CLI::App& app, Cli& cli);
void RegisterCheck(CLI::App& app, Cli& cli);
void RegisterMigrate(CLI::App& app, Cli& cli);
void RegisterGc(CLI::App& app, Cli& cli);
void RegisterImport(CLI::App& app, Cli& cli);
void RegisterList(CLI::App& app, Cli& cli);
void RegisterShow(CLI::App& app, Cli& cli);
void RegisterEmbed(CLI::App& app, Cli& cli);
void RegisterForget(CLI::App& app, Cli& cli);
void RegisterExport(CLI::App& app, Cli& cli);
void RegisterSearch(CLI::App& app, Cli& cli);
void RegisterConfig(CLI::App& app, Cli& cli);
void RegisterEval(CLI::App& app, Cli& cli);
void RegisterBackfill(CLI::App& app, Cli& cli);
void RegisterPrune(CLI::App& app, Cli& cli);
void RegisterContext(CLI::App& app, Cli& cli);
void RegisterServe(CLI::App& app, Cli& cli);
void RegisterMcp(CLI::App& app, Cli& cli);

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_CLI_H_
