// Embedding speed of the embedded model (provider `local`, USE-Lite), as
// the product uses it through LocalEmbedder:
//  - load: LocalEmbedder::Load of the model file, wall time;
//  - batch: N fact-like sentences (~15 tokens) embedded in batches of B,
//    as an import does; sentences per second, median and best of R rounds
//    after one warm-up batch;
//  - query: Q short queries (5-12 words) embedded one call each, as a
//    search does; p50/p95/p99 of each call's wall time after a warm-up;
//  - tokenize: the tokenizer alone on the same queries, mean per call.
// Beside wall time it reports CPU time (batch: all threads per sentence;
// query: the calling thread's p50), which other processes on a shared
// machine disturb less; a query's CPU time counts only the calling thread,
// so it covers everything only while a single text runs on that thread.
// The sentences and queries are generated from templates with a fixed seed
// (the same on every machine), or read one per line from --sentences-file
// and --queries-file. OpenBLAS takes its thread count from
// OPENBLAS_NUM_THREADS at start-up, and the encoder may lower it at load
// (UseLiteEncoderOptions::threads); the value in effect after load is
// printed. --sgemm-min-rows picks the encoder's dense product
// (UseLiteEncoderOptions::sgemm_min_rows: 1 always sgemm, max never), and
// each part prints which path its products ran on.
//
// Output: one "key<TAB>value" line per figure (bench/embed_speed.sh turns
// runs into a Markdown table). Not a test: nothing here passes or fails on
// speed.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/cpu_time.h"
#include "bench/seeded_random.h"
#include "src/embed/blas_api.h"
#include "src/embed/local_embedder.h"
#include "src/embed/use_lite_encoder.h"

namespace engram {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  std::string model_path;      // converted model file (use_lite_convert)
  size_t sentences = 2000;     // batch part: sentences embedded per round
  size_t batch_size = 64;      // batch part: texts per Embed call
  size_t rounds = 3;           // batch part: timed rounds (median and best)
  size_t queries = 500;        // query part: timed single-text calls
  size_t warmup = 50;          // query part: untimed calls first
  std::string sentences_file;  // one sentence a line instead of generated
  std::string queries_file;    // one query a line instead of generated
  std::string sgemm_min_rows;  // a number, "max", or empty / "default"
  size_t threads = 0;          // UseLiteEncoderOptions::threads
  int blas_threads = 0;        // > 0: openblas_set_num_threads after load
};

double MillisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Word lists for the templates below; "{x}" in a template takes a random
// entry of list x.
struct Lexicon {
  std::vector<std::string> name = {"Alice", "Bob",   "Carol", "Dmitri", "Emma",  "Farid",
                                   "Grace", "Hiro",  "Ines",  "Jonas",  "Kemal", "Lena",
                                   "Maya",  "Nikos", "Olga",  "Priya",  "Quinn", "Rosa"};
  std::vector<std::string> thing = {"dark mode",       "tabs over spaces",  "short meetings",
                                    "written reports", "the standing desk", "green tea",
                                    "vim keybindings", "email over chat",   "morning standups"};
  std::vector<std::string> activity = {"coding", "reviews", "planning", "writing",
                                       "travel", "reading", "debugging"};
  std::vector<std::string> adjective = {"faster", "quieter", "cheaper", "simpler",
                                        "safer",  "easier",  "clearer"};
  std::vector<std::string> team = {"platform", "search", "billing",  "mobile",
                                   "design",   "data",   "security", "support"};
  std::vector<std::string> event = {"planning", "retro",  "design review",
                                    "budget",   "hiring", "launch"};
  std::vector<std::string> day = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"};
  std::vector<std::string> time = {"9 am", "10:30", "noon", "2 pm", "4 pm"};
  std::vector<std::string> company = {"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark"};
  std::vector<std::string> role = {"data engineer", "product manager",
                                   "designer",      "site reliability engineer",
                                   "accountant",    "nurse"};
  std::vector<std::string> city = {"Berlin",  "Lisbon", "Osaka", "Toronto",
                                   "Nairobi", "Austin", "Lyon"};
  std::vector<std::string> year = {"2015", "2018", "2019", "2021", "2023"};
  std::vector<std::string> food = {"peanuts", "shellfish", "gluten", "lactose", "sesame"};
  std::vector<std::string> service = {"payments", "auth", "search", "notification", "export"};
  std::vector<std::string> check = {"integration", "load", "security", "smoke"};
  std::vector<std::string> project = {"Atlas", "Beacon", "Comet", "Delta", "Echo", "Falcon"};
  std::vector<std::string> tech = {"Postgres", "Redis", "Kafka", "SQLite", "Rust", "Go", "React"};
  std::vector<std::string> relative = {"sister", "brother", "daughter", "son", "partner"};
  std::vector<std::string> pet = {"dog", "cat", "parrot", "rabbit"};

  const std::vector<std::string>& List(const std::string& key) const {
    if (key == "name") return name;
    if (key == "thing") return thing;
    if (key == "activity") return activity;
    if (key == "adjective") return adjective;
    if (key == "team") return team;
    if (key == "event") return event;
    if (key == "day") return day;
    if (key == "time") return time;
    if (key == "company") return company;
    if (key == "role") return role;
    if (key == "city") return city;
    if (key == "year") return year;
    if (key == "food") return food;
    if (key == "service") return service;
    if (key == "check") return check;
    if (key == "project") return project;
    if (key == "tech") return tech;
    if (key == "relative") return relative;
    return pet;
  }
};

// Fills the "{x}" slots of `pattern`.
std::string Expand(const std::string& pattern, const Lexicon& lexicon, SeededRandom* random) {
  std::string out;
  size_t pos = 0;
  while (pos < pattern.size()) {
    const size_t open = pattern.find('{', pos);
    if (open == std::string::npos) {
      out += pattern.substr(pos);
      break;
    }
    const size_t close = pattern.find('}', open);
    out += pattern.substr(pos, open - pos);
    out += random->Pick(lexicon.List(pattern.substr(open + 1, close - open - 1)));
    pos = close + 1;
  }
  return out;
}

// `count` texts, each a pattern picked at random and expanded, from `seed`.
std::vector<std::string> ExpandMany(const std::vector<std::string>& patterns, size_t count,
                                    uint64_t seed) {
  const Lexicon lexicon;
  SeededRandom random(seed);
  std::vector<std::string> texts;
  texts.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    texts.push_back(Expand(random.Pick(patterns), lexicon, &random));
  }
  return texts;
}

// Facts of the kind an agent stores, ~15 tokens each.
std::vector<std::string> GenerateFacts(size_t count) {
  const std::vector<std::string> patterns = {
      "{name} prefers {thing} for {activity} because it feels {adjective}.",
      "The {team} team moved the weekly {event} meeting to {day} at {time}.",
      "{name} has worked at {company} as a {role} since {year}.",
      "{name} is allergic to {food} and skips the team lunch.",
      "Deploy the {service} service only after the {check} tests pass.",
      "The {project} project keeps its data in {tech}.",
      "{name}'s {relative} lives in {city} and has a {pet}.",
      "{name} asked to be reminded about the {event} notes every {day} morning.",
      "On {day} the {service} outage was caused by an expired certificate.",
      "{name} and {name} share the on-call rotation for the {team} team.",
  };
  return ExpandMany(patterns, count, 20240501);
}

// Search queries, 5-12 words each.
std::vector<std::string> GenerateQueries(size_t count) {
  const std::vector<std::string> patterns = {
      "Where does {name} work?",
      "What does {name} prefer for {activity}?",
      "When is the {team} team {event} meeting?",
      "Which database does the {project} project use?",
      "Is {name} allergic to anything?",
      "who is on call for the {team} team this week",
      "what caused the {service} outage last {day}",
      "which tests must pass before deploying {service}",
      "where does {name}'s {relative} live",
      "what did {name} ask to be reminded about",
  };
  return ExpandMany(patterns, count, 7);
}

// Non-empty lines of `path`, at most `limit`, cycling the file when it is
// shorter. Empty on error (reported).
std::vector<std::string> ReadLines(const std::string& path, size_t limit) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.empty()) {
    std::cerr << "embed_speed: no lines read from " << path << "\n";
    return lines;
  }
  for (size_t i = 0; lines.size() < limit; ++i) lines.push_back(lines[i]);
  lines.resize(limit);
  return lines;
}

double MeanTokens(const UseLiteTokenizer& tokenizer, const std::vector<std::string>& texts) {
  size_t total = 0;
  for (const std::string& text : texts) {
    total += tokenizer.Encode(text, UseLiteTokenizer::kMaxModelTokens).size();
  }
  return texts.empty() ? 0.0 : static_cast<double>(total) / static_cast<double>(texts.size());
}

// The value at quantile q of sorted `values`, nearest rank.
double Quantile(const std::vector<double>& sorted, double q) {
  const size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size()) + 0.999999);
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

void Print(const std::string& key, const std::string& value) {
  std::cout << key << "\t" << value << "\n";
}

void Print(const std::string& key, double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  Print(key, std::string(text));
}

// Which dense product ran between two readings of the encoder's counters.
std::string DensePath(const UseLiteDenseCounts& before, const UseLiteDenseCounts& after) {
  const uint64_t sgemm = after.sgemm - before.sgemm;
  const uint64_t packed = after.packed - before.packed;
  if (packed == 0) return "sgemm";
  if (sgemm == 0) return "packed";
  return "mixed (" + std::to_string(sgemm) + " sgemm, " + std::to_string(packed) + " packed)";
}

int Run(const BenchOptions& options) {
  UseLiteEncoderOptions encoder_options;
  encoder_options.threads = options.threads;
  if (options.sgemm_min_rows == "max") {
    encoder_options.sgemm_min_rows = SIZE_MAX;
  } else if (!options.sgemm_min_rows.empty() && options.sgemm_min_rows != "default") {
    encoder_options.sgemm_min_rows = std::stoull(options.sgemm_min_rows);
  }
  const char* env_threads = std::getenv("OPENBLAS_NUM_THREADS");
  Print("openblas_num_threads_env", env_threads != nullptr ? env_threads : "(unset)");
  Print("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
  Print("encoder_threads_option", std::to_string(options.threads));
  Print("sgemm_min_rows", encoder_options.sgemm_min_rows == SIZE_MAX
                              ? std::string("max (never)")
                              : std::to_string(encoder_options.sgemm_min_rows));

  // Load.
  const Clock::time_point load_start = Clock::now();
  auto loaded = LocalEmbedder::Load(options.model_path, encoder_options);
  const double load_ms = MillisecondsSince(load_start);
  if (!loaded.ok()) {
    std::cerr << "embed_speed: " << loaded.status().ToString() << "\n";
    return 1;
  }
  const std::unique_ptr<LocalEmbedder> embedder = std::move(loaded).value();
  Print("load_ms", load_ms, 1);
  // OpenBLAS is loaded here, if the batches would not load it anyway.
  const Result<const BlasApi*> blas = Blas();
  if (!blas.ok()) {
    std::cerr << "embed_speed: " << blas.status().ToString() << "\n";
    return 1;
  }
  if (options.blas_threads > 0) (*blas)->set_num_threads(options.blas_threads);
  Print("openblas_threads", std::to_string((*blas)->get_num_threads()));
  const UseLiteEncoder& encoder = embedder->Encoder();
  const UseLiteTokenizer& tokenizer = encoder.Tokenizer();

  const std::vector<std::string> facts = options.sentences_file.empty()
                                             ? GenerateFacts(options.sentences)
                                             : ReadLines(options.sentences_file, options.sentences);
  const std::vector<std::string> queries =
      options.queries_file.empty()
          ? GenerateQueries(options.queries + options.warmup)
          : ReadLines(options.queries_file, options.queries + options.warmup);
  if (facts.empty() || queries.empty()) return 1;

  // Batch throughput.
  const size_t batch_size = std::max<size_t>(options.batch_size, 1);
  Print("batch_sentences", std::to_string(facts.size()));
  Print("batch_size", std::to_string(batch_size));
  Print("batch_mean_tokens", MeanTokens(tokenizer, facts), 1);
  auto embed_range = [&](size_t begin, size_t end) {
    const std::vector<std::string> batch(facts.begin() + static_cast<ptrdiff_t>(begin),
                                         facts.begin() + static_cast<ptrdiff_t>(end));
    auto vectors = embedder->Embed(batch, EmbedPurpose::kDocument);
    if (!vectors.ok() || vectors->size() != batch.size()) {
      std::cerr << "embed_speed: " << vectors.status().ToString() << "\n";
      std::exit(1);
    }
  };
  embed_range(0, std::min(batch_size, facts.size()));  // warm-up
  const UseLiteDenseCounts batch_before = encoder.DenseCounts();
  std::vector<double> rates;
  std::vector<double> cpu_ms_per_sentence;
  for (size_t round = 0; round < std::max<size_t>(options.rounds, 1); ++round) {
    const Clock::time_point start = Clock::now();
    const double cpu_start = CpuMilliseconds(CLOCK_PROCESS_CPUTIME_ID);
    for (size_t begin = 0; begin < facts.size(); begin += batch_size) {
      embed_range(begin, std::min(begin + batch_size, facts.size()));
    }
    rates.push_back(static_cast<double>(facts.size()) / (MillisecondsSince(start) / 1000.0));
    cpu_ms_per_sentence.push_back((CpuMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start) /
                                  static_cast<double>(facts.size()));
  }
  std::sort(rates.begin(), rates.end());
  std::sort(cpu_ms_per_sentence.begin(), cpu_ms_per_sentence.end());
  Print("batch_rounds", std::to_string(rates.size()));
  Print("batch_sentences_per_s_median", rates[rates.size() / 2], 0);
  Print("batch_sentences_per_s_best", rates.back(), 0);
  Print("batch_cpu_ms_per_sentence_median", cpu_ms_per_sentence[cpu_ms_per_sentence.size() / 2], 3);
  Print("batch_dense_path", DensePath(batch_before, encoder.DenseCounts()));

  // Single-query latency.
  Print("query_count", std::to_string(options.queries));
  Print("query_mean_tokens", MeanTokens(tokenizer, queries), 1);
  std::vector<double> latencies;
  std::vector<double> cpu_latencies;
  latencies.reserve(queries.size());
  const UseLiteDenseCounts query_before = encoder.DenseCounts();
  for (size_t i = 0; i < queries.size(); ++i) {
    const Clock::time_point start = Clock::now();
    const double cpu_start = CpuMilliseconds(CLOCK_THREAD_CPUTIME_ID);
    auto vectors = embedder->Embed({queries[i]}, EmbedPurpose::kQuery);
    const double cpu_ms = CpuMilliseconds(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
    const double ms = MillisecondsSince(start);
    if (!vectors.ok()) {
      std::cerr << "embed_speed: " << vectors.status().ToString() << "\n";
      return 1;
    }
    if (i >= options.warmup) {
      latencies.push_back(ms);
      cpu_latencies.push_back(cpu_ms);
    }
  }
  std::sort(latencies.begin(), latencies.end());
  std::sort(cpu_latencies.begin(), cpu_latencies.end());
  double total = 0.0;
  for (const double ms : latencies) total += ms;
  Print("query_ms_p50", Quantile(latencies, 0.50), 2);
  Print("query_ms_p95", Quantile(latencies, 0.95), 2);
  Print("query_ms_p99", Quantile(latencies, 0.99), 2);
  Print("query_ms_mean", total / static_cast<double>(latencies.size()), 2);
  Print("query_cpu_ms_p50", Quantile(cpu_latencies, 0.50), 2);
  Print("query_dense_path", DensePath(query_before, encoder.DenseCounts()));

  // The tokenizer alone.
  const Clock::time_point tokenize_start = Clock::now();
  size_t tokens = 0;
  for (const std::string& query : queries) tokens += tokenizer.Encode(query).size();
  const double tokenize_ms = MillisecondsSince(tokenize_start);
  Print("tokenize_us_per_query", 1000.0 * tokenize_ms / static_cast<double>(queries.size()), 1);
  return tokens > 0 ? 0 : 1;
}

}  // namespace
}  // namespace engram

int main(int argc, char** argv) {
  engram::BenchOptions options;
  CLI::App app{"Embedding speed of the embedded USE-Lite model (provider local)"};
  app.add_option("--model", options.model_path, "Model file written by use_lite_convert")
      ->required();
  app.add_option("--sentences", options.sentences, "Sentences embedded per batch round");
  app.add_option("--batch", options.batch_size, "Texts per Embed call in the batch part");
  app.add_option("--rounds", options.rounds, "Timed batch rounds");
  app.add_option("--queries", options.queries, "Timed single-query calls");
  app.add_option("--warmup", options.warmup, "Untimed single-query calls first");
  app.add_option("--sentences-file", options.sentences_file,
                 "One sentence a line, instead of generated facts");
  app.add_option("--queries-file", options.queries_file,
                 "One query a line, instead of generated queries");
  app.add_option("--sgemm-min-rows", options.sgemm_min_rows,
                 "Least rows for a dense product on OpenBLAS sgemm: a number (1: always), "
                 "max (never) or default")
      ->check(CLI::IsMember({"default", "max"}) | CLI::NonNegativeNumber);
  app.add_option("--threads", options.threads, "Encoder threads per call (0: its default)");
  app.add_option("--blas-threads", options.blas_threads,
                 "Set OpenBLAS to this many threads after load, overriding the encoder");
  CLI11_PARSE(app, argc, argv);
  return engram::Run(options);
}
