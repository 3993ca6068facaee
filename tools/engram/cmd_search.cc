// engram search QUERY: ranked facts, optionally explained.
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "src/server/api_json.h"
#include "tools/engram/cli.h"
#include "tools/engram/fact_printer.h"
#include "tools/engram/filter_args.h"

namespace engram::cli {
namespace {

// engram search leaves a log shorter than this at exit (keep_log_below_bytes).
constexpr int64_t kSearchKeepsLogBelowBytes = int64_t{1} << 18;

std::string Fixed(double v, int digits = 4) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

// One signal's line of --explain. In rrf mode the contribution is
// 1 / (rrf_k + rank); otherwise weight x normalised value.
void PrintSignal(std::ostream& out, const char* name, const SignalValue& s, double weight,
                 FusionMode mode, double rrf_k) {
  out << "      " << std::left << std::setw(9) << name;
  if (!s.present) {
    out << "absent\n";
    return;
  }
  out << "raw " << Fixed(s.raw) << "  norm " << Fixed(s.normalized) << "  rank " << s.rank;
  if (mode == FusionMode::kRrf) {
    const double part = weight > 0 ? 1.0 / (rrf_k + static_cast<double>(s.rank)) : 0.0;
    out << "  -> 1/(" << rrf_k << "+" << s.rank << ") = " << Fixed(part) << "\n";
  } else {
    out << "  weight " << Fixed(weight, 3) << "  -> " << Fixed(weight * s.normalized) << "\n";
  }
}

// The HyDE lines of --explain: the hypothesis, the keywords it added, the
// vector searched, and what fell back.
void PrintHyde(std::ostream& out, const HydeReport& h) {
  if (!h.enabled) return;
  out << "hyde (" << h.llm << "): ";
  if (!h.feedback_facts.empty()) {
    out << "feedback from " << h.feedback_facts.size() << " fact(s):";
    for (const auto& id : h.feedback_facts) out << " " << id.substr(0, 12);
    out << "\n";
  }
  if (h.hypothesis.empty() && h.feedback_facts.empty()) {
    out << "no hypothesis\n";
  } else {
    if (!h.hypothesis.empty()) {
      out << (h.cached ? "hypothesis (cached): " : "hypothesis: ") << h.hypothesis << "\n";
    }
    out << "  expanded keywords:";
    for (const auto& k : h.keywords) out << " " << k;
    out << (h.keywords.empty() ? " (none new)" : "") << "\n";
  }
  if (!h.vector.empty()) out << "  vector searched: " << h.vector << "\n";
  for (const auto& f : h.fallbacks) out << "  fallback: " << f << "\n";
}

}  // namespace

void RegisterSearch(CLI::App& app, Cli& cli) {
  struct Args {
    std::string query;
    size_t k = 0;
    std::vector<std::string> scopes;
    bool json = false;
    bool explain = false;
    std::string mode;
    bool no_record = false;
    bool include_superseded = false;
    FilterArgs filter;
    bool hyde = false;
    bool no_hyde = false;
    std::string llm;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("search", "Find the facts that answer a query");
  sub->footer("Example: engram search \"which port does postgres use\" -k 5 --explain");
  sub->add_option("query", args->query, "What to look for")->required();
  sub->add_option("-k", args->k, "Number of results (default: search.k, 10)")
      ->check(CLI::Range(1, 10000));
  sub->add_option("-s,--scope", args->scopes, "Scope (repeatable; default 'default')");
  sub->add_flag("--json", args->json, "Print one JSON object");
  sub->add_flag("--explain", args->explain, "Show each signal, its weight and the final score");
  sub->add_option("--mode", args->mode,
                  "blended, lexical, semantic, rrf or temporal (default: search.mode)")
      ->check(CLI::IsMember({"blended", "lexical", "semantic", "rrf", "temporal"}));
  sub->add_flag("--no-record", args->no_record, "Do not count this search as an access");
  sub->add_flag("--include-superseded", args->include_superseded,
                "Also search facts replaced by newer versions");
  AddFilterOptions(sub, &args->filter, /*with_kind=*/true);
  sub->add_flag("--hyde", args->hyde, "Use HyDE for this search (needs llm.provider)");
  sub->add_flag("--no-hyde", args->no_hyde, "Do not use HyDE for this search");
  sub->add_option("--llm", args->llm,
                  "LLM for HyDE for this search, e.g. openai, ollama:llama3.2 (turns HyDE on)");
  cli.OnRun(sub, [&cli, args]() -> int {
    if (args->hyde && args->no_hyde) return cli.UsageError("search: --hyde or --no-hyde, not both");
    if (args->hyde || !args->llm.empty()) cli.SetFlag("hyde.enabled", "true");
    if (args->no_hyde) cli.SetFlag("hyde.enabled", "false");
    if (!args->llm.empty()) cli.SetFlag("llm.provider", args->llm);
    if (args->k > 0) cli.SetFlag("search.k", std::to_string(args->k));
    if (!args->mode.empty()) cli.SetFlag("search.mode", args->mode);
    auto config = cli.Config();
    if (!config.ok()) return cli.Fail(config.status());
    SearchOptions options;
    options.k = config->search_k;
    options.scopes = args->scopes;
    options.mode = config->search_mode;
    options.explain = args->explain || args->json;
    options.record_access = !args->no_record;
    options.include_superseded = args->include_superseded;
    auto filter = MakeFilter(args->filter, SystemClock()->NowMillis());
    if (!filter.ok()) return cli.UsageError("search: " + filter.status().message());
    options.filter = std::move(*filter);
    config->engine.create_if_missing = false;
    // Its only writes are access counts and cached hypotheses, which a
    // crash of the machine may take: no sync at exit while the log is short.
    config->engine.keep_log_below_bytes = kSearchKeepsLogBelowBytes;
    // One search alone: the model loads on the other core while the store
    // opens, and the query is embedded there while the lexical hits are
    // gathered.
    config->embedder.load_in_background = true;
    config->engine.overlap_query_embedding = true;
    const double rrf_k = config->engine.fusion.rrf_k;
    const Cli::Embedding embedding =
        options.mode == FusionMode::kLexical || options.mode == FusionMode::kTemporal
            ? Cli::Embedding::kNone
            : Cli::Embedding::kIfAvailable;
    config->engine.llm = cli.LoadLlm(*config);
    auto engine = cli.OpenEngine(std::move(*config), embedding);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto response = (*engine)->Search(args->query, options);
    if (!response.ok()) return cli.Fail(response.status());
    for (const auto& scope : response->missing_scopes) {
      cli.err() << "engram: warning: scope '" << scope << "' holds no facts\n";
    }
    for (const auto& w : response->warnings) cli.err() << "engram: warning: " << w << "\n";

    if (args->json) {
      const nlohmann::json out =
          SearchResponseToJson(args->query, options.mode, *response, /*explain=*/true);
      cli.out() << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return kExitOk;
    }
    if (args->explain) {
      PrintHyde(cli.out(), response->hyde);
      cli.out() << "query terms (" << response->language << "):";
      for (const auto& t : response->query_terms) cli.out() << " " << t;
      if (!response->translation.empty()) {
        cli.out() << "\nembedded with its English gloss: " << response->translation;
      }
      cli.out() << "\nmode " << FusionModeName(options.mode) << ", " << response->candidates
                << " candidate(s)";
      if (response->semantic) {
        cli.out() << " (" << response->vector_candidates << " from the vector search)";
      }
      cli.out() << (response->temporal_fallback ? ", no term matched: ranked by recency" : "")
                << "\n";
    }
    const std::string note = SearchResultNote(*response);
    if (response->hits.empty()) {
      cli.err() << (note.empty() ? "no facts found" : note) << "\n";
      return kExitOk;
    }
    // On stdout, before the hits: whoever reads them must see it.
    if (!note.empty()) cli.out() << note << "\n";
    size_t rank = 0;
    for (const SearchHit& h : response->hits) {
      cli.out() << std::right << std::setw(2) << ++rank << ". " << Fixed(h.score) << "  ";
      PrintFactLine(cli.out(), h.fact);
      if (args->explain) {
        const Explanation& e = h.explanation;
        PrintSignal(cli.out(), "semantic", e.semantic, e.weights.semantic, options.mode, rrf_k);
        PrintSignal(cli.out(), "lexical", e.lexical, e.weights.lexical, options.mode, rrf_k);
        if (options.mode != FusionMode::kRrf) {
          PrintSignal(cli.out(), "temporal", e.temporal, e.weights.temporal, options.mode, rrf_k);
        }
        if (!e.newer_version_of.empty()) {
          cli.out() << "      ranked as the newer version of " << e.newer_version_of
                    << " (own score " << Fixed(e.own_score) << ")\n";
        }
        if (!e.matched_terms.empty()) {
          cli.out() << "      matched ";
          for (size_t i = 0; i < e.matched_terms.size(); ++i) {
            cli.out() << (i ? ", " : "") << e.matched_terms[i];
          }
          cli.out() << "\n";
        }
      }
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
