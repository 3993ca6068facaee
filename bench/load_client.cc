// load_client: drives `engram serve` with concurrent clients and checks
// that nothing acknowledged was lost (bench/load_test.sh runs it).
//
//   load_client --port P --queries Q.txt --facts F.txt [--clients 50]
//     [--searches 10000] [--adds 1000] [--rate R] [--max-seconds 600]
//
// The run is a fixed sequence of requests: searches (queries from Q.txt in
// turn) with one add (the next line of F.txt) after every searches/adds of
// them, so writes interleave with reads throughout. Each client thread
// holds one keep-alive connection and takes the next request of the
// sequence when it is free.
//
// --rate R > 0 offers R requests per second in all (an open loop: request
// i is due at start + i/R, and its latency counts from then, so a server
// that falls behind pays for the queue it built). --rate 0 sends as fast as
// the clients can (a closed loop: the server's capacity).
//
// --server-pid PID (with --clients 1) also reads the server process's CPU
// clock (every thread's user + system time, clock_getcpuclockid) before
// sending each request and after reading its answer, and reports those
// per-request CPU times as "server_cpu" of searches and of adds. Work the
// server does between requests (such as flushing access counts) falls
// outside every request, so a phase's CPU divided by its requests can be
// higher than their mean.
//
// Afterwards every add the server acknowledged is read back by id and its
// content compared, and the store's fact count is checked against the count
// before plus the new facts. Prints one JSON object; exits 1 when a request
// failed or a fact is missing.
#include <httplib.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/cpu_time.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

json Summary(const std::vector<double>& ms) {
  double sum = 0;
  for (const double m : ms) sum += m;
  return {{"count", ms.size()},
          {"mean_ms", ms.empty() ? 0.0 : sum / static_cast<double>(ms.size())},
          {"p50_ms", Percentile(ms, 0.50)},
          {"p95_ms", Percentile(ms, 0.95)},
          {"p99_ms", Percentile(ms, 0.99)},
          {"max_ms", ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end())}};
}

// The number of facts in scope "default", from GET /v1/config.
int64_t FactCount(httplib::Client& client) {
  auto r = client.Get("/v1/config");
  if (!r || r->status != 200) return -1;
  const json body = json::parse(r->body, nullptr, false);
  return body["store"]["scopes"].value("default", int64_t{0});
}

struct Acknowledged {
  std::string id;
  std::string content;
  bool created = false;  // false: the text was stored already and merged
  // Merged into a fact of nearly the same text, which kept its own: the
  // id names that fact (versions.merge_near_duplicates).
  bool near_duplicate = false;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Drives engram serve with concurrent clients; checks that no fact is lost"};
  std::string host = "127.0.0.1";
  int port = 0;
  std::string queries_path, facts_path;
  int clients = 50;
  size_t searches = 10000, adds = 1000;
  double rate = 0;
  double max_seconds = 600;
  int server_pid = 0;
  app.add_option("--host", host);
  app.add_option("--port", port)->required();
  app.add_option("--queries", queries_path, "One query per line")->required();
  app.add_option("--facts", facts_path, "One fact to add per line")->required();
  app.add_option("--clients", clients)->check(CLI::Range(1, 1000));
  app.add_option("--searches", searches);
  app.add_option("--adds", adds);
  app.add_option("--rate", rate, "Requests offered per second in all; 0: as fast as possible");
  app.add_option("--max-seconds", max_seconds, "Stop sending after this long");
  app.add_option("--server-pid", server_pid,
                 "Also report the server's CPU time per request (needs --clients 1)");
  CLI11_PARSE(app, argc, argv);
  clockid_t server_clock{};
  if (server_pid != 0) {
    if (clients != 1) {
      std::cerr << "load_client: --server-pid needs --clients 1: with more, requests overlap\n";
      return 2;
    }
    if (clock_getcpuclockid(server_pid, &server_clock) != 0) {
      std::cerr << "load_client: cannot read the CPU clock of process " << server_pid << "\n";
      return 2;
    }
  }

  const std::vector<std::string> queries = ReadLines(queries_path);
  const std::vector<std::string> facts = ReadLines(facts_path);
  if (queries.empty() || facts.size() < adds) {
    std::cerr << "load_client: need queries and at least " << adds << " facts\n";
    return 2;
  }
  const size_t total = searches + adds;
  const size_t every = adds == 0 ? total + 1 : std::max<size_t>(1, total / adds);

  httplib::Client control(host, port);
  const int64_t facts_before = FactCount(control);
  if (facts_before < 0) {
    std::cerr << "load_client: no answer from " << host << ":" << port << "\n";
    return 1;
  }

  std::atomic<size_t> next{0}, next_query{0};
  std::atomic<int64_t> errors{0};
  std::mutex mutex;
  std::vector<double> search_ms, add_ms, search_cpu_ms, add_cpu_ms;
  std::vector<Acknowledged> acknowledged;
  std::vector<std::string> error_samples;
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop_at = start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(max_seconds));

  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      httplib::Client client(host, port);
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      client.set_read_timeout(60, 0);
      client.set_connection_timeout(10, 0);
      std::vector<double> my_search, my_add, my_search_cpu, my_add_cpu;
      std::vector<Acknowledged> my_ack;
      for (;;) {
        const size_t i = next.fetch_add(1);
        if (i >= total) break;
        Clock::time_point due = Clock::now();
        if (rate > 0) {
          due = start + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(static_cast<double>(i) / rate));
          std::this_thread::sleep_until(due);
        }
        if (Clock::now() > stop_at) break;
        const bool is_add = (i + 1) % every == 0 && (i + 1) / every <= adds;
        std::string path, body, content;
        if (is_add) {
          const size_t f = (i + 1) / every - 1;
          content = json::parse(facts[f])["content"];
          path = "/v1/facts";
          body = json{{"content", content}, {"tags", {"load"}}}.dump();
        } else {
          const size_t q = next_query.fetch_add(1);
          path = "/v1/search";
          body = json{{"query", queries[q % queries.size()]}, {"k", 10}}.dump();
        }
        const double cpu_before = server_pid != 0 ? engram::CpuMilliseconds(server_clock) : 0;
        auto r = client.Post(path, body, "application/json");
        const double cpu_ms =
            server_pid != 0 ? engram::CpuMilliseconds(server_clock) - cpu_before : 0;
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - due).count();
        const bool ok = r && (r->status == 200 || r->status == 201);
        if (!ok) {
          ++errors;
          std::lock_guard lock(mutex);
          if (error_samples.size() < 5) {
            error_samples.push_back(
                path + " at " +
                std::to_string(std::chrono::duration<double>(Clock::now() - start).count()) +
                " s after " + std::to_string(ms) + " ms: " +
                (r ? std::to_string(r->status) + " " + r->body.substr(0, 200)
                   : httplib::to_string(r.error())));
          }
          continue;
        }
        if (is_add) {
          my_add.push_back(ms);
          if (server_pid != 0) my_add_cpu.push_back(cpu_ms);
          const json answer = json::parse(r->body, nullptr, false);
          const json& fact = answer["facts"][0];
          my_ack.push_back({fact.value("id", ""), content, fact.value("created", false),
                            fact.contains("near_duplicate")});
        } else {
          my_search.push_back(ms);
          if (server_pid != 0) my_search_cpu.push_back(cpu_ms);
        }
      }
      std::lock_guard lock(mutex);
      search_ms.insert(search_ms.end(), my_search.begin(), my_search.end());
      add_ms.insert(add_ms.end(), my_add.begin(), my_add.end());
      search_cpu_ms.insert(search_cpu_ms.end(), my_search_cpu.begin(), my_search_cpu.end());
      add_cpu_ms.insert(add_cpu_ms.end(), my_add_cpu.begin(), my_add_cpu.end());
      acknowledged.insert(acknowledged.end(), my_ack.begin(), my_ack.end());
    });
  }
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // Every acknowledged add, read back: its text under its id, or, merged
  // as a near-duplicate, the fact it names.
  int64_t missing = 0;
  std::vector<std::string> missing_samples;
  for (const Acknowledged& a : acknowledged) {
    auto r = control.Get("/v1/facts/" + a.id);
    const json body = r ? json::parse(r->body, nullptr, false) : json();
    if (!r || r->status != 200 || (!a.near_duplicate && body.value("content", "") != a.content)) {
      ++missing;
      if (missing_samples.size() < 5) missing_samples.push_back(a.id);
    }
  }
  // An add whose text was stored already merges; the server says which.
  const auto created = static_cast<int64_t>(std::count_if(
      acknowledged.begin(), acknowledged.end(), [](const Acknowledged& a) { return a.created; }));
  const int64_t facts_after = FactCount(control);
  const bool count_ok = facts_after == facts_before + created;

  json search_summary = Summary(search_ms), add_summary = Summary(add_ms);
  if (server_pid != 0) {
    search_summary["server_cpu"] = Summary(search_cpu_ms);
    add_summary["server_cpu"] = Summary(add_cpu_ms);
  }
  const json out = {
      {"clients", clients},
      {"offered_rate", rate},
      {"seconds", seconds},
      {"requests", search_ms.size() + add_ms.size()},
      {"throughput_rps", static_cast<double>(search_ms.size() + add_ms.size()) / seconds},
      {"errors", errors.load()},
      {"error_samples", error_samples},
      {"search", search_summary},
      {"add", add_summary},
      {"acknowledged_adds", acknowledged.size()},
      {"created", created},
      {"missing_facts", missing},
      {"missing_samples", missing_samples},
      {"facts_before", facts_before},
      {"facts_after", facts_after},
      {"count_ok", count_ok},
  };
  std::cout << out.dump(2) << "\n";
  const bool complete = search_ms.size() + add_ms.size() == total;
  return errors == 0 && missing == 0 && count_ok && complete ? 0 : 1;
}
