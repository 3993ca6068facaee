// The background backfill: the worker's own contract, and the engine
// embedding missing facts behind searches from several threads, then
// shutting down mid-step. Also built and run under ThreadSanitizer by
// `make test` (scripts/tsan.sh, in the build-tsan tree).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engram/engine.h"
#include "src/engine/backfill_worker.h"
#include "tests/test_embedders.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using namespace std::chrono_literals;

TEST(BackfillWorkerTest, PokesFromManyThreadsFoldIntoSteps) {
  std::atomic<int> ran{0};
  {
    BackfillWorker worker([&](const std::atomic<bool>&) { ran.fetch_add(1); });
    std::vector<std::thread> pokers;
    for (int t = 0; t < 4; ++t) {
      pokers.emplace_back([&] {
        for (int i = 0; i < 500; ++i) worker.Poke();
      });
    }
    for (auto& t : pokers) t.join();
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (ran.load() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    EXPECT_GE(ran.load(), 1);
    EXPECT_LE(ran.load(), 2000);
  }
  const int after = ran.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(ran.load(), after);  // nothing runs after destruction
}

TEST(BackfillWorkerTest, DestructionStopsARunningStep) {
  std::atomic<bool> started{false};
  std::atomic<bool> saw_stop{false};
  {
    BackfillWorker worker([&](const std::atomic<bool>& stop) {
      started.store(true);
      while (!stop.load()) std::this_thread::sleep_for(1ms);
      saw_stop.store(true);
    });
    worker.Poke();
    while (!started.load()) std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(saw_stop.load());
}

TEST(BackfillWorkerTest, NoPokeNoStep) {
  std::atomic<int> ran{0};
  {
    BackfillWorker worker([&](const std::atomic<bool>&) { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 0);
}

std::shared_ptr<const Embedder> Concepts() {
  return std::make_shared<testing::ConceptEmbedder>(std::vector<std::vector<std::string>>{
      {"red", "crimson"}, {"blue", "azure"}, {"green", "olive"}, {"lamp", "light"}});
}

TEST(EngineBackfillTest, SearchesDriveTheWorkerUntilEveryFactHasAVector) {
  testing::TempDir dir;
  EngineOptions o;
  o.db_path = dir.File("memory.db");
  constexpr size_t kFacts = 600;
  {
    auto engine = Engine::Open(o);  // keyword-only: no vectors yet
    ASSERT_TRUE(engine.ok());
    std::vector<NewFact> facts(kFacts);
    const char* colours[] = {"red", "blue", "green"};
    for (size_t i = 0; i < kFacts; ++i) {
      facts[i].content =
          std::string("fact ") + std::to_string(i) + " about a " + colours[i % 3] + " lamp";
    }
    ASSERT_TRUE((*engine)->Import(facts, {}).ok());
  }
  o.embedder = Concepts();
  o.vector.backfill_batch_max = 100;
  o.vector.embed_batch = 16;
  auto engine = Engine::Open(o);
  ASSERT_TRUE(engine.ok());
  EXPECT_EQ((*engine)->Stats()->missing_vectors, static_cast<int64_t>(kFacts));

  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> searchers;
  for (int t = 0; t < 2; ++t) {
    searchers.emplace_back([&, t] {
      SearchOptions s;
      s.k = 5;
      s.record_access = t == 0;  // one thread also writes
      while (!done.load()) {
        auto r = (*engine)->Search(t == 0 ? "red lamp" : "azure light", s);
        if (!r.ok()) failures.fetch_add(1);
        std::this_thread::sleep_for(2ms);
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  int64_t missing = static_cast<int64_t>(kFacts);
  while (missing > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
    auto stats = (*engine)->Stats();
    ASSERT_TRUE(stats.ok());
    missing = stats->missing_vectors;
  }
  done.store(true);
  for (auto& t : searchers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(missing, 0);
  EXPECT_EQ((*engine)->Stats()->vectors, static_cast<int64_t>(kFacts));
  // The semantic signal now finds synonyms: "azure light" has no word of
  // any fact but its concepts match the blue lamps.
  auto r = (*engine)->Search("azure light", SearchOptions{});
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->hits.empty());
  EXPECT_NE(r->hits[0].fact.content.find("blue"), std::string::npos);
}

TEST(EngineBackfillTest, ClosingTheEngineMidStepIsClean) {
  testing::TempDir dir;
  EngineOptions o;
  o.db_path = dir.File("memory.db");
  {
    auto engine = Engine::Open(o);
    ASSERT_TRUE(engine.ok());
    std::vector<NewFact> facts(800);
    for (size_t i = 0; i < facts.size(); ++i) {
      facts[i].content = "red lamp number " + std::to_string(i);
    }
    ASSERT_TRUE((*engine)->Import(facts, {}).ok());
  }
  o.embedder = Concepts();
  o.vector.embed_batch = 8;
  for (int round = 0; round < 5; ++round) {
    auto engine = Engine::Open(o);
    ASSERT_TRUE(engine.ok());
    ASSERT_TRUE((*engine)->Search("red lamp", SearchOptions{}).ok());  // pokes
    std::this_thread::sleep_for(std::chrono::milliseconds(round * 3));
    // Destroyed here, mid-step or not.
  }
  auto engine = Engine::Open(o);
  ASSERT_TRUE(engine.ok());
  auto stats = (*engine)->Stats();
  ASSERT_TRUE(stats.ok());
  // Whatever was committed is whole: every vector belongs to a fact.
  EXPECT_EQ(stats->vectors + stats->missing_vectors, 800);
}

}  // namespace
}  // namespace engram
