// Vector search speed and recall, side by side in one run on the same
// vectors: our FlatIndex against FAISS IndexFlatIP (exact), our HnswIndex
// against raw hnswlib HierarchicalNSW with its InnerProductSpace
// (approximate), and the bandwidth limit of an exact scan: one core
// reading the same number of bytes and doing nothing else with them.
//
// For each data set and size n it generates n unit vectors of --dim and
// --queries query vectors from the same distribution (fixed seeds), then per
// engine reports:
//  - build: wall time to add all n vectors (HNSW: --build-threads threads);
//  - p50/p95: wall time of single-query searches with k = --k, after
//    --warmup untimed ones; cpu p50: the process's CPU time per search
//    (all its threads), which other programs on the machine disturb less;
//  - recall@k against the exact top-k (our FlatIndex, whose results are
//    checked against FAISS in the same run);
//  - memory: heap bytes of the index / n; file: saved size / n (HNSW);
//  - vs read: CPU p50 over that of "memory read", a single-core pass that
//    sums the n vectors' floats (the least one core can spend reading them),
//    timed in the same interleaved loop; the exact engines' rows show it.
// "engram FlatIndex int8" is FlatIndex with FlatIndexOptions::int8_scan,
// whose hits are the float scan's by construction (its recall is checked
// all the same).
// Exact engines run once per --threads value: FlatIndexOptions::threads and
// omp_set_num_threads are set alike (FAISS 1.7 parallelises a search over
// its queries, so one query uses one thread whatever the setting).
//
// Data sets (bench/vector_data.h): "uniform" on the sphere, and "lowrank",
// near a random --rank-dimensional subspace plus --noise.
//
// Output: tab-separated rows with a header line (bench/vector_search.sh
// turns them into a Markdown table); progress and notes go to stderr. Not a
// test: nothing here passes or fails on speed.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <faiss/IndexFlat.h>
#include <hnswlib/hnswlib.h>
#include <CLI/CLI.hpp>

#include "bench/vector_data.h"

#include "src/vindex/flat_index.h"
#include "src/vindex/hnsw_index.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  std::vector<size_t> sizes = {10000, 100000, 1000000};  // vectors per run
  size_t dim = 512;                                      // vector dimension
  size_t queries = 200;                                  // timed queries per engine
  size_t warmup = 10;                                    // untimed queries first
  size_t k = 10;                                         // hits per query
  std::vector<size_t> threads = {1, 2};                  // exact engines' thread counts
  std::vector<std::string> data = {"uniform", "lowrank"};
  size_t rank = 32;                                   // lowrank: dimension of the subspace
  double noise = 0.3;                                 // lowrank: norm of the isotropic noise
  size_t hnsw_max = 100000;                           // largest n the HNSW engines are built for
  size_t build_threads = 2;                           // HNSW insertion threads (both engines)
  size_t m = 16;                                      // HNSW links per node (both engines)
  size_t ef_construction = 200;                       // HNSW build candidate list (both engines)
  size_t ef = 128;                                    // HNSW search candidate list (both engines)
  std::vector<size_t> ef_sweep = {32, 64, 256, 512};  // more ef values to measure
  std::vector<std::string> engines = {"read", "flat", "int8", "faiss", "hnsw", "hnswlib"};
  std::string dir = "/tmp";  // where the HNSW files are saved

  bool Runs(const std::string& engine) const;
};

bool BenchOptions::Runs(const std::string& engine) const {
  return std::find(engines.begin(), engines.end(), engine) != engines.end();
}

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of the whole process, all threads: what a search costs, less
// disturbed than wall time by other programs on a shared machine.
double ProcessCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return (static_cast<double>(now.tv_sec) * 1e3) + (static_cast<double>(now.tv_nsec) / 1e6);
}

struct Row {
  std::string data;
  size_t n = 0;
  std::string engine;
  std::string threads;
  std::string ef = "-";
  double build_s = 0.0;
  double p50_ms = 0.0;
  double p95_ms = 0.0;
  double cpu_p50_ms = 0.0;    // process CPU time (all threads) per query
  double recall = 0.0;        // < 0: the engine finds nothing (memory read)
  double memory_bytes = 0.0;  // per vector
  double file_bytes = 0.0;    // per vector; 0 = not saved
  double vs_read = 0.0;       // cpu_p50_ms / memory read's; 0 = not measured
};

void PrintHeader() {
  std::printf(
      "data\tn\tengine\tthreads\tef\tbuild_s\tp50_ms\tp95_ms\tcpu_p50_ms\trecall\tmemory_B_per_"
      "vector\tfile_B_per_vector\tvs_read\n");
}

std::string Fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void Print(const Row& r) {
  std::printf("%s\t%zu\t%s\t%s\t%s\t%.2f\t%.3f\t%.3f\t%.3f\t%s\t%.0f\t%s\t%s\n", r.data.c_str(),
              r.n, r.engine.c_str(), r.threads.c_str(), r.ef.c_str(), r.build_s, r.p50_ms, r.p95_ms,
              r.cpu_p50_ms, r.recall < 0 ? "-" : Fixed(r.recall, 4).c_str(), r.memory_bytes,
              r.file_bytes > 0 ? Fixed(r.file_bytes, 0).c_str() : "-",
              r.vs_read > 0 ? Fixed(r.vs_read, 2).c_str() : "-");
  std::fflush(stdout);
}

// The sum of `count` floats read in order, eight lanes at a time with four
// independent sums: a pass as cheap as reading the bytes gets (the limit
// an exact scan of the same rows is held to).
float StreamSum(const float* values, size_t count) {
#ifdef __AVX2__
  __m256 a0 = _mm256_setzero_ps();
  __m256 a1 = _mm256_setzero_ps();
  __m256 a2 = _mm256_setzero_ps();
  __m256 a3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(values + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(values + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(values + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(values + i + 24));
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  float sum = 0.0f;
  for (const float lane : lanes) sum += lane;
#else
  float sum = 0.0f;
  size_t i = 0;
#endif
  for (; i < count; ++i) sum += values[i];
  return sum;
}

constexpr char kMemoryRead[] = "memory read (1 core)";

using Hits = std::vector<std::vector<int64_t>>;  // labels per query

std::vector<int64_t> LabelsOf(const Result<std::vector<ScoredLabel>>& hits) {
  std::vector<int64_t> labels;
  if (!hits.ok()) {
    std::fprintf(stderr, "search failed: %s\n", hits.status().ToString().c_str());
    std::exit(1);
  }
  for (const ScoredLabel& hit : *hits) labels.push_back(hit.label);
  return labels;
}

struct Engine {
  Row row;
  std::function<std::vector<int64_t>(size_t)> search;  // query index -> labels
};

// Times the engines query by query, taking turns (the first engine changes
// with every query), so that whatever else the machine does hits them
// alike; then prints a row per engine with latency and recall@k.
void Measure(const BenchOptions& options, const Hits& truth, std::vector<Engine>* engines) {
  const size_t count = engines->size();
  for (Engine& engine : *engines) {
    for (size_t q = 0; q < options.warmup && q < options.queries; ++q) engine.search(q);
  }
  std::vector<std::vector<double>> ms(count);
  std::vector<std::vector<double>> cpu_ms(count);
  std::vector<Hits> hits(count, Hits(options.queries));
  for (size_t q = 0; q < options.queries; ++q) {
    for (size_t turn = 0; turn < count; ++turn) {
      const size_t e = (q + turn) % count;
      const double cpu_start = ProcessCpuMs();
      const Clock::time_point start = Clock::now();
      hits[e][q] = (*engines)[e].search(q);
      ms[e].push_back(MsSince(start));
      cpu_ms[e].push_back(ProcessCpuMs() - cpu_start);
    }
  }
  for (size_t e = 0; e < count; ++e) {
    Row& row = (*engines)[e].row;
    std::sort(ms[e].begin(), ms[e].end());
    std::sort(cpu_ms[e].begin(), cpu_ms[e].end());
    row.p50_ms = ms[e][ms[e].size() / 2];
    row.p95_ms = ms[e][std::min(ms[e].size() - 1, (ms[e].size() * 95) / 100)];
    row.cpu_p50_ms = cpu_ms[e][cpu_ms[e].size() / 2];
    size_t found = 0;
    size_t wanted = 0;
    for (size_t q = 0; q < options.queries; ++q) {
      const std::unordered_set<int64_t> got(hits[e][q].begin(), hits[e][q].end());
      for (const int64_t label : truth[q]) found += got.count(label);
      wanted += truth[q].size();
    }
    if (row.recall >= 0) {
      row.recall = wanted == 0 ? 1.0 : static_cast<double>(found) / static_cast<double>(wanted);
    }
  }
  const auto read = std::find_if(engines->begin(), engines->end(),
                                 [](const Engine& e) { return e.row.engine == kMemoryRead; });
  for (Engine& engine : *engines) {
    if (read != engines->end() && &engine != &*read && read->row.cpu_p50_ms > 0) {
      engine.row.vs_read = engine.row.cpu_p50_ms / read->row.cpu_p50_ms;
    }
    Print(engine.row);
  }
}

template <typename Graph>
size_t HnswlibBytes(const Graph& g) {
  // As HnswIndex::MemoryBytes counts the graph (without our label maps).
  size_t bytes = g.max_elements_ * (g.size_data_per_element_ + sizeof(void*) + sizeof(int) +
                                    sizeof(std::mutex) + sizeof(hnswlib::vl_type));
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    const auto level = static_cast<size_t>(g.element_levels_[i]);
    if (level > 0) bytes += (g.size_links_per_element_ * level) + 1;
  }
  bytes += Graph::max_update_element_locks * sizeof(std::mutex);
  bytes += g.label_lookup_.size() * 24 + g.label_lookup_.bucket_count() * sizeof(void*);
  return bytes;
}

double FileBytes(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0.0 : static_cast<double>(size);
}

// A FlatIndex of the data; *build_s receives the wall time.
std::unique_ptr<FlatIndex> BuildFlat(const std::vector<float>& data, size_t n, size_t dim,
                                     FlatIndexOptions options, double* build_s) {
  const Clock::time_point start = Clock::now();
  auto flat = std::make_unique<FlatIndex>(dim, options);
  flat->Reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!flat->Upsert(static_cast<int64_t>(i), std::span<const float>(data).subspan(i * dim, dim))
             .ok()) {
      std::exit(1);
    }
  }
  *build_s = MsSince(start) / 1000.0;
  return flat;
}

void RunSize(const BenchOptions& options, const DataSet& set, size_t n) {
  const size_t dim = options.dim;
  const char* kind = set.Kind().c_str();
  std::fprintf(stderr, "[%s n=%zu] generating\n", kind, n);
  const std::vector<float> data = set.Make(n, 1000 + static_cast<uint32_t>(n % 997));
  const std::vector<float> queries = set.Make(options.queries, 2);
  const auto query = [&](size_t q) {
    return std::span<const float>(queries).subspan(q * dim, dim);
  };
  const auto row = [&](const std::string& engine, const std::string& threads) {
    Row r;
    r.data = set.Kind();
    r.n = n;
    r.engine = engine;
    r.threads = threads;
    return r;
  };

  // The exact top k, from our FlatIndex (FAISS's rows show they agree).
  Hits truth;
  {
    std::fprintf(stderr, "[%s n=%zu] exact answers\n", kind, n);
    double unused = 0.0;
    const auto flat = BuildFlat(data, n, dim, {}, &unused);
    for (size_t q = 0; q < options.queries; ++q) {
      truth.push_back(LabelsOf(flat->Search(query(q), options.k, -2.0f)));
    }
  }

  // Exact engines, side by side at each thread count.
  std::unique_ptr<faiss::IndexFlatIP> faiss_index;
  double faiss_build_s = 0.0;
  if (options.Runs("faiss")) {
    const Clock::time_point start = Clock::now();
    faiss_index = std::make_unique<faiss::IndexFlatIP>(static_cast<faiss::Index::idx_t>(dim));
    faiss_index->add(static_cast<faiss::Index::idx_t>(n), data.data());
    faiss_build_s = MsSince(start) / 1000.0;
  }
  std::vector<float> distances(options.k);
  std::vector<faiss::Index::idx_t> ids(options.k);
  volatile float read_sink = 0.0f;
  for (const size_t threads : options.threads) {
    std::vector<Engine> engines;
    if (options.Runs("read") && threads == 1) {
      Engine engine{row(kMemoryRead, "1"), [&](size_t) {
                      read_sink = read_sink + StreamSum(data.data(), data.size());
                      return std::vector<int64_t>();
                    }};
      engine.row.recall = -1.0;
      engine.row.memory_bytes = static_cast<double>(dim * sizeof(float));  // the bytes it reads
      engines.push_back(std::move(engine));
    }
    std::unique_ptr<FlatIndex> flat;
    std::unique_ptr<FlatIndex> int8;
    for (const bool codes : {false, true}) {
      if (!options.Runs(codes ? "int8" : "flat")) continue;
      std::fprintf(stderr, "[%s n=%zu] %s, %zu threads\n", kind, n, codes ? "int8" : "flat",
                   threads);
      FlatIndexOptions flat_options;
      flat_options.threads = threads;
      flat_options.int8_scan = codes;
      const std::string name = codes ? "engram FlatIndex int8" : "engram FlatIndex";
      Engine engine{row(name, std::to_string(threads)), nullptr};
      std::unique_ptr<FlatIndex>& index = codes ? int8 : flat;
      index = BuildFlat(data, n, dim, flat_options, &engine.row.build_s);
      engine.row.memory_bytes = static_cast<double>(index->MemoryBytes()) / static_cast<double>(n);
      const FlatIndex* built = index.get();
      engine.search = [&, built](size_t q) {
        return LabelsOf(built->Search(query(q), options.k, -2.0f));
      };
      engines.push_back(std::move(engine));
    }
    if (faiss_index) {
      std::fprintf(stderr, "[%s n=%zu] faiss, %zu threads\n", kind, n, threads);
      omp_set_num_threads(static_cast<int>(threads));
      Engine engine{row("FAISS IndexFlatIP", std::to_string(threads)), nullptr};
      engine.row.build_s = faiss_build_s;
      engine.row.memory_bytes =
          static_cast<double>(faiss_index->codes.size()) / static_cast<double>(n);
      engine.search = [&](size_t q) {
        faiss_index->search(1, query(q).data(), static_cast<faiss::Index::idx_t>(options.k),
                            distances.data(), ids.data());
        std::vector<int64_t> found;
        for (const auto id : ids) {
          if (id >= 0) found.push_back(id);
        }
        return found;
      };
      engines.push_back(std::move(engine));
    }
    if (!engines.empty()) Measure(options, truth, &engines);
  }
  faiss_index.reset();

  if (n > options.hnsw_max) {
    std::fprintf(stderr, "[%s n=%zu] HNSW skipped (--hnsw-max %zu)\n", kind, n, options.hnsw_max);
    return;
  }
  const std::string search_threads = "1 (build " + std::to_string(options.build_threads) + ")";
  std::unique_ptr<HnswIndex> hnsw;
  Row hnsw_row = row("engram HnswIndex", search_threads);
  if (options.Runs("hnsw")) {
    std::fprintf(stderr, "[%s n=%zu] engram HnswIndex build\n", kind, n);
    HnswIndexOptions hnsw_options;
    hnsw_options.m = options.m;
    hnsw_options.ef_construction = options.ef_construction;
    hnsw_options.ef_search = options.ef;
    hnsw_options.build_threads = options.build_threads;
    hnsw_options.initial_capacity = n;
    std::vector<int64_t> labels(n);
    for (size_t i = 0; i < n; ++i) labels[i] = static_cast<int64_t>(i);
    const Clock::time_point start = Clock::now();
    auto created = HnswIndex::Create(dim, hnsw_options);
    if (!created.ok() || !(*created)->UpsertBatch(labels, data).ok()) std::exit(1);
    hnsw_row.build_s = MsSince(start) / 1000.0;
    hnsw = std::move(created).value();
    const std::string path = options.dir + "/vector_search_bench.hnsw";
    if (!hnsw->Save(path, "bench").ok()) std::exit(1);
    hnsw_row.file_bytes =
        (FileBytes(path) + FileBytes(HnswIndex::MetaPath(path))) / static_cast<double>(n);
    std::filesystem::remove(path);
    std::filesystem::remove(HnswIndex::MetaPath(path));
    hnsw_row.memory_bytes = static_cast<double>(hnsw->MemoryBytes()) / static_cast<double>(n);
  }
  std::unique_ptr<hnswlib::InnerProductSpace> space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
  Row raw_row = row("hnswlib 0.6.2 (raw)", search_threads);
  if (options.Runs("hnswlib")) {
    std::fprintf(stderr, "[%s n=%zu] raw hnswlib build\n", kind, n);
    space = std::make_unique<hnswlib::InnerProductSpace>(dim);
    const Clock::time_point start = Clock::now();
    graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(space.get(), n, options.m,
                                                              options.ef_construction, 100);
    std::atomic<size_t> next{0};
    const auto insert = [&] {
      for (size_t i = next++; i < n; i = next++) graph->addPoint(data.data() + (i * dim), i);
    };
    std::vector<std::thread> workers;
    for (size_t t = 1; t < options.build_threads; ++t) workers.emplace_back(insert);
    insert();
    for (std::thread& worker : workers) worker.join();
    raw_row.build_s = MsSince(start) / 1000.0;
    const std::string path = options.dir + "/vector_search_bench.hnswlib";
    graph->saveIndex(path);
    raw_row.file_bytes = FileBytes(path) / static_cast<double>(n);
    std::filesystem::remove(path);
    raw_row.memory_bytes = static_cast<double>(HnswlibBytes(*graph)) / static_cast<double>(n);
  }

  // Both graphs side by side at each ef, the configured one first.
  std::vector<size_t> efs = {options.ef};
  for (const size_t ef : options.ef_sweep) {
    if (ef != options.ef) efs.push_back(ef);
  }
  for (const size_t ef : efs) {
    std::vector<Engine> engines;
    if (hnsw) {
      Engine engine{hnsw_row, [&, ef](size_t q) {
                      return LabelsOf(hnsw->SearchWithEf(query(q), options.k, -2.0f, ef));
                    }};
      engine.row.ef = std::to_string(ef);
      engines.push_back(std::move(engine));
    }
    if (graph) {
      Engine engine{raw_row, [&, ef](size_t q) {
                      graph->setEf(ef);
                      auto found = graph->searchKnn(query(q).data(), options.k);
                      std::vector<int64_t> out;
                      for (; !found.empty(); found.pop()) {
                        out.push_back(static_cast<int64_t>(found.top().second));
                      }
                      return out;
                    }};
      engine.row.ef = std::to_string(ef);
      engines.push_back(std::move(engine));
    }
    if (!engines.empty()) Measure(options, truth, &engines);
  }
}

}  // namespace
}  // namespace engram

int main(int argc, char** argv) {
  engram::BenchOptions options;
  CLI::App app{"engram vector search benchmark"};
  app.add_option("--sizes", options.sizes, "vectors per run")->delimiter(',');
  app.add_option("--dim", options.dim, "vector dimension");
  app.add_option("--queries", options.queries, "timed queries per engine");
  app.add_option("--warmup", options.warmup, "untimed queries first");
  app.add_option("--k", options.k, "hits per query");
  app.add_option("--threads", options.threads, "exact engines' thread counts")->delimiter(',');
  app.add_option("--data", options.data, "data sets: uniform, lowrank")->delimiter(',');
  app.add_option("--rank", options.rank, "lowrank: subspace dimension");
  app.add_option("--noise", options.noise, "lowrank: noise norm");
  app.add_option("--hnsw-max", options.hnsw_max, "largest n the HNSW engines are built for");
  app.add_option("--build-threads", options.build_threads, "HNSW insertion threads");
  app.add_option("--m", options.m, "HNSW links per node");
  app.add_option("--ef-construction", options.ef_construction, "HNSW build candidates");
  app.add_option("--ef", options.ef, "HNSW search candidates");
  app.add_option("--ef-sweep", options.ef_sweep, "more ef values for both HNSW engines")
      ->delimiter(',');
  app.add_option("--engines", options.engines, "read, flat, int8, faiss, hnsw, hnswlib")
      ->delimiter(',');
  app.add_option("--dir", options.dir, "where HNSW files are saved and removed");
  CLI11_PARSE(app, argc, argv);
  if (options.queries == 0 || options.dim == 0 || options.k == 0) {
    std::fprintf(stderr, "--queries, --dim and --k must be positive\n");
    return 2;
  }

  std::fprintf(stderr, "dot kernel: %s; hardware threads: %u\n",
               std::string(engram::DotKernelName()).c_str(), std::thread::hardware_concurrency());
  engram::PrintHeader();
  for (const std::string& kind : options.data) {
    const engram::DataSet set(kind, options.dim, options.rank, options.noise);
    for (const size_t n : options.sizes) engram::RunSize(options, set, n);
  }
  return 0;
}
