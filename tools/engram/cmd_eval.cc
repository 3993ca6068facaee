// engram eval DIR: retrieval quality on a BEIR-layout dataset.
#include <algorithm>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engram/eval.h"
#include "tools/engram/cli.h"
#include "tools/engram/progress_bar.h"

namespace engram::cli {
namespace {

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// "0.34/0.51/0.15" -> weights; InvalidArgument otherwise.
Result<FusionWeights> ParseWeights(const std::string& text) {
  FusionWeights w;
  char slash1 = 0, slash2 = 0;
  std::istringstream in(text);
  if (!(in >> w.semantic >> slash1 >> w.lexical >> slash2 >> w.temporal) || slash1 != '/' ||
      slash2 != '/' || !(in >> std::ws).eof()) {
    return InvalidArgument("weights '" + text + "': expected SEMANTIC/LEXICAL/TEMPORAL");
  }
  return w;
}

// The knowledge-update figures by name, in reporting order.
std::vector<std::pair<std::string, double (*)(const EvalUpdateFigures&)>> UpdateFigureRows() {
  return {{"current@1", [](const EvalUpdateFigures& u) { return u.current_at_1; }},
          {"stale-above@10", [](const EvalUpdateFigures& u) { return u.stale_above_at_10; }},
          {"both@10", [](const EvalUpdateFigures& u) { return u.both_at_10; }}};
}

void PrintTable(std::ostream& out, const EvalReport& r) {
  out << "dataset " << r.dataset << ": " << r.documents << " documents (" << r.facts << " facts";
  if (r.skipped_documents > 0) out << ", " << r.skipped_documents << " empty rows skipped";
  out << "), " << r.queries << " queries averaged; indexed in " << std::fixed
      << std::setprecision(1) << r.index_seconds << " s\n";
  if (r.hyde_queries_total > 0) {
    out << "HyDE: only the " << r.hyde_queries_kept << " of " << r.hyde_queries_total
        << " queries the LLM wrote a hypothesis for\n";
  }
  for (const auto& m : r.modes) {
    if (m.hyde) {
      out << "HyDE in " << m.name << ": " << m.hypotheses << " hypotheses, " << m.hyde_fallbacks
          << " fallbacks\n";
    }
  }
  out << "\n";
  out << std::left << std::setw(12) << "metric";
  for (const auto& m : r.modes) out << std::right << std::setw(10) << m.name << " ";
  for (size_t i = 1; i < r.modes.size(); ++i) out << std::setw(12) << ("d " + r.modes[i].name);
  out << "\n" << std::setprecision(4);
  for (const std::string& metric : EvalMetricNames()) {
    out << std::left << std::setw(12) << metric << std::right;
    for (const auto& m : r.modes) {
      out << std::setw(static_cast<int>(std::max<size_t>(10, m.name.size())))
          << m.metrics.at(metric) << " ";
    }
    for (size_t i = 1; i < r.modes.size(); ++i) {
      const double delta = r.modes[i].metrics.at(metric) - r.modes[0].metrics.at(metric);
      std::ostringstream d;
      d << std::fixed << std::setprecision(4) << std::showpos << delta;
      out << std::setw(12) << d.str();
    }
    out << "\n";
  }
  if (!r.modes.empty() && r.modes[0].updates) {
    const EvalUpdateFigures& u = *r.modes[0].updates;
    out << "\nknowledge updates: " << u.update_queries << " queries with superseded facts, "
        << u.pair_queries << " with two or more relevant facts and none superseded\n";
    for (const auto& [name, figure] : UpdateFigureRows()) {
      out << std::left << std::setw(15) << name << std::right;
      for (const auto& m : r.modes) {
        out << std::setw(static_cast<int>(std::max<size_t>(10, m.name.size())))
            << (m.updates ? figure(*m.updates) : 0.0) << " ";
      }
      out << "\n";
    }
  }
  if (!r.modes.empty() && r.modes[0].foreign) {
    out << "\nqueries of " << r.modes[0].foreign->dataset << " asked in every scope ("
        << r.modes[0].foreign->searches << " searches; nothing here answers them)\n";
    out << std::left << std::setw(15) << "empty" << std::right;
    for (const auto& m : r.modes) {
      const double share =
          m.foreign && m.foreign->searches > 0
              ? static_cast<double>(m.foreign->empty) / static_cast<double>(m.foreign->searches)
              : 0.0;
      out << std::setw(static_cast<int>(std::max<size_t>(10, m.name.size()))) << share << " ";
    }
    out << "\n" << std::left << std::setw(15) << "hits/search" << std::right;
    for (const auto& m : r.modes) {
      out << std::setw(static_cast<int>(std::max<size_t>(10, m.name.size())))
          << (m.foreign ? m.foreign->mean_hits : 0.0) << " ";
    }
    out << "\n";
  }
  out << std::setprecision(2) << "\nquery time:";
  for (const auto& m : r.modes) {
    out << " " << m.name << " "
        << (r.queries ? 1000.0 * m.seconds / static_cast<double>(m.run.size()) : 0.0)
        << " ms/query";
  }
  out << "\n";
}

}  // namespace

void RegisterEval(CLI::App& app, Cli& cli) {
  struct Args {
    std::string dir;
    std::string mode;
    std::string compare;
    size_t depth = 100;
    std::string run_file;
    std::string weights;
    std::string llm;
    bool hyde_queries_only = false;
    bool feedback = false;
    bool json = false;
    std::string foreign_queries;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("eval", "Measure retrieval quality on a BEIR-layout dataset");
  sub->footer(
      "Examples: engram eval ../shared/datasets/scifact\n"
      "          engram eval DIR --compare lexical,blended --run-file run.txt\n"
      "The dataset is indexed into a temporary store; your memory is not touched.");
  sub->add_option("dir", args->dir, "Dataset directory (corpus.jsonl, queries.jsonl, qrels/)")
      ->required();
  sub->add_option("--mode", args->mode, "One mode (default: search.mode)");
  sub->add_option("--compare", args->compare, "Modes side by side, e.g. lexical,blended");
  sub->add_option("--depth", args->depth, "Results per query (default 100)");
  sub->add_option("--run-file", args->run_file,
                  "Write a TREC run (one mode) or FILE.<mode> per mode");
  sub->add_option("--weights", args->weights,
                  "Also run blended with each weight set, e.g. 0.3/0.55/0.15,0.4/0.45/0.15 "
                  "(semantic/lexical/temporal; the corpus is embedded once)");
  sub->add_option("--llm", args->llm,
                  "Turn HyDE on with this LLM (e.g. scripted:hypotheses.jsonl, openai); each "
                  "run is then made without and with HyDE (<mode>+hyde)");
  sub->add_flag("--feedback", args->feedback,
                "Turn pseudo-relevance feedback on (feedback.enabled); each run is then made "
                "without and with it (<mode>+feedback)");
  sub->add_flag("--hyde-queries-only", args->hyde_queries_only,
                "With HyDE: evaluate only the queries the LLM answers (a recorded file's)");
  sub->add_option("--foreign-queries", args->foreign_queries,
                  "Also ask this other dataset's queries in every scope and count the searches "
                  "that rightly return nothing");
  sub->add_flag("--json", args->json,
                "Print one JSON object (means, and nDCG@10 per query for each run)");
  cli.OnRun(sub, [&cli, args]() -> int {
    if (!args->llm.empty()) {
      cli.SetFlag("llm.provider", args->llm);
      cli.SetFlag("hyde.enabled", "true");
    }
    if (args->feedback) cli.SetFlag("feedback.enabled", "true");
    auto config = cli.Config();
    if (!config.ok()) return cli.Fail(config.status());
    EvalOptions options;
    options.engine = config->engine;
    options.depth = args->depth;
    if (options.depth == 0) return cli.UsageError("eval: --depth must be at least 1");
    std::vector<std::string> names =
        args->compare.empty()
            ? std::vector<std::string>{args->mode.empty()
                                           ? std::string(FusionModeName(config->search_mode))
                                           : args->mode}
            : SplitCommas(args->compare);
    if (!args->compare.empty() && !args->mode.empty()) {
      return cli.UsageError("eval: give --mode or --compare, not both");
    }
    options.modes.clear();
    for (const auto& n : names) {
      auto mode = ParseFusionMode(n);
      if (!mode.ok()) return cli.UsageError("eval: " + mode.status().message());
      options.modes.push_back(*mode);
    }
    for (const auto& w : SplitCommas(args->weights)) {
      auto weights = ParseWeights(w);
      if (!weights.ok()) return cli.UsageError("eval: --weights: " + weights.status().message());
      options.blend_weights.push_back(*weights);
    }
    const bool semantic = !options.blend_weights.empty() ||
                          std::any_of(options.modes.begin(), options.modes.end(), [](FusionMode m) {
                            return m != FusionMode::kLexical && m != FusionMode::kTemporal;
                          });
    auto embedder =
        cli.LoadEmbedder(*config, semantic ? Cli::Embedding::kIfAvailable : Cli::Embedding::kNone);
    if (!embedder.ok()) return cli.Fail(embedder.status());
    options.engine.embedder = *embedder;
    options.engine.vector.background_backfill = false;
    options.engine.llm = cli.LoadLlm(*config);
    options.hyde_queries_only = args->hyde_queries_only;
    options.foreign_queries = args->foreign_queries;
    if (options.hyde_queries_only && !options.engine.llm) {
      return cli.UsageError("eval: --hyde-queries-only needs HyDE on with an LLM (--llm)");
    }
    const bool draw = IsTerminal(2) && !args->json;
    ProgressBar index_bar(cli.err(), "indexing", draw);
    ProgressBar embed_bar(cli.err(), "embedding", draw);
    options.progress = [&](const std::string& stage, size_t done, size_t total) {
      if (stage == "index") index_bar.Update(done, total);
      if (stage == "embed") embed_bar.Update(done, total);
    };
    auto report = RunEvaluation(args->dir, options);
    if (!report.ok()) return cli.Fail(report.status());

    if (!args->run_file.empty()) {
      for (const auto& m : report->modes) {
        const std::string& name = m.name;
        const std::string path =
            report->modes.size() == 1 ? args->run_file : args->run_file + "." + name;
        Status s = WriteEvalRun(m, "engram-" + name, path);
        if (!s.ok()) return cli.Fail(s);
      }
    }
    if (args->json) {
      nlohmann::json results = nlohmann::json::object();
      nlohmann::json per_query = nlohmann::json::object();
      for (const auto& m : report->modes) {
        results[m.name] = m.metrics;
        if (m.updates) {
          for (const auto& [name, figure] : UpdateFigureRows()) {
            results[m.name][name] = figure(*m.updates);
          }
        }
        if (m.foreign) {
          results[m.name]["foreign"] = {{"dataset", m.foreign->dataset},
                                        {"searches", m.foreign->searches},
                                        {"empty", m.foreign->empty},
                                        {"mean_hits", m.foreign->mean_hits}};
        }
        nlohmann::json& ndcg = per_query[m.name] = nlohmann::json::object();
        for (const auto& [qid, metrics] : m.per_query) ndcg[qid] = metrics.at("nDCG@10");
      }
      nlohmann::json hyde = nlohmann::json::object();
      for (const auto& m : report->modes) {
        if (m.hyde) {
          hyde[m.name] = {{"hypotheses", m.hypotheses}, {"fallbacks", m.hyde_fallbacks}};
        }
      }
      nlohmann::json out = {{"dataset", report->dataset},
                            {"queries", report->queries},
                            {"hyde", hyde},
                            {"hyde_queries_kept", report->hyde_queries_kept},
                            {"hyde_queries_total", report->hyde_queries_total},
                            {"index_seconds", report->index_seconds},
                            {"results", results},
                            {"per_query_ndcg10", per_query}};
      cli.out() << out.dump() << "\n";
      return kExitOk;
    }
    PrintTable(cli.out(), *report);
    return kExitOk;
  });
}

}  // namespace engram::cli
