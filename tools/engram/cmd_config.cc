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
    auto engine = Engine::Open([&] {
      EngineOptions o = config->engine;
      o.create_if_missing = false;
      return o;
    }());
    if (engine.ok()) {
      auto stats = (*engine)->Stats();
      if (stats.ok()) {
        cli.out() << "\nstore: " << stats->db_path << " (schema " << stats->schema_version << "), "
                  << stats->facts << " fact(s)\n";
        for (const auto& [scope, count] : stats->scopes) {
          cli.out() << "  scope " << scope << ": " << count << "\n";
        }
      }
    } else {
      cli.out() << "\nstore: " << config->engine.db_path << " ("
                << (engine.status().code() == StatusCode::kNotFound ? "not created yet"
                                                                    : engine.status().message())
                << ")\n";
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
