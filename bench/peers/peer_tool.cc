// engram's side of the peer comparison (bench/peers/run.sh), three commands:
//
//   peer_tool data DATASET OUT
//     Indexes the dataset into OUT/engram.db as `engram eval` does (each row
//     a fact, oldest first, through Add, with the embedded model), and
//     writes what the other libraries index, with the same vectors:
//     OUT/docs.jsonl (id, scope, content, the fact id engram stored it as)
//     and OUT/docs.f32 (each row's vector as engram embeds a fact),
//     OUT/queries.jsonl and OUT/queries.f32 (each query's vector as engram
//     embeds a query), and OUT/query_embed.tsv (wall and CPU ms of each
//     query's embedding).
//   peer_tool search OUT MODE RUN
//     Opens OUT/engram.db in process through the library and asks every
//     query in MODE (lexical, semantic or blended), 100 results deep, in
//     its own scope; writes the TREC run RUN (rank-derived scores, every
//     row a fact stands for) and RUN.times (wall and CPU ms per query, in
//     query order).
//   peer_tool score DATASET REFERENCE RUN...
//     Scores each run with engram's trec_eval metrics (src/eval, checked
//     against trec_eval's own output) over the queries with a relevant
//     document, and counts per-query nDCG@10 wins, losses and ties against
//     REFERENCE. Tab-separated: run, nDCG@10, recall@100, wins, losses,
//     ties.
//
// Not a test: it measures and reports; errors exit non-zero with a message.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/cpu_time.h"
#include "engram/clock.h"
#include "engram/embedder.h"
#include "engram/engine.h"
#include "src/eval/beir_dataset.h"
#include "src/eval/evaluation.h"
#include "src/eval/trec_run.h"

namespace engram {
namespace {

constexpr size_t kDepth = 100;

int Fail(const std::string& what) {
  std::fprintf(stderr, "peer_tool: %s\n", what.c_str());
  return 1;
}

double WallMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Result<std::unique_ptr<Engine>> OpenEngine(const std::string& out,
                                           std::shared_ptr<const Embedder> embedder,
                                           std::shared_ptr<Clock> clock) {
  EngineOptions options;
  options.db_path = out + "/engram.db";
  options.embedder = std::move(embedder);
  options.clock = std::move(clock);
  options.vector.background_backfill = false;
  return Engine::Open(options);
}

Status WriteFloats(const std::string& path, const std::vector<float>& values) {
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(float)));
  return file ? Status::OK() : IOError("cannot write " + path);
}

int Data(const std::string& dataset_dir, const std::string& out) {
  auto dataset = LoadBeirDataset(dataset_dir);
  if (!dataset.ok()) return Fail(dataset.status().message());
  auto embedder = CreateEmbedder("local", EmbedderOptions{});
  if (!embedder.ok()) return Fail(embedder.status().message());
  std::shared_ptr<const Embedder> shared(std::move(*embedder));

  // The clock at the newest row's time, as `engram eval` pins it.
  Timestamp now = 946684800000;  // 2000-01-01, for a dataset without times
  for (const CorpusDoc& d : dataset->corpus) now = std::max(now, d.created_at.value_or(0));
  auto engine = OpenEngine(out, shared, std::make_shared<ManualClock>(now));
  if (!engine.ok()) return Fail(engine.status().message());

  std::vector<const CorpusDoc*> by_time;
  for (const CorpusDoc& d : dataset->corpus) by_time.push_back(&d);
  std::stable_sort(by_time.begin(), by_time.end(), [](const CorpusDoc* a, const CorpusDoc* b) {
    return a->created_at.value_or(0) < b->created_at.value_or(0);
  });
  std::ofstream docs(out + "/docs.jsonl");
  std::vector<float> doc_vectors;
  std::vector<std::string> batch;
  const auto embed_batch = [&]() -> Status {
    if (batch.empty()) return Status::OK();
    ENGRAM_ASSIGN_OR_RETURN(auto vectors, shared->Embed(batch, EmbedPurpose::kDocument));
    for (const auto& v : vectors) doc_vectors.insert(doc_vectors.end(), v.begin(), v.end());
    batch.clear();
    return Status::OK();
  };
  size_t done = 0;
  for (const CorpusDoc* d : by_time) {
    NewFact fact;
    fact.content = FactContent(*d);
    fact.scope = d->scope;
    fact.tags = d->tags;
    fact.created_at = d->created_at;
    if (!(*engine)->Validate(fact).ok()) continue;  // e.g. empty: never found, as in eval
    auto added = (*engine)->Add(fact);
    if (!added.ok()) return Fail("add " + d->id + ": " + added.status().message());
    docs << nlohmann::json{{"id", d->id},
                           {"scope", d->scope},
                           {"content", fact.content},
                           {"fact_id", added->fact.id}}
                .dump()
         << "\n";
    batch.push_back(fact.content);
    if (batch.size() == 64) {
      if (Status s = embed_batch(); !s.ok()) return Fail(s.message());
    }
    if (++done % 500 == 0) std::fprintf(stderr, "peer_tool: indexed %zu rows\n", done);
  }
  if (Status s = embed_batch(); !s.ok()) return Fail(s.message());
  if (Status s = WriteFloats(out + "/docs.f32", doc_vectors); !s.ok()) return Fail(s.message());

  std::ofstream queries(out + "/queries.jsonl");
  std::ofstream embed_times(out + "/query_embed.tsv");
  std::vector<float> query_vectors;
  for (const EvalQuery& q : dataset->queries) {
    const double wall = WallMs();
    const double cpu = CpuMilliseconds();
    auto vectors = shared->Embed({q.text}, EmbedPurpose::kQuery);
    embed_times << (WallMs() - wall) << "\t" << (CpuMilliseconds() - cpu) << "\n";
    if (!vectors.ok()) return Fail("embed query " + q.id + ": " + vectors.status().message());
    query_vectors.insert(query_vectors.end(), vectors->front().begin(), vectors->front().end());
    queries << nlohmann::json{{"id", q.id}, {"scope", q.scope}, {"text", q.text}}.dump() << "\n";
  }
  if (Status s = WriteFloats(out + "/queries.f32", query_vectors); !s.ok())
    return Fail(s.message());
  std::fprintf(stderr, "peer_tool: %zu rows, %zu queries, dimension %zu\n", done,
               dataset->queries.size(), shared->Space().dimension);
  return docs && queries ? 0 : Fail("cannot write " + out);
}

int Search(const std::string& out, const std::string& mode_name, const std::string& run_path) {
  auto mode = ParseFusionMode(mode_name);
  if (!mode.ok()) return Fail(mode.status().message());
  std::shared_ptr<const Embedder> embedder;
  if (*mode != FusionMode::kLexical) {
    auto created = CreateEmbedder("local", EmbedderOptions{});
    if (!created.ok()) return Fail(created.status().message());
    embedder = std::move(*created);
  }
  auto engine = OpenEngine(out, embedder, nullptr);
  if (!engine.ok()) return Fail(engine.status().message());

  // Every row a fact stands for, by scope and fact id.
  std::unordered_map<std::string, std::vector<std::string>> rows_of;
  std::ifstream docs(out + "/docs.jsonl");
  for (std::string line; std::getline(docs, line);) {
    const auto doc = nlohmann::json::parse(line);
    rows_of[doc["scope"].get<std::string>() + '\n' + doc["fact_id"].get<std::string>()].push_back(
        doc["id"].get<std::string>());
  }

  EvalRun run;
  std::ofstream times(run_path + ".times");
  std::ifstream queries(out + "/queries.jsonl");
  for (std::string line; std::getline(queries, line);) {
    const auto query = nlohmann::json::parse(line);
    SearchOptions options;
    options.k = kDepth;
    options.mode = *mode;
    options.scopes = {query["scope"].get<std::string>()};
    options.record_access = false;
    const double wall = WallMs();
    const double cpu = CpuMilliseconds();
    auto found = (*engine)->Search(query["text"].get<std::string>(), options);
    times << (WallMs() - wall) << "\t" << (CpuMilliseconds() - cpu) << "\n";
    if (!found.ok()) return Fail("search: " + found.status().message());
    std::vector<ScoredDoc>& ranking = run[query["id"].get<std::string>()];
    for (const SearchHit& hit : found->hits) {
      for (const std::string& row : rows_of[hit.fact.scope + '\n' + hit.fact.id]) {
        if (ranking.size() < kDepth) {
          ranking.push_back({row, static_cast<double>(kDepth - ranking.size())});
        }
      }
    }
  }
  auto text = FormatTrecRun(run, "engram-" + mode_name);
  if (!text.ok()) return Fail(text.status().message());
  std::ofstream file(run_path);
  file << *text;
  return file ? 0 : Fail("cannot write " + run_path);
}

int Score(const std::string& dataset_dir, const std::vector<std::string>& runs) {
  auto dataset = LoadBeirDataset(dataset_dir);
  if (!dataset.ok()) return Fail(dataset.status().message());
  std::vector<Evaluation> evaluations;
  for (const std::string& path : runs) {
    auto run = LoadTrecRun(path);
    if (!run.ok()) return Fail(run.status().message());
    auto evaluation = Evaluate(*run, dataset->qrels, QuerySet::kWithRelevant);
    if (!evaluation.ok()) return Fail(evaluation.status().message());
    evaluations.push_back(std::move(*evaluation));
  }
  const Evaluation& reference = evaluations.front();
  for (size_t i = 0; i < runs.size(); ++i) {
    int wins = 0;
    int losses = 0;
    int ties = 0;
    for (const auto& [query, values] : evaluations[i].per_query) {
      const double mine = values.at("nDCG@10");
      const auto theirs = reference.per_query.find(query);
      const double other = theirs == reference.per_query.end() ? 0.0 : theirs->second.at("nDCG@10");
      if (std::fabs(mine - other) < 1e-9) {
        ++ties;
      } else if (mine > other) {
        ++wins;
      } else {
        ++losses;
      }
    }
    std::printf("%s\t%.4f\t%.4f\t%d\t%d\t%d\n", runs[i].c_str(), evaluations[i].mean.at("nDCG@10"),
                evaluations[i].mean.at("recall@100"), wins, losses, ties);
  }
  return 0;
}

}  // namespace
}  // namespace engram

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "data") return engram::Data(args[1], args[2]);
  if (args.size() == 4 && args[0] == "search") return engram::Search(args[1], args[2], args[3]);
  if (args.size() >= 4 && args[0] == "score") {
    return engram::Score(args[1], std::vector<std::string>(args.begin() + 2, args.end()));
  }
  std::fprintf(stderr,
               "usage: peer_tool data DATASET OUT | search OUT MODE RUN | "
               "score DATASET REFERENCE RUN...\n");
  return 2;
}
