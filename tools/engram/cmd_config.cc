// engram config: every effective setting and where it came from.
#include <iomanip>

#include <nlohmann/json.hpp>

#include "src/embed/local_embedder.h"
#include "tools/engram/cli.h"
#include "tools/engram/serving.h"

namespace engram::cli {
namespace {

const ConfigEntry* FindEntry(const ResolvedConfig& config, const std::string& key) {
  for (const auto& e : config.entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

// "value  (source origin)" of one key, as the quality block shows it.
std::string Sourced(const ResolvedConfig& config, const std::string& key,
                    const std::string& shown = "") {
  const ConfigEntry* e = FindEntry(config, key);
  if (e == nullptr) return shown;
  std::string out = shown.empty() ? e->value : shown;
  out += "  (" + std::string(ConfigSourceName(e->source));
  if (!e->origin.empty()) out += " " + e->origin;
  return out + ")";
}

// The seed's `/config quality` block: HyDE, the embedding provider and the
// vector index, each value with where it came from.
void PrintQuality(std::ostream& out, const ResolvedConfig& config, const StoreStats* stats) {
  const auto line = [&out](const char* name, const std::string& value) {
    out << "  " << std::left << std::setw(20) << name << value << "\n";
  };
  out << "\nquality:\n";
  line("HyDE enabled", Sourced(config, "hyde.enabled"));
  line("HyDE use vectors", Sourced(config, "hyde.use_vectors"));
  line("HyDE num keywords", Sourced(config, "hyde.num_keywords"));
  line("HyDE vector", Sourced(config, "hyde.embed"));
  line("HyDE LLM",
       Sourced(config, "llm.provider", config.llm_spec.empty() ? "none" : config.llm_spec));
  line("embed provider", Sourced(config, "embed.provider"));
  line("embed model",
       Sourced(config, "embed.model",
               config.embedder.model.empty() ? "provider default" : config.embedder.model));
  line("embed dimensions",
       Sourced(config, "embed.dimensions",
               config.embedder.dimensions == 0 ? "native"
                                               : std::to_string(config.embedder.dimensions)));
  if (UsesEmbeddedModel(config)) {
    line("embed model file", config.model.Found()
                                 ? config.model.path + "  (" + config.model.why + ")"
                                 : config.model.NotFoundMessage(kUseLiteModelFileName));
  }
  if (stats == nullptr) {
    line("vector provider", "(no store yet)");
  } else if (stats->active_space.provider.empty()) {
    line("vector provider", "off (keyword-only)");
  } else {
    line("vector provider",
         stats->active_space.Key() + "  (" +
             (static_cast<size_t>(stats->vectors) >= config.engine.vector.hnsw_threshold ? "hnsw"
              : config.engine.vector.int8_scan ? "flat, int8 scan"
                                               : "flat") +
             " index)");
    line("vector entries", std::to_string(stats->vectors) + "  (" +
                               std::to_string(stats->missing_vectors) + " fact(s) without one)");
  }
  for (const auto& c : config.credentials) line("credentials", c);
}

}  // namespace

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
      cli.out() << ConfigEntriesJson(*config).dump(2) << "\n";
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
    const ResolvedConfig resolved = *config;
    const std::string db_path = config->engine.db_path;
    config->engine.create_if_missing = false;
    auto engine = cli.OpenEngine(std::move(*config), Cli::Embedding::kIfAvailable);
    if (engine.ok()) {
      auto stats = (*engine)->Stats();
      PrintQuality(cli.out(), resolved, stats.ok() ? &*stats : nullptr);
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
      PrintQuality(cli.out(), resolved, nullptr);
      cli.out() << "\nstore: " << db_path << " ("
                << (engine.status().code() == StatusCode::kNotFound ? "not created yet"
                                                                    : engine.status().message())
                << ")\n";
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
