// The full-text matches of a search from the store (FTS5 and a row lookup
// per match, FactStore::MatchFullText) against the same from a LexicalIndex
// built in memory, on one scope of an existing store: the index's build
// time, then ROUNDS rounds over the queries, the two interleaved query by
// query, CPU time per query of each (CLOCK_THREAD_CPUTIME_ID), and how
// much the build grew the resident memory (SQLite's page cache included).
// Every query's two answers are compared by their number of matches
// (LexicalIndexTest compares them whole); a difference stops the run.
// Prints one JSON object.
//
//   lexical_match --db STORE --queries FILE [--scope default] [--rounds 20]
#include <time.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/cpu_time.h"
#include "src/lexical/lexical_index.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/sqlite/sqlite_store.h"

namespace {

// The process's resident memory, in MB (/proc/self/statm).
double ResidentMb() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0;
  double resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"MatchFullText against a LexicalIndex"};
  std::string db;
  std::string queries_path;
  std::string scope = "default";
  int rounds = 20;
  app.add_option("--db", db)->required();
  app.add_option("--queries", queries_path, "one query per line")->required();
  app.add_option("--scope", scope);
  app.add_option("--rounds", rounds);
  CLI11_PARSE(app, argc, argv);

  engram::SqliteStoreOptions options;
  options.path = db;
  options.create_if_missing = false;
  auto store = engram::SqliteStore::Open(options);
  if (!store.ok()) {
    std::cerr << "lexical_match: " << store.status().ToString() << "\n";
    return 1;
  }
  engram::FactStore& facts = (*store)->facts();

  const double resident_before = ResidentMb();
  const double build_start = engram::CpuMilliseconds();
  engram::LexicalIndex index(scope);
  engram::Status read = facts.ForEach({scope}, [&](const engram::StoredFact& f) {
    index.Add(f);
    return true;
  });
  index.Seal();
  const double build_ms = engram::CpuMilliseconds() - build_start;
  const double index_mb = ResidentMb() - resident_before;
  if (!read.ok()) {
    std::cerr << "lexical_match: " << read.ToString() << "\n";
    return 1;
  }

  auto totals = facts.FullTextTotalsOf({scope});
  if (!totals.ok()) return 1;
  std::vector<std::vector<std::string>> phrases;
  std::ifstream in(queries_path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    engram::LexicalQuery q = engram::AnalyzeQuery(line);
    if (totals->portuguese_facts > 0) q = engram::WithPortugueseForms(q);
    phrases.push_back(engram::PhrasesOf(q).phrases);
  }

  engram::FactVisibility visibility;
  visibility.now = 1'900'000'000'000;
  double store_ms = 0;
  double index_ms = 0;
  size_t matches = 0;
  size_t searches = 0;
  for (int r = 0; r < rounds; ++r) {
    for (const std::vector<std::string>& p : phrases) {
      std::vector<engram::FullTextMatch> from_store;
      const double t0 = engram::CpuMilliseconds();
      engram::Status s = (*store)->ReadTransact([&]() -> engram::Status {
        ENGRAM_ASSIGN_OR_RETURN(from_store, facts.MatchFullText(p, false, {scope}, visibility));
        return engram::Status::OK();
      });
      const double t1 = engram::CpuMilliseconds();
      const std::vector<engram::FullTextMatch> from_index = index.Match(p, false, visibility);
      const double t2 = engram::CpuMilliseconds();
      if (!s.ok() || from_store.size() != from_index.size()) {
        std::cerr << "lexical_match: the index and the store disagree\n";
        return 1;
      }
      store_ms += t1 - t0;
      index_ms += t2 - t1;
      matches += from_index.size();
      ++searches;
    }
  }
  std::printf(
      "{\"facts\": %zu, \"build_ms\": %.1f, \"index_resident_mb\": %.1f, \"queries\": %zu, "
      "\"matches_per_query\": %.0f, "
      "\"store_ms_per_query\": %.3f, \"index_ms_per_query\": %.3f, \"ratio\": %.2f}\n",
      index.Size(), build_ms, index_mb, phrases.size(),
      static_cast<double>(matches) / static_cast<double>(searches),
      store_ms / static_cast<double>(searches), index_ms / static_cast<double>(searches),
      store_ms / index_ms);
  return 0;
}
