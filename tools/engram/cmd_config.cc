// engram config: every effective setting and where it came from.
#include <iomanip>

#include <nlohmann/json.hpp>

#include "tools/engram/cli.h"

namespace engram::cli {

void RegisterConfig(CLI::App& app, Cli& cli) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("config", "Show every effective setting and its source");
  sub->footer(
      "Sources, lowest to highest: default < file ($ENGRAM_CONFIG) < env (ENGRAM_*) < flag.\n"
      "Example: ENGRAM_BM25_K1=1.2 engram config");
  sub->add_flag("--json", *json, "As a JSON object");
  cli.OnRun(sub, [&cli, json]() -> int {
    auto config = cli.Config();
    if (!config.ok()) return cli.Fail(config.status());
    if (*json) {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& e : config->entries) {
        out[e.key] = {
            {"value", e.value}, {"source", ConfigSourceName(e.source)}, {"origin", e.origin}};
      }
      cli.out() << out.dump(2) << "\n";
      return kExitOk;
    }
    cli.out() << "config file: " << config->config_path << "\n";
    for (const auto& e : config->entries) {
      cli.out() << std::left << std::setw(26) << e.key << std::setw(40) << e.value << " "
                << ConfigSourceName(e.source);
      if (!e.origin.empty()) cli.out() << " (" << e.origin << ")";
      cli.out() << "\n";
    }
    // The store itself, when it exists.
    const std::string db_path = config->engine.db_path;
    config->engine.create_if_missing = false;
    auto engine = cli.OpenEngine(std::move(*config), Cli::Embedding::kIfAvailable);
    if (engine.ok()) {
      auto stats = (*engine)->Stats();
      if (stats.ok()) {
        cli.out() << "\nstore: " << stats->db_path << " (schema " << stats->schema_version << "), "
                  << stats->facts << " fact(s)\n";
        for (const auto& [scope, count] : stats->scopes) {
          cli.out() << "  scope " << scope << ": " << count << "\n";
        }
        const EmbeddingSpace& space = stats->active_space;
        if (space.provider.empty()) {
          cli.out() << "\nvectors: off (keyword-only)\n";
        } else {
          cli.out() << "\nvector provider: " << space.provider << "\nvector model: " << space.model
                    << "\nvector dimension: " << space.dimension
                    << "\nvector entries: " << stats->vectors << " (" << stats->missing_vectors
                    << " fact(s) without one)\n";
        }
        for (const SpaceStats& s : stats->spaces) {
          cli.out() << "  space " << s.space.Key() << ": " << s.vectors << " vector(s)"
                    << (s.active ? " (active)" : "") << "\n";
        }
      }
    } else {
      cli.out() << "\nstore: " << db_path << " ("
                << (engine.status().code() == StatusCode::kNotFound ? "not created yet"
                                                                    : engine.status().message())
                << ")\n";
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
