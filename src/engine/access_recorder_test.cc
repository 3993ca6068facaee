// Searches' access bookkeeping off their path: the recorder's own contract
// (behind its Write seam), then the engine on a real SQLite file: counts
// written after the delay, on reads and on close, and searches that go on
// while another process holds the write lock. Also built and run under
// ThreadSanitizer by `make test` (the build-tsan tree).
#include "src/engine/access_recorder.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "engram/engine.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using namespace std::chrono_literals;

// The batches a recorder wrote; fails the writes while `failing` is set.
class Batches {
 public:
  AccessRecorder::Write Writer() {
    return [this](const std::vector<AccessCount>& batch, bool /*queued*/) {
      std::lock_guard lock(mutex_);
      if (failing_) return IOError("disk full");
      written_.push_back(batch);
      return Status::OK();
    };
  }
  void SetFailing(bool failing) {
    std::lock_guard lock(mutex_);
    failing_ = failing;
  }
  std::vector<std::vector<AccessCount>> Written() {
    std::lock_guard lock(mutex_);
    return written_;
  }
  // Every count written, summed per row.
  std::map<int64_t, int64_t> Totals() {
    std::map<int64_t, int64_t> totals;
    for (const auto& batch : Written()) {
      for (const AccessCount& c : batch) totals[c.rowid] += c.count;
    }
    return totals;
  }
  // Waits up to 10 s for a first batch.
  bool AwaitOne() {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (Written().empty() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
    return !Written().empty();
  }

 private:
  std::mutex mutex_;
  bool failing_ = false;
  std::vector<std::vector<AccessCount>> written_;
};

TEST(AccessRecorderTest, NoDelayWritesBeforeRecordReturns) {
  Batches batches;
  AccessRecorder recorder(batches.Writer());
  ASSERT_TRUE(recorder.Record({{"s", 7, "seven"}}, 1000, 0).ok());
  const auto written = batches.Written();
  ASSERT_EQ(written.size(), 1u);
  ASSERT_EQ(written[0].size(), 1u);
  EXPECT_EQ(written[0][0].scope, "s");
  EXPECT_EQ(written[0][0].rowid, 7);
  EXPECT_EQ(written[0][0].id, "seven");
  EXPECT_EQ(written[0][0].count, 1);
  EXPECT_EQ(written[0][0].last, 1000);
}

TEST(AccessRecorderTest, SearchesWithinTheDelayMergeIntoOneBatchInRowOrder) {
  Batches batches;
  AccessRecorder recorder(batches.Writer());
  ASSERT_TRUE(recorder.Record({{"s", 9, "nine"}, {"s", 3, "three"}}, 2000, 60000).ok());
  ASSERT_TRUE(recorder.Record({{"s", 3, "three"}}, 1500, 60000).ok());
  ASSERT_TRUE(recorder.Record({{"s", 3, "three"}}, 2500, 60000).ok());
  EXPECT_TRUE(batches.Written().empty());  // not due for a minute
  ASSERT_TRUE(recorder.Flush().ok());
  const auto written = batches.Written();
  ASSERT_EQ(written.size(), 1u);
  ASSERT_EQ(written[0].size(), 2u);
  EXPECT_EQ(written[0][0].rowid, 3);
  EXPECT_EQ(written[0][0].count, 3);
  EXPECT_EQ(written[0][0].last, 2500);
  EXPECT_EQ(written[0][1].rowid, 9);
  EXPECT_EQ(written[0][1].count, 1);
  EXPECT_EQ(recorder.TakeProblem(), std::nullopt);
}

TEST(AccessRecorderTest, TheThreadWritesOnceTheDelayIsUp) {
  Batches batches;
  AccessRecorder recorder(batches.Writer());
  ASSERT_TRUE(recorder.Record({{"s", 1, "one"}}, 1000, 5).ok());
  ASSERT_TRUE(batches.AwaitOne());
  EXPECT_EQ(batches.Totals(), (std::map<int64_t, int64_t>{{1, 1}}));
}

TEST(AccessRecorderTest, DestructionWritesWhatIsQueued) {
  Batches batches;
  {
    AccessRecorder recorder(batches.Writer());
    ASSERT_TRUE(recorder.Record({{"s", 1, "one"}, {"s", 2, "two"}}, 1000, 60000).ok());
    EXPECT_TRUE(batches.Written().empty());
  }
  EXPECT_EQ(batches.Totals(), (std::map<int64_t, int64_t>{{1, 1}, {2, 1}}));
}

TEST(AccessRecorderTest, AFailedQueuedWriteIsKeptReportedOnceAndWrittenNextTime) {
  Batches batches;
  AccessRecorder recorder(batches.Writer());
  batches.SetFailing(true);
  const Status failed = recorder.Record({{"s", 4, "four"}}, 1000, 0);
  EXPECT_EQ(failed.message(), "disk full");
  // Record's caller reports its own failure, and nothing is kept of it.
  EXPECT_EQ(recorder.TakeProblem(), std::nullopt);

  ASSERT_TRUE(recorder.Record({{"s", 4, "four"}}, 2000, 60000).ok());
  ASSERT_TRUE(recorder.Record({{"s", 4, "four"}}, 3000, 60000).ok());
  EXPECT_FALSE(recorder.Flush().ok());
  const std::optional<std::string> problem = recorder.TakeProblem();
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "access of 1 fact(s) not recorded yet, retrying: disk full");
  EXPECT_EQ(recorder.TakeProblem(), std::nullopt);  // said once

  batches.SetFailing(false);
  ASSERT_TRUE(recorder.Flush().ok());
  const auto written = batches.Written();
  ASSERT_EQ(written.size(), 1u);
  ASSERT_EQ(written[0].size(), 1u);
  EXPECT_EQ(written[0][0].count, 2);  // the two queued searches, counted once each
  EXPECT_EQ(written[0][0].last, 3000);
  ASSERT_TRUE(recorder.Flush().ok());
  EXPECT_EQ(batches.Written().size(), 1u);  // nothing left to write
}

TEST(AccessRecorderTest, ARowThatHoldsAnotherFactNowStartsAfresh) {
  Batches batches;
  AccessRecorder recorder(batches.Writer());
  ASSERT_TRUE(recorder.Record({{"s", 5, "old"}}, 1000, 60000).ok());
  ASSERT_TRUE(recorder.Record({{"s", 5, "old"}}, 1000, 60000).ok());
  ASSERT_TRUE(recorder.Record({{"s", 5, "new"}}, 2000, 60000).ok());
  ASSERT_TRUE(recorder.Flush().ok());
  const auto written = batches.Written();
  ASSERT_EQ(written.size(), 1u);
  ASSERT_EQ(written[0].size(), 1u);
  EXPECT_EQ(written[0][0].id, "new");
  EXPECT_EQ(written[0][0].count, 1);
}

TEST(AccessRecorderTest, BeyondTheQueueLimitFactsAreDroppedAndCounted) {
  Batches batches;
  AccessRecorder recorder(batches.Writer());
  std::vector<AccessRecorder::Served> served;
  for (size_t i = 0; i < AccessRecorder::kMaxPendingFacts + 3; ++i) {
    served.push_back({"s", static_cast<int64_t>(i + 1), "f"});
  }
  ASSERT_TRUE(recorder.Record(served, 1000, 60000).ok());
  const std::optional<std::string> problem = recorder.TakeProblem();
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "access of 3 fact(s) not recorded: more than 65536 facts were waiting");
  ASSERT_TRUE(recorder.Flush().ok());
  EXPECT_EQ(batches.Totals().size(), AccessRecorder::kMaxPendingFacts);
}

TEST(AccessRecorderTest, ManyThreadsRecordingWhileItWritesLoseNothing) {
  Batches batches;
  constexpr int kThreads = 4;
  constexpr int kSearches = 500;
  {
    AccessRecorder recorder(batches.Writer());
    std::vector<std::thread> searchers;
    for (int t = 0; t < kThreads; ++t) {
      searchers.emplace_back([&, t] {
        for (int i = 0; i < kSearches; ++i) {
          EXPECT_TRUE(recorder.Record({{"s", 1, "shared"}, {"s", 10 + t, "own"}}, i, 1).ok());
          if (i % 100 == 0) {
            EXPECT_TRUE(recorder.Flush().ok());
          }
        }
      });
    }
    for (auto& t : searchers) t.join();
  }
  std::map<int64_t, int64_t> expected = {{1, kThreads * kSearches}};
  for (int t = 0; t < kThreads; ++t) expected[10 + t] = kSearches;
  EXPECT_EQ(batches.Totals(), expected);
}

// The engine on a real file: what a search queues reaches the store.
class EngineAccessTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(int delay_ms) {
    EngineOptions o;
    o.db_path = dir_.File("memory.db");
    o.access_delay_ms = delay_ms;
    o.busy_timeout_ms = 100;
    auto engine = Engine::Open(o);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    return engine.ok() ? std::move(*engine) : nullptr;
  }
  // The access count of the one fact, as stored.
  int64_t StoredCount(Engine& reader) {
    auto facts = reader.List({});
    EXPECT_TRUE(facts.ok());
    return facts.ok() && facts->size() == 1 ? (*facts)[0].access_count : -1;
  }

  // Adds the one fact the tests search for.
  static void AddFact(Engine& engine) {
    NewFact fact;
    fact.content = "Postgres listens on port 5433";
    ASSERT_TRUE(engine.Add(fact).ok());
  }

  testing::TempDir dir_;
};

TEST_F(EngineAccessTest, ASearchsCountIsWrittenByTheFirstReadOrOnClose) {
  std::unique_ptr<Engine> engine = Open(60000);
  ASSERT_NE(engine, nullptr);
  AddFact(*engine);
  auto found = engine->Search("postgres port", {});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_EQ(found->hits[0].fact.access_count, 1);  // the hit shows its own access
  EXPECT_TRUE(found->warnings.empty());

  std::unique_ptr<Engine> other = Open(60000);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(StoredCount(*other), 0);   // queued in the first engine, not yet written
  EXPECT_EQ(StoredCount(*engine), 1);  // its own read writes what waits first
  ASSERT_TRUE(engine->Search("postgres port", {}).ok());
  engine.reset();
  EXPECT_EQ(StoredCount(*other), 2);  // closing wrote the rest
}

TEST_F(EngineAccessTest, SearchesGoOnWhileAnotherProcessHoldsTheWriteLock) {
  std::unique_ptr<Engine> engine = Open(1);
  ASSERT_NE(engine, nullptr);
  AddFact(*engine);

  sqlite3* blocker = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.File("memory.db").c_str(), &blocker), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  bool told = false;
  for (int i = 0; i < 20; ++i) {
    auto found = engine->Search("postgres port", {});
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    ASSERT_EQ(found->hits.size(), 1u);
    for (const std::string& w : found->warnings) {
      EXPECT_EQ(w.rfind("access of 1 fact(s) not recorded yet, retrying: ", 0), 0u) << w;
      told = true;
    }
    std::this_thread::sleep_for(20ms);  // lets the thread try, and fail, to write
  }
  EXPECT_TRUE(told);  // the failed background writes were reported
  ASSERT_EQ(sqlite3_exec(blocker, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(blocker);

  EXPECT_EQ(StoredCount(*engine), 20);  // every search counted once, none lost
}

}  // namespace
}  // namespace engram
