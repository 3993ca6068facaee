// A large scope that stays live: one scope of --vectors generated vectors
// (bench/vector_data.h, "lowrank" by default) in a real store, searched
// with engram's HNSW index, in four phases:
//
//  1. build: the engine imports the facts (their vectors from a table, so no
//     model runs), its first semantic search builds the graph, and closing
//     it writes the graph's file;
//  2. quality: a cache opened on the store as a restarted process opens it
//     (its own connection and VectorCache) searches --queries vectors;
//     recall@10 against the exact top 10 of a FlatIndex over the same
//     vectors, and the search's wall and CPU p50; then the same queries on
//     the saved graph loaded by itself, at several ef_search values;
//  3. restart: what that cache's first sync read from the store (vector
//     blobs, counted by VectorStore::VectorsRead) and how long it took;
//  4. live: the engine adds --adds facts on one thread while another
//     searches without pause; every search's wall time (p50, p99, max),
//     and what the background saver did.
//
// Output: a Markdown report on stdout; progress on stderr. Not a test:
// nothing here passes or fails.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/cpu_time.h"
#include "bench/vector_data.h"
#include "engram/engine.h"
#include "src/engine/vector_cache.h"
#include "src/store/sqlite/sqlite_store.h"
#include "src/vindex/flat_index.h"
#include "src/vindex/hnsw_index.h"

namespace engram {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  size_t vectors = 200000;  // facts in the scope before the live phase
  size_t dim = 512;         // vector dimension
  std::string data = "lowrank";
  size_t rank = 32;          // lowrank: subspace dimension
  double noise = 0.3;        // lowrank: noise norm
  size_t queries = 200;      // quality phase searches
  size_t adds = 1000;        // live phase adds
  int save_delay_ms = 2000;  // vector.hnsw_save_delay_ms of the live phase
  int add_every_ms = 0;      // live phase: the least time from one add's start to the next
  std::string dir = "/tmp";  // where the store is made and removed
};

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto at = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(at, values.size() - 1)];
}

// Texts "v<i>" embed as row i of the facts, "q<i>" as row i of the
// queries: the engine stores and searches the generated vectors as they are.
class TableEmbedder final : public Embedder {
 public:
  TableEmbedder(size_t dim, const std::vector<float>* facts, const std::vector<float>* queries)
      : space_{"bench", "table", dim}, facts_(facts), queries_(queries) {}

  const EmbeddingSpace& Space() const override { return space_; }

  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose) const override {
    std::vector<std::vector<float>> out;
    for (const std::string& text : texts) {
      const std::vector<float>* table = text[0] == 'q' ? queries_ : facts_;
      const size_t row = std::stoul(text.substr(1));
      if (text.size() < 2 || row * space_.dimension >= table->size()) {
        return InvalidArgument("bench embedder: no vector for '" + text + "'");
      }
      const auto begin = table->begin() + static_cast<std::ptrdiff_t>(row * space_.dimension);
      out.emplace_back(begin, begin + static_cast<std::ptrdiff_t>(space_.dimension));
    }
    return out;
  }

 private:
  EmbeddingSpace space_;
  const std::vector<float>* facts_;
  const std::vector<float>* queries_;
};

class Bench {
 public:
  explicit Bench(const BenchOptions& options)
      : options_(options),
        set_(options.data, options.dim, options.rank, options.noise),
        facts_(set_.Make(options.vectors + options.adds, 1)),
        queries_(set_.Make(options.queries, 2)),
        embedder_(std::make_shared<TableEmbedder>(options.dim, &facts_, &queries_)),
        db_path_(options.dir + "/engram-hnsw-live-" + std::to_string(::getpid()) + ".db") {}

  ~Bench() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_path_ + suffix, ec);
    std::filesystem::remove_all(db_path_ + ".vindex", ec);
  }

  int Run() {
    std::printf("%zu %s vectors of %zu dimensions in one scope; HNSW from %zu vectors.\n\n",
                options_.vectors, options_.data.c_str(), options_.dim, Threshold());
    if (!Build() || !Quality() || !Live()) return 1;
    return 0;
  }

 private:
  size_t Threshold() const { return std::min<size_t>(50000, options_.vectors); }

  EngineOptions Options(int save_delay_ms) const {
    EngineOptions o;
    o.db_path = db_path_;
    o.embedder = embedder_;
    o.vector.hnsw_threshold = Threshold();
    o.vector.hnsw_save_delay_ms = save_delay_ms;
    o.vector.background_backfill = false;
    o.vector.min_cosine = -1;
    o.versions.link_on_write = false;
    o.versions.merge_near_duplicates = false;
    return o;
  }

  static SearchOptions Semantic() {
    SearchOptions o;
    o.mode = FusionMode::kSemantic;
    o.record_access = false;
    return o;
  }

  bool Build() {
    const auto start = Clock::now();
    auto engine = Engine::Open(Options(0));
    if (!engine.ok()) return Fail("open", engine.status());
    constexpr size_t kBatch = 10000;
    for (size_t first = 0; first < options_.vectors; first += kBatch) {
      std::vector<NewFact> facts(std::min(kBatch, options_.vectors - first));
      for (size_t i = 0; i < facts.size(); ++i) facts[i].content = "v" + std::to_string(first + i);
      auto imported = (*engine)->Import(facts, {});
      if (!imported.ok()) return Fail("import", imported.status());
      std::fprintf(stderr, "imported %zu\n", first + facts.size());
    }
    const double import_s = MsSince(start) / 1e3;
    const auto built_at = Clock::now();
    auto first = (*engine)->Search("q0", Semantic());
    if (!first.ok()) return Fail("first search", first.status());
    const double build_s = MsSince(built_at) / 1e3;
    const auto closed_at = Clock::now();
    engine->reset();
    std::printf(
        "| build | |\n|---|---:|\n| import (s) | %.1f |\n| first search: graph built (s) | "
        "%.1f |\n| close: graph written (s) | %.1f |\n\n",
        import_s, build_s, MsSince(closed_at) / 1e3);
    return true;
  }

  // A cache on the store as a restarted process has it.
  struct Fresh {
    std::unique_ptr<SqliteStore> store;
    VectorStore* vectors = nullptr;  // the store's
    std::unique_ptr<VectorCache> cache;
    int64_t space_id = 0;
  };

  bool OpenFresh(Fresh* f) const {
    SqliteStoreOptions o;
    o.path = db_path_;
    o.create_if_missing = false;
    auto store = SqliteStore::Open(o);
    if (!store.ok()) return Fail("open store", store.status());
    f->store = std::move(*store);
    f->vectors = &f->store->vectors();
    auto space = f->vectors->FindSpace(embedder_->Space());
    if (!space.ok()) return Fail("find space", space.status());
    f->space_id = *space;
    f->cache = std::make_unique<VectorCache>(*space, embedder_->Space(), Options(0).vector,
                                             db_path_ + ".vindex");
    return true;
  }

  bool Quality() {
    Fresh f;
    if (!OpenFresh(&f)) return false;
    const auto start = Clock::now();
    std::vector<std::string> warnings;
    Status synced = f.store->ReadTransact([&]() -> Status {
      return f.cache->Sync(f.vectors, {std::string(kDefaultScope)}, &warnings);
    });
    if (!synced.ok()) return Fail("sync", synced);
    const double sync_ms = MsSince(start);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());

    // The exact top 10, labelled by fact rowid (fact "v<i>" has row i of
    // the vectors).
    FlatIndex exact(options_.dim);
    auto rows = f.store->sqlite()->Prepare("SELECT rowid, content FROM facts");
    if (!rows.ok()) return Fail("read facts", rows.status());
    while (true) {
      auto row = rows->Step();
      if (!row.ok()) return Fail("read facts", row.status());
      if (!*row) break;
      const size_t i = std::stoul(rows->ColumnText(1).substr(1));
      if (i >= options_.vectors) continue;
      (void)exact.Upsert(rows->ColumnInt(0),
                         std::span<const float>(facts_.data() + (i * options_.dim), options_.dim));
    }
    std::vector<double> wall;
    std::vector<double> cpu;
    size_t found = 0;
    size_t wanted = 0;
    std::vector<std::optional<float>> cosines;
    for (size_t q = 0; q < options_.queries; ++q) {
      const std::span<const float> query(queries_.data() + (q * options_.dim), options_.dim);
      const auto began = Clock::now();
      const double cpu_began = CpuMilliseconds();
      Result<std::vector<VectorHit>> hits = Status::OK();
      {
        const VectorCache::View view(*f.cache);
        hits = view.Search(query, {std::string(kDefaultScope)}, 10, -1.0, {}, &cosines);
      }
      cpu.push_back(CpuMilliseconds() - cpu_began);
      wall.push_back(MsSince(began));
      if (!hits.ok()) return Fail("search", hits.status());
      const auto truth = exact.Search(query, 10, -2.0f);
      for (const ScoredLabel& t : *truth) {
        ++wanted;
        found +=
            static_cast<size_t>(std::count_if(hits->begin(), hits->end(), [&](const VectorHit& h) {
              return h.fact_rowid == t.label;
            }));
      }
    }
    std::printf("| restart and search | |\n|---|---:|\n");
    std::printf("| vector blobs read by the first sync | %llu of %zu |\n",
                static_cast<unsigned long long>(f.vectors->VectorsRead()),  // NOLINT(runtime/int)
                options_.vectors);
    std::printf("| first sync: saved graph loaded (ms) | %.0f |\n", sync_ms);
    std::printf("| HNSW search p50, wall / CPU (ms) | %.3f / %.3f |\n", Percentile(wall, 0.5),
                Percentile(cpu, 0.5));
    std::printf("| HNSW search p95, wall (ms) | %.3f |\n", Percentile(wall, 0.95));
    std::printf("| recall@10 against exact, %zu queries | %.4f |\n\n", options_.queries,
                static_cast<double>(found) / static_cast<double>(std::max<size_t>(wanted, 1)));
    return EfSweep(f, exact);
  }

  // The quality phase's queries at several ef_search values, on the saved
  // graph loaded by itself (HnswIndex::SearchWithEf, without the cache's
  // label-to-fact step, so a little faster than the search above).
  bool EfSweep(const Fresh& f, const FlatIndex& exact) {
    std::string graph_path;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(db_path_ + ".vindex", ec)) {
      if (entry.path().extension() == ".hnsw") graph_path = entry.path().string();
    }
    auto index = HnswIndex::Load(graph_path, options_.dim, HnswIndexOptions{}, nullptr);
    if (!index.ok()) return Fail("load the saved graph", index.status());
    auto refs = f.vectors->Refs(f.space_id, std::string(kDefaultScope), 0);
    if (!refs.ok()) return Fail("read vector refs", refs.status());
    std::unordered_map<int64_t, int64_t> fact_of_vector;
    for (const VectorRef& r : *refs) fact_of_vector[r.vector_id] = r.fact_rowid;
    std::vector<std::vector<int64_t>> truth;  // per query, the exact top 10's fact rowids
    for (size_t q = 0; q < options_.queries; ++q) {
      const std::span<const float> query(queries_.data() + (q * options_.dim), options_.dim);
      const Result<std::vector<ScoredLabel>> exact_top = exact.Search(query, 10, -2.0f);
      if (!exact_top.ok()) return Fail("exact search", exact_top.status());
      std::vector<int64_t>& top = truth.emplace_back();
      for (const ScoredLabel& t : *exact_top) top.push_back(t.label);
    }
    std::printf(
        "| ef_search (saved graph alone) | recall@10 | p50 wall / CPU (ms) |\n"
        "|---:|---:|---:|\n");
    for (const size_t ef : {64, 128, 160, 192, 256}) {
      std::vector<double> wall;
      std::vector<double> cpu;
      size_t found = 0;
      size_t wanted = 0;
      for (size_t q = 0; q < options_.queries; ++q) {
        const std::span<const float> query(queries_.data() + (q * options_.dim), options_.dim);
        const auto began = Clock::now();
        const double cpu_began = CpuMilliseconds();
        auto hits = (*index)->SearchWithEf(query, 10, -2.0f, ef);
        cpu.push_back(CpuMilliseconds() - cpu_began);
        wall.push_back(MsSince(began));
        if (!hits.ok()) return Fail("search", hits.status());
        for (const int64_t fact : truth[q]) {
          ++wanted;
          found += static_cast<size_t>(
              std::count_if(hits->begin(), hits->end(), [&](const ScoredLabel& h) {
                const auto it = fact_of_vector.find(h.label);
                return it != fact_of_vector.end() && it->second == fact;
              }));
        }
      }
      std::printf("| %zu | %.4f | %.3f / %.3f |\n", ef,
                  static_cast<double>(found) / static_cast<double>(std::max<size_t>(wanted, 1)),
                  Percentile(wall, 0.5), Percentile(cpu, 0.5));
    }
    std::printf("\n");
    return true;
  }

  bool Live() {
    auto opened = Engine::Open(Options(options_.save_delay_ms));
    if (!opened.ok()) return Fail("open", opened.status());
    std::unique_ptr<Engine> engine = std::move(*opened);
    if (auto warm = engine->Search("q0", Semantic()); !warm.ok()) {
      return Fail("first search", warm.status());
    }
    std::atomic<bool> stop{false};
    std::atomic<size_t> errors{0};
    std::vector<double> search_ms;
    std::thread searcher([&] {
      for (size_t q = 0; !stop.load(); q = (q + 1) % options_.queries) {
        const auto began = Clock::now();
        auto r = engine->Search("q" + std::to_string(q), Semantic());
        search_ms.push_back(MsSince(began));
        if (!r.ok() || r->hits.empty()) errors.fetch_add(1);
      }
    });
    std::vector<double> add_ms;
    const auto start = Clock::now();
    for (size_t i = 0; i < options_.adds; ++i) {
      std::this_thread::sleep_until(start + std::chrono::milliseconds(options_.add_every_ms * i));
      NewFact fact;
      fact.content = "v" + std::to_string(options_.vectors + i);
      const auto began = Clock::now();
      auto added = engine->Add(fact);
      add_ms.push_back(MsSince(began));
      if (!added.ok()) {
        stop = true;
        searcher.join();
        return Fail("add", added.status());
      }
    }
    const double live_s = MsSince(start) / 1e3;
    stop = true;
    searcher.join();
    const auto closed_at = Clock::now();
    engine.reset();
    const double close_s = MsSince(closed_at) / 1e3;

    std::printf(
        "| %zu adds beside searches (hnsw_save_delay_ms %d, an add every %d ms) | |\n"
        "|---|---:|\n",
        options_.adds, options_.save_delay_ms, options_.add_every_ms);
    std::printf("| time (s) | %.1f |\n| searches | %zu (%zu errors or empty) |\n", live_s,
                search_ms.size(), errors.load());
    std::printf("| search wall p50 / p99 / max (ms) | %.2f / %.2f / %.2f |\n",
                Percentile(search_ms, 0.5), Percentile(search_ms, 0.99),
                Percentile(search_ms, 1.0));
    std::printf("| add wall p50 / max (ms) | %.2f / %.2f |\n", Percentile(add_ms, 0.5),
                Percentile(add_ms, 1.0));
    std::printf("| close: what was left written (s) | %.1f |\n\n", close_s);
    return true;
  }

  static bool Fail(const char* what, const Status& status) {
    std::fprintf(stderr, "hnsw_live: %s: %s\n", what, status.ToString().c_str());
    return false;
  }

  BenchOptions options_;
  DataSet set_;
  std::vector<float> facts_;  // the scope's vectors, then the live phase's
  std::vector<float> queries_;
  std::shared_ptr<const TableEmbedder> embedder_;
  std::string db_path_;
};

}  // namespace
}  // namespace engram

int main(int argc, char** argv) {
  engram::BenchOptions options;
  CLI::App app{"A large HNSW scope: build, restart, recall and searches beside adds"};
  app.add_option("--vectors", options.vectors, "vectors in the scope");
  app.add_option("--dim", options.dim, "vector dimension");
  app.add_option("--data", options.data, "uniform or lowrank");
  app.add_option("--rank", options.rank, "lowrank: subspace dimension");
  app.add_option("--noise", options.noise, "lowrank: noise norm");
  app.add_option("--queries", options.queries, "searches of the quality phase");
  app.add_option("--adds", options.adds, "adds of the live phase");
  app.add_option("--save-delay-ms", options.save_delay_ms, "live phase's hnsw_save_delay_ms");
  app.add_option("--add-every-ms", options.add_every_ms,
                 "live phase: least ms from one add's start to the next (0: back to back)");
  app.add_option("--dir", options.dir, "where the store is made and removed");
  CLI11_PARSE(app, argc, argv);
  if (options.vectors == 0 || options.dim == 0 || options.queries == 0) {
    std::fprintf(stderr, "hnsw_live: --vectors, --dim and --queries must be positive\n");
    return 2;
  }
  return engram::Bench(options).Run();
}
