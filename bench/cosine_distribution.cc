// Cosine distribution of the embedded model (provider `local`, USE-Lite)
// on BEIR datasets, to choose `vector.min_cosine` for it (DESIGN §4, §7).
//
// For each dataset, queries are embedded as kQuery and documents as
// kDocument, each document as the evaluation runner imports it (title +
// "\n" + text, or the text alone). The model reads a document's first 128
// tokens and ignores the rest; the share of documents cut that way is
// reported. Only queries with at least one judged-relevant document (grade
// >= 1) count. For each such query, within its scope:
//  - relevant pairs: cosine to every judged-relevant document;
//  - non-relevant pairs: cosine to every other document of the scope (judged
//    0 or unjudged) when there are at most --negatives of them, else to a
//    deterministic random sample of --negatives (seeded by --seed and the
//    query id, the same on every machine);
//  - vector top-k: the --top-k documents of the scope with the highest
//    cosine (exact, ties by corpus order), as the engine's vector candidates
//    before the floor; for each floor, whether a relevant document is among
//    those with cosine >= floor, and how many are left.
// Quantiles are nearest-rank over all pairs of a class pooled across
// queries. --max-docs keeps every document judged relevant to a counted
// query and fills up with a seeded random sample of the others, so the
// top-k figures of a capped corpus are optimistic.
//
// Output: one "dataset<TAB>key<TAB>value" line per figure
// (bench/cosine_distribution.sh turns them into Markdown tables). Progress
// goes to stderr.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/seeded_random.h"
#include "engram/embedder.h"
#include "src/common/hash.h"
#include "src/embed/local_embedder.h"
#include "src/embed/use_lite_encoder.h"
#include "src/eval/beir_dataset.h"

namespace engram {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  std::string models_dir;             // holds use-lite-en.bin (use_lite_convert)
  std::vector<std::string> datasets;  // BEIR directories
  size_t max_docs = 0;                // per dataset; 0 = the whole corpus
  size_t max_queries = 0;             // per dataset; 0 = every judged query
  size_t negatives = 200;             // non-relevant pairs per query at most
  size_t top_k = 12;                  // vector candidates per query (vector.top_k)
  size_t batch_size = 64;             // documents per Embed call
  uint64_t seed = 20240601;           // sampling of documents and negatives
  std::vector<double> floors = {0.2, 0.25, 0.3, 0.35, 0.4, 0.5};
};

// The first `count` entries of a seeded shuffle of `items` (partial
// Fisher-Yates), or all of them, in order, when there are no more.
std::vector<size_t> SeededSubset(std::vector<size_t> items, size_t count, uint64_t seed) {
  if (items.size() <= count) return items;
  SeededRandom random(seed);
  for (size_t i = 0; i < count; ++i) {
    const size_t j = i + static_cast<size_t>(random.Next() % (items.size() - i));
    std::swap(items[i], items[j]);
  }
  items.resize(count);
  return items;
}

// The text the evaluation runner stores for a corpus row.
std::string DocContent(const CorpusDoc& d) {
  return d.title.empty() ? d.text : d.title + "\n" + d.text;
}

float Dot(const std::vector<float>& a, const std::vector<float>& b) {
  float sum = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The value at quantile q of sorted `values`, nearest rank; 0 when empty.
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size()) + 0.999999);
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// Share of sorted `values` that are >= floor.
double ShareAtLeast(const std::vector<double>& sorted, double floor) {
  if (sorted.empty()) return 0.0;
  const auto first = std::lower_bound(sorted.begin(), sorted.end(), floor);
  return static_cast<double>(sorted.end() - first) / static_cast<double>(sorted.size());
}

// Floors print as "0.25"; figures with a fixed number of decimals.
std::string FloorName(double floor) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", floor);
  return text;
}

class Printer {
 public:
  explicit Printer(std::string dataset) : dataset_(std::move(dataset)) {}
  void Print(const std::string& key, const std::string& value) const {
    std::cout << dataset_ << "\t" << key << "\t" << value << "\n";
  }
  void Print(const std::string& key, double value, int decimals) const {
    char text[64];
    std::snprintf(text, sizeof(text), "%.*f", decimals, value);
    Print(key, std::string(text));
  }

 private:
  std::string dataset_;
};

// Embeds `texts` in batches, reporting progress on stderr.
Result<std::vector<std::vector<float>>> EmbedAll(const Embedder& embedder,
                                                 const std::vector<std::string>& texts,
                                                 EmbedPurpose purpose, size_t batch_size,
                                                 const std::string& label) {
  std::vector<std::vector<float>> vectors;
  vectors.reserve(texts.size());
  batch_size = std::max<size_t>(batch_size, 1);
  for (size_t begin = 0; begin < texts.size(); begin += batch_size) {
    const size_t end = std::min(begin + batch_size, texts.size());
    const std::vector<std::string> batch(texts.begin() + static_cast<ptrdiff_t>(begin),
                                         texts.begin() + static_cast<ptrdiff_t>(end));
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::vector<float>> part, embedder.Embed(batch, purpose));
    for (auto& v : part) vectors.push_back(std::move(v));
    std::cerr << "\r" << label << ": " << end << "/" << texts.size() << std::flush;
  }
  std::cerr << "\n";
  return vectors;
}

// The documents and queries of one dataset that take part.
struct Selection {
  std::vector<size_t> rows;               // corpus rows embedded, in corpus order
  std::vector<const EvalQuery*> queries;  // with a judged-relevant row
  double truncated_share = 0.0;           // readable documents over 128 tokens
};

// Drops rows the model cannot read (no tokens), keeps the queries with a
// judged-relevant readable row, and caps the rows at --max-docs (the
// relevant ones plus a seeded sample of the others).
Selection Select(const BeirDataset& dataset, const UseLiteTokenizer& tokenizer,
                 const BenchOptions& options) {
  Selection selection;
  std::vector<size_t> readable;
  size_t truncated = 0;
  for (size_t i = 0; i < dataset.corpus.size(); ++i) {
    const size_t tokens =
        tokenizer.Encode(LocalEmbedder::Prepare(DocContent(dataset.corpus[i]))).size();
    if (tokens == 0) continue;
    if (tokens > UseLiteTokenizer::kMaxModelTokens) ++truncated;
    readable.push_back(i);
  }
  if (!readable.empty()) {
    selection.truncated_share =
        static_cast<double>(truncated) / static_cast<double>(readable.size());
  }
  std::unordered_map<std::string, size_t> row_of_id;
  for (const size_t i : readable) row_of_id.emplace(dataset.corpus[i].id, i);

  std::unordered_set<size_t> relevant_rows;
  for (const EvalQuery& q : dataset.queries) {
    if (options.max_queries > 0 && selection.queries.size() >= options.max_queries) break;
    const auto judged = dataset.qrels.find(q.id);
    if (judged == dataset.qrels.end()) continue;
    bool any = false;
    for (const auto& [doc_id, grade] : judged->second) {
      const auto row = row_of_id.find(doc_id);
      if (grade < 1 || row == row_of_id.end()) continue;
      relevant_rows.insert(row->second);
      any = true;
    }
    if (any) selection.queries.push_back(&q);
  }

  selection.rows = readable;
  if (options.max_docs > 0 && readable.size() > options.max_docs) {
    std::vector<size_t> others;
    for (const size_t i : readable) {
      if (relevant_rows.count(i) == 0) others.push_back(i);
    }
    const size_t room =
        options.max_docs > relevant_rows.size() ? options.max_docs - relevant_rows.size() : 0;
    selection.rows = SeededSubset(std::move(others), room, options.seed);
    selection.rows.insert(selection.rows.end(), relevant_rows.begin(), relevant_rows.end());
    std::sort(selection.rows.begin(), selection.rows.end());
  }
  return selection;
}

// What Measure finds, summed over the queries.
struct Figures {
  std::vector<double> relevant;      // cosines, sorted
  std::vector<double> non_relevant;  // cosines, sorted
  size_t relevant_out_of_scope = 0;  // judged pairs across scopes (skipped)
  size_t hits_without_floor = 0;     // queries with a relevant top-k hit
  size_t kept_without_floor = 0;     // top-k hits, summed
  std::vector<size_t> hits;          // per floor: queries with a relevant hit >= floor
  std::vector<size_t> kept;          // per floor: top-k hits >= floor, summed
};

// Scores every query against the documents of its scope (see the top).
Figures Measure(const BeirDataset& dataset, const Selection& selection,
                const std::vector<std::vector<float>>& doc_vectors,
                const std::vector<std::vector<float>>& query_vectors, const BenchOptions& options) {
  const std::vector<size_t>& rows = selection.rows;
  // Positions in `rows` by scope and by id.
  std::map<std::string, std::vector<size_t>> by_scope;
  std::unordered_map<std::string, size_t> position_of_id;
  for (size_t p = 0; p < rows.size(); ++p) {
    by_scope[dataset.corpus[rows[p]].scope].push_back(p);
    position_of_id.emplace(dataset.corpus[rows[p]].id, p);
  }

  Figures figures;
  figures.hits.assign(options.floors.size(), 0);
  figures.kept.assign(options.floors.size(), 0);
  for (size_t qi = 0; qi < selection.queries.size(); ++qi) {
    const EvalQuery& q = *selection.queries[qi];
    std::unordered_set<size_t> relevant_here;
    for (const auto& [doc_id, grade] : dataset.qrels.at(q.id)) {
      const auto p = position_of_id.find(doc_id);
      if (grade < 1 || p == position_of_id.end()) continue;
      if (dataset.corpus[rows[p->second]].scope != q.scope) {
        ++figures.relevant_out_of_scope;
        continue;
      }
      relevant_here.insert(p->second);
    }
    const auto scope = by_scope.find(q.scope);
    if (scope == by_scope.end()) continue;
    const std::vector<size_t>& members = scope->second;

    std::vector<float> cosine(members.size());
    std::vector<size_t> others;
    for (size_t m = 0; m < members.size(); ++m) {
      cosine[m] = Dot(query_vectors[qi], doc_vectors[members[m]]);
      if (relevant_here.count(members[m]) > 0) {
        figures.relevant.push_back(cosine[m]);
      } else {
        others.push_back(m);
      }
    }
    for (const size_t m : SeededSubset(std::move(others), options.negatives,
                                       options.seed ^ Fnv1a64(dataset.name + "\n" + q.id))) {
      figures.non_relevant.push_back(cosine[m]);
    }

    // The top-k by cosine, as the engine's vector search before the floor.
    std::vector<size_t> order(members.size());
    std::iota(order.begin(), order.end(), 0);
    const size_t k = std::min(options.top_k, order.size());
    std::partial_sort(
        order.begin(), order.begin() + static_cast<ptrdiff_t>(k), order.end(),
        [&](size_t a, size_t b) { return cosine[a] != cosine[b] ? cosine[a] > cosine[b] : a < b; });
    order.resize(k);
    figures.kept_without_floor += k;
    bool hit_any = false;
    for (const size_t m : order) hit_any = hit_any || relevant_here.count(members[m]) > 0;
    if (hit_any) ++figures.hits_without_floor;
    for (size_t f = 0; f < options.floors.size(); ++f) {
      bool hit = false;
      for (const size_t m : order) {
        if (cosine[m] < static_cast<float>(options.floors[f])) continue;
        ++figures.kept[f];
        hit = hit || relevant_here.count(members[m]) > 0;
      }
      if (hit) ++figures.hits[f];
    }
  }
  std::sort(figures.relevant.begin(), figures.relevant.end());
  std::sort(figures.non_relevant.begin(), figures.non_relevant.end());
  return figures;
}

void Report(const Printer& out, const Figures& figures, size_t num_queries,
            const BenchOptions& options) {
  out.Print("relevant_pairs", std::to_string(figures.relevant.size()));
  out.Print("nonrelevant_pairs", std::to_string(figures.non_relevant.size()));
  out.Print("relevant_out_of_scope", std::to_string(figures.relevant_out_of_scope));
  const std::pair<const char*, double> quantiles[] = {
      {"p5", 0.05}, {"p25", 0.25}, {"p50", 0.50}, {"p75", 0.75}, {"p95", 0.95}};
  for (const auto& [name, q] : quantiles) {
    out.Print(std::string("relevant_") + name, Quantile(figures.relevant, q), 3);
    out.Print(std::string("nonrelevant_") + name, Quantile(figures.non_relevant, q), 3);
  }
  const double queries = std::max<double>(1.0, static_cast<double>(num_queries));
  out.Print("topk", std::to_string(options.top_k));
  out.Print("topk_hit_none", static_cast<double>(figures.hits_without_floor) / queries, 3);
  out.Print("topk_kept_none", static_cast<double>(figures.kept_without_floor) / queries, 2);
  for (size_t f = 0; f < options.floors.size(); ++f) {
    // Compared as the engine does, in float.
    const double floor = static_cast<float>(options.floors[f]);
    const std::string name = FloorName(options.floors[f]);
    out.Print("relevant_at_least_" + name, ShareAtLeast(figures.relevant, floor), 3);
    out.Print("nonrelevant_at_least_" + name, ShareAtLeast(figures.non_relevant, floor), 3);
    out.Print("topk_hit_" + name, static_cast<double>(figures.hits[f]) / queries, 3);
    out.Print("topk_kept_" + name, static_cast<double>(figures.kept[f]) / queries, 2);
  }
}

int RunDataset(const BenchOptions& options, const Embedder& embedder,
               const UseLiteTokenizer& tokenizer, const std::string& dir) {
  auto loaded = LoadBeirDataset(dir);
  if (!loaded.ok()) {
    std::cerr << "cosine_distribution: " << loaded.status().ToString() << "\n";
    return 1;
  }
  const BeirDataset& dataset = *loaded;
  const Printer out(dataset.name);
  const Selection selection = Select(dataset, tokenizer, options);
  out.Print("corpus_docs", std::to_string(dataset.corpus.size()));
  out.Print("docs", std::to_string(selection.rows.size()));
  out.Print("docs_truncated_share", selection.truncated_share, 3);
  out.Print("queries", std::to_string(selection.queries.size()));

  const Clock::time_point start = Clock::now();
  std::vector<std::string> texts;
  texts.reserve(selection.rows.size());
  for (const size_t i : selection.rows) texts.push_back(DocContent(dataset.corpus[i]));
  auto doc_vectors = EmbedAll(embedder, texts, EmbedPurpose::kDocument, options.batch_size,
                              dataset.name + " documents");
  texts.clear();
  for (const EvalQuery* q : selection.queries) texts.push_back(q->text);
  auto query_vectors = EmbedAll(embedder, texts, EmbedPurpose::kQuery, options.batch_size,
                                dataset.name + " queries");
  if (!doc_vectors.ok() || !query_vectors.ok()) {
    std::cerr << "cosine_distribution: "
              << (doc_vectors.ok() ? query_vectors.status() : doc_vectors.status()).ToString()
              << "\n";
    return 1;
  }
  out.Print("embed_seconds", std::chrono::duration<double>(Clock::now() - start).count(), 1);

  const Figures figures = Measure(dataset, selection, *doc_vectors, *query_vectors, options);
  Report(out, figures, selection.queries.size(), options);
  std::cout << std::flush;
  return 0;
}

int Run(const BenchOptions& options) {
  EmbedderOptions embedder_options;
  embedder_options.models_dir = options.models_dir;
  auto embedder = CreateEmbedder("local", embedder_options);
  if (!embedder.ok()) {
    std::cerr << "cosine_distribution: " << embedder.status().ToString() << "\n";
    return 1;
  }
  // A second copy of the model for its tokenizer (the truncation share).
  auto encoder = UseLiteEncoder::Load(
      (std::filesystem::path(options.models_dir) / kUseLiteModelFileName).string());
  if (!encoder.ok()) {
    std::cerr << "cosine_distribution: " << encoder.status().ToString() << "\n";
    return 1;
  }
  for (const std::string& dir : options.datasets) {
    if (RunDataset(options, **embedder, (*encoder)->Tokenizer(), dir) != 0) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace engram

int main(int argc, char** argv) {
  engram::BenchOptions options;
  CLI::App app{"Cosine of relevant and non-relevant pairs under the embedded model (local)"};
  app.add_option("datasets", options.datasets, "BEIR dataset directories")->required();
  app.add_option("--models-dir", options.models_dir,
                 "Directory holding use-lite-en.bin (written by use_lite_convert)")
      ->required();
  app.add_option("--max-docs", options.max_docs,
                 "Documents per dataset at most: the relevant ones plus a sample (0 = all)");
  app.add_option("--max-queries", options.max_queries, "Judged queries per dataset (0 = all)");
  app.add_option("--negatives", options.negatives, "Non-relevant pairs sampled per query");
  app.add_option("--top-k", options.top_k, "Vector candidates per query (vector.top_k)");
  app.add_option("--batch", options.batch_size, "Documents per Embed call");
  app.add_option("--seed", options.seed, "Seed of the document and negative samples");
  app.add_option("--floors", options.floors, "Candidate cosine floors")->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  return engram::Run(options);
}
