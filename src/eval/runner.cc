// RunEvaluation: the engine under test through its public API only.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <unordered_map>

#include "engram/engine.h"
#include "engram/eval.h"
#include "engram/fact.h"
#include "src/eval/beir_dataset.h"
#include "src/eval/evaluation.h"
#include "src/eval/text_file.h"
#include "src/eval/trec_run.h"
#include "src/eval/update_metrics.h"

namespace engram {
namespace {

// 2000-01-01T00:00:00Z: "now" for datasets without creation times.
constexpr Timestamp kFixedNow = 946684800000;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A scratch directory removed when it goes out of scope.
class ScratchDir {
 public:
  // Creates the directory; on failure `status()` says why.
  ScratchDir() {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::random_device rd;
    path_ = base / ("engram-eval-" + std::to_string(rd()) + std::to_string(rd()));
    if (!std::filesystem::create_directories(path_, ec) || ec) {
      status_ = IOError("eval: cannot create scratch directory '" + path_.string() +
                        "': " + ec.message());
    }
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  const Status& status() const { return status_; }

 private:
  std::filesystem::path path_;
  Status status_;
};

// Every query of `foreign` asked in every scope of `scopes`, 10 deep.
Result<EvalForeignFigures> AskForeignQueries(Engine& engine, const std::string& foreign_name,
                                             const std::vector<EvalQuery>& foreign,
                                             const std::vector<std::string>& scopes,
                                             const SearchOptions& base) {
  EvalForeignFigures figures;
  figures.dataset = foreign_name;
  size_t hits = 0;
  for (const EvalQuery& q : foreign) {
    for (const std::string& scope : scopes) {
      SearchOptions search = base;
      search.k = 10;
      search.scopes = {scope};
      ENGRAM_ASSIGN_OR_RETURN(SearchResponse response, engine.Search(q.text, search));
      ++figures.searches;
      if (response.hits.empty()) ++figures.empty;
      hits += response.hits.size();
    }
  }
  if (figures.searches > 0) {
    figures.mean_hits = static_cast<double>(hits) / static_cast<double>(figures.searches);
  }
  return figures;
}

// The scopes of `dataset`'s corpus, each once, by name.
std::vector<std::string> ScopesOf(const BeirDataset& dataset) {
  std::set<std::string> scopes;
  for (const CorpusDoc& d : dataset.corpus) scopes.insert(d.scope);
  return {scopes.begin(), scopes.end()};
}

// Forgets every fact of `scopes` from `engine` when it goes (when
// `engine` is set): what an evaluation wrote into a shared store goes when
// the evaluation does, however it ends. Declared after the engine, so it
// goes first.
struct ScopesRemovedAtEnd {
  Engine* engine = nullptr;
  std::vector<std::string> scopes;
  ScopesRemovedAtEnd() = default;
  ScopesRemovedAtEnd(const ScopesRemovedAtEnd&) = delete;
  ScopesRemovedAtEnd& operator=(const ScopesRemovedAtEnd&) = delete;
  ~ScopesRemovedAtEnd() {
    if (engine == nullptr) return;
    for (const std::string& scope : scopes) {
      ForgetRequest request;
      request.scope = scope;
      request.whole_scope = true;
      (void)engine->Forget(request);  // best effort: the figures are what was asked for
    }
  }
};

}  // namespace

Result<EvalReport> RunEvaluation(const std::string& dataset_dir, const EvalOptions& options) {
  if (options.modes.empty()) return InvalidArgument("eval: no modes to run");
  ENGRAM_ASSIGN_OR_RETURN(BeirDataset dataset, LoadBeirDataset(dataset_dir));
  EvalReport report;
  report.dataset = dataset.name;
  report.documents = dataset.corpus.size();

  Timestamp now = kFixedNow;
  bool any_time = false;
  for (const CorpusDoc& d : dataset.corpus) {
    if (d.created_at) {
      now = any_time ? std::max(now, *d.created_at) : *d.created_at;
      any_time = true;
    }
  }

  ScratchDir scratch;
  ENGRAM_RETURN_IF_ERROR(scratch.status());
  EngineOptions engine_options = options.engine;
  engine_options.db_path = (scratch.path() / "eval.db").string();
  engine_options.create_if_missing = true;
  engine_options.clock = std::make_shared<ManualClock>(now);
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Open(engine_options));
  // A shared (PostgreSQL) store is evaluated in only when empty, and the
  // scopes written are removed again at the end, however it ends.
  ScopesRemovedAtEnd cleanup;
  if (!engine_options.store_url.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(const StoreStats stats, engine->Stats());
    if (stats.facts > 0) {
      return FailedPrecondition("eval: the store at " + stats.db_path + " holds " +
                                std::to_string(stats.facts) +
                                " facts; evaluate into an empty database, so that no memory "
                                "is mixed into the figures or changed by them");
    }
    cleanup.engine = engine.get();
    cleanup.scopes = ScopesOf(dataset);
  }

  // Index the corpus as a user's agent would write it: one fact at a time,
  // oldest first (rows without a time keep their file order, before the
  // timed ones), through Add, so what happens on write (merges, version
  // links) is part of what is measured.
  const auto index_start = std::chrono::steady_clock::now();
  std::vector<const CorpusDoc*> by_time;
  by_time.reserve(dataset.corpus.size());
  for (const CorpusDoc& d : dataset.corpus) by_time.push_back(&d);
  std::stable_sort(by_time.begin(), by_time.end(), [](const CorpusDoc* a, const CorpusDoc* b) {
    return a->created_at.value_or(0) < b->created_at.value_or(0);
  });
  // Fact id per corpus row, to map results back to every row they stand for.
  std::unordered_map<std::string, std::vector<std::string>> doc_ids_of;
  size_t done = 0;
  for (const CorpusDoc* d : by_time) {
    if (options.progress) options.progress("index", done++, by_time.size());
    NewFact f;
    f.content = FactContent(*d);
    f.scope = d->scope;
    f.tags = d->tags;
    f.created_at = d->created_at;
    if (!engine->Validate(f).ok()) {
      ++report.skipped_documents;  // e.g. an empty row: it can never be found
      continue;
    }
    auto added = engine->Add(f);
    if (!added.ok()) return added.status().WithContext("eval: index " + dataset.name);
    if (added->created) ++report.facts;
    doc_ids_of[d->scope + '\n' + added->fact.id].push_back(d->id);
  }
  report.index_seconds = SecondsSince(index_start);

  struct Variant {
    FusionMode mode;
    std::optional<FusionWeights> weights;
    std::string name;
    bool hyde = false;
  };
  // With HyDE (an LLM) or feedback on, each run is made without and with
  // it; an LLM's hypothesis goes first where both are on.
  const bool hyde = options.engine.llm && options.engine.hyde.enabled;
  const bool expands = hyde || options.engine.feedback.enabled;
  const std::string suffix = hyde ? "+hyde" : "+feedback";
  std::vector<Variant> variants;
  const auto add = [&](FusionMode mode, std::optional<FusionWeights> weights, std::string name) {
    variants.push_back({mode, weights, name, false});
    if (expands) variants.push_back({mode, weights, name + suffix, true});
  };
  for (FusionMode mode : options.modes) add(mode, std::nullopt, std::string(FusionModeName(mode)));
  for (const FusionWeights& w : options.blend_weights) {
    std::ostringstream name;
    name << "blended[" << w.semantic << "/" << w.lexical << "/" << w.temporal << "]";
    add(FusionMode::kBlended, w, name.str());
  }
  if (hyde && options.hyde_queries_only) {
    // Ask once per query (the answer is cached for the runs below) and keep
    // the queries that got a hypothesis, with their judgements.
    std::vector<EvalQuery> kept;
    Qrels kept_qrels;
    for (EvalQuery& q : dataset.queries) {
      SearchOptions probe;
      probe.k = 1;
      probe.scopes = {q.scope};
      probe.mode = FusionMode::kLexical;
      probe.record_access = false;
      ENGRAM_ASSIGN_OR_RETURN(SearchResponse response, engine->Search(q.text, probe));
      if (response.hyde.hypothesis.empty()) continue;
      if (auto it = dataset.qrels.find(q.id); it != dataset.qrels.end()) {
        kept_qrels[q.id] = it->second;
      }
      kept.push_back(std::move(q));
    }
    report.hyde_queries_total = dataset.queries.size();
    report.hyde_queries_kept = kept.size();
    if (kept.empty()) {
      return FailedPrecondition("eval: " + dataset.name + ": the LLM gave no query a hypothesis");
    }
    dataset.queries = std::move(kept);
    dataset.qrels = std::move(kept_qrels);
  }
  std::vector<EvalQuery> foreign;
  std::string foreign_name;
  if (!options.foreign_queries.empty()) {
    const std::filesystem::path dir(options.foreign_queries);
    ENGRAM_ASSIGN_OR_RETURN(std::string text,
                            ReadTextFile(dir / "queries.jsonl", "eval: foreign queries"));
    ENGRAM_ASSIGN_OR_RETURN(foreign, ParseBeirQueries(text, dir / "queries.jsonl"));
    foreign_name = (dir / ".").parent_path().filename().string();
  }
  const std::vector<std::string> scopes = ScopesOf(dataset);

  MetricOptions metric_options;
  for (const Variant& variant : variants) {
    const FusionMode mode = variant.mode;
    EvalModeResult result;
    result.mode = mode;
    result.name = variant.name;
    result.hyde = variant.hyde;
    EvalRun run;
    const auto start = std::chrono::steady_clock::now();
    size_t done = 0;
    for (const EvalQuery& q : dataset.queries) {
      if (options.progress) options.progress("search", done++, dataset.queries.size());
      SearchOptions search;
      search.k = options.depth;
      search.scopes = {q.scope};
      search.mode = mode;
      search.weights = variant.weights;
      search.record_access = false;
      search.hyde = variant.hyde;
      ENGRAM_ASSIGN_OR_RETURN(SearchResponse response, engine->Search(q.text, search));
      if (variant.hyde) {
        const bool expanded =
            !response.hyde.hypothesis.empty() || !response.hyde.feedback_facts.empty();
        ++(expanded ? result.hypotheses : result.hyde_fallbacks);
      }
      std::vector<ScoredDoc>& ranked = run[q.id];
      std::vector<EvalRankedDoc>& shown = result.run[q.id];
      for (const SearchHit& hit : response.hits) {
        for (const std::string& doc : doc_ids_of[hit.fact.scope + '\n' + hit.fact.id]) {
          if (ranked.size() == options.depth) break;
          // Rank-derived scores keep the engine's order under trec_eval's
          // re-sort (score descending, then doc id descending).
          const double score = static_cast<double>(options.depth - ranked.size());
          ranked.push_back(ScoredDoc{doc, score});
          shown.push_back(EvalRankedDoc{doc, score});
        }
      }
    }
    result.seconds = SecondsSince(start);
    if (!foreign.empty() && !variant.hyde) {
      SearchOptions base;
      base.mode = mode;
      base.weights = variant.weights;
      base.record_access = false;
      base.hyde = false;
      ENGRAM_ASSIGN_OR_RETURN(result.foreign,
                              AskForeignQueries(*engine, foreign_name, foreign, scopes, base));
    }
    ENGRAM_ASSIGN_OR_RETURN(Evaluation evaluation,
                            Evaluate(run, dataset.qrels, QuerySet::kWithRelevant, metric_options));
    result.metrics = evaluation.mean;
    if (dataset.stale) result.updates = ComputeUpdateFigures(run, dataset.qrels, *dataset.stale);
    result.per_query = evaluation.per_query;
    report.queries = static_cast<size_t>(evaluation.num_queries);
    report.modes.push_back(std::move(result));
  }
  return report;
}

std::vector<std::string> EvalMetricNames() { return MetricNames(MetricOptions{}); }

Status WriteEvalRun(const EvalModeResult& result, const std::string& tag, const std::string& path) {
  EvalRun run;
  for (const auto& [qid, docs] : result.run) {
    auto& out = run[qid];
    for (const auto& d : docs) out.push_back(ScoredDoc{d.doc_id, d.score});
  }
  return WriteTrecRun(run, tag, path);
}

}  // namespace engram
