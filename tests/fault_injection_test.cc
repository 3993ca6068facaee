// Faults below the store, through every mutating operation of the engine.
//
// Each operation runs on a fresh store with the N-th read, write, sync or
// lock of its SQLite files failing (src/store/testing/fault_vfs.h), and a
// full disk (SQLITE_FULL on the N-th write), for N = 0, 1, 2, ... until the
// operation no longer meets the fault. After each fault:
//   - the operation failed with an error that says so, and the store reads
//     exactly as before it; or it succeeded with a warning where it is
//     documented to degrade (vectors stored after their facts, access
//     counts, the HNSW file), its effect whole;
//   - nothing half-written is visible: Engine::Check finds nothing wrong,
//     and a second engine opened on the file reads the same store;
//   - with the fault cleared, the next add and search succeed.
// The HNSW file is written outside SQLite; its faults are real ones (a
// file-size limit, a directory where the file should be).
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include "engram/clock.h"
#include "engram/engine.h"
#include "src/store/fact_codec.h"
#include "src/store/sqlite/schema.h"
#include "src/store/testing/fault_vfs.h"
#include "tests/store_for_test.h"
#include "tests/test_embedders.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using testing::FaultVfs;
using testing::FileFault;
using testing::FileOp;

constexpr Timestamp kNow = 1780000000000;  // 2026-05-28
constexpr Timestamp kDay = 86400000;
// Most faults swept per operation and kind: every operation here meets
// fewer calls than this, which the sweep checks.
constexpr int64_t kMaxSkip = 400;

// What an operation did: its status and the warnings of a success.
struct Outcome {
  Status status;
  std::vector<std::string> warnings;
};

template <typename T>
Outcome OutcomeOf(const Result<T>& r) {
  if (!r.ok()) return {r.status(), {}};
  if constexpr (requires { r->warnings; }) return {Status::OK(), r->warnings};
  return {Status::OK(), {}};
}

std::shared_ptr<const Embedder> TestEmbedder() {
  return std::make_shared<testing::ConceptEmbedder>(
      std::vector<std::vector<std::string>>{{"postgres", "database", "port"},
                                            {"deploy", "release", "friday"},
                                            {"tab", "indent", "code"},
                                            {"cluster", "frankfurt", "staging"},
                                            {"cache", "redis"}});
}

// A fault to sweep: its kind and the error it returns.
struct FaultKind {
  std::string name;
  FileOp op;
  int error;  // 0: the VFS's default for the kind
};

const std::vector<FaultKind>& FaultKinds() {
  static const std::vector<FaultKind> kinds = {
      {"read", FileOp::kRead, 0},
      {"write", FileOp::kWrite, 0},
      {"disk full", FileOp::kWrite, SQLITE_FULL},
      {"sync", FileOp::kSync, 0},
      {"lock", FileOp::kLock, 0},
  };
  return kinds;
}

class FaultInjectionTest : public ::testing::Test {
 protected:
  // Opens an engine on the test's file, every connection through the VFS.
  Result<std::unique_ptr<Engine>> Open(bool embed = true) const {
    EngineOptions o;
    o.db_path = dir_.File("memory.db");
    o.clock = clock_;
    o.embedder = embed ? TestEmbedder() : nullptr;
    o.vector.background_backfill = false;
    o.vector.hnsw_threshold = hnsw_threshold_;
    o.vector.hnsw_save_delay_ms = 0;  // a failed save shows in the search that made it
    // A search writes its access counts before it returns, so the faults
    // meet that write (the queued path writes the same way, on its own
    // connection: src/engine/access_recorder_test.cc).
    o.access_delay_ms = 0;
    return Engine::Open(o);
  }

  std::unique_ptr<Engine> OpenOrDie(bool embed = true) const {
    auto engine = Open(embed);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    return engine.ok() ? std::move(*engine) : nullptr;
  }

  // A fresh store of five facts, one with a replaced version, one about to
  // expire; without vectors unless `embed`.
  void Seed(bool embed = true) {
    std::filesystem::remove_all(dir_.path());
    std::filesystem::create_directories(dir_.path());
    auto engine = OpenOrDie(embed);
    ASSERT_NE(engine, nullptr);
    for (const auto& [content, tags] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"Postgres listens on port 5433", {"db"}},
             {"The deploy runs every friday", {"ops"}},
             {"Alice prefers tabs in Go code", {"style"}},
             {"The staging cluster lives in frankfurt", {"ops"}}}) {
      NewFact f;
      f.content = content;
      f.tags = tags;
      ASSERT_TRUE(engine->Add(f).ok());
    }
    UpdateRequest update;
    update.id = ComputeFactId("Alice prefers tabs in Go code");
    update.replacement.content = "Alice prefers tabs in all code";
    ASSERT_TRUE(engine->Update(update).ok());
    NewFact expiring;
    expiring.content = "The release freeze lasts until friday";
    expiring.expires_at = kNow + kDay;
    ASSERT_TRUE(engine->Add(expiring).ok());
  }

  // Every fact of every scope with every field, and the vector counts.
  static std::string Snapshot(Engine& engine) {
    std::ostringstream out;
    const Status exported = engine.Export({}, [&out](const Fact& f) {
      out << FactToJsonLine(f) << "\n";
      return true;
    });
    EXPECT_TRUE(exported.ok()) << exported.ToString();
    auto stats = engine.Stats();
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    if (stats.ok()) out << "vectors " << stats->vectors << " missing " << stats->missing_vectors;
    return out.str();
  }

  static void ExpectWhole(Engine& engine, const std::string& where) {
    auto check = engine.Check();
    ASSERT_TRUE(check.ok()) << where << ": " << check.status().ToString();
    EXPECT_TRUE(check->problems.empty())
        << where << ": " << ::testing::PrintToString(check->problems);
  }

  // With the fault cleared: a new fact is added and found.
  static void ExpectNextOperationsWork(Engine& engine, const std::string& where) {
    NewFact f;
    f.content = "The zeppelin hangar reopened after the fault";
    auto added = engine.Add(f);
    ASSERT_TRUE(added.ok()) << where << ": " << added.status().ToString();
    SearchOptions o;
    o.record_access = false;
    auto found = engine.Search("zeppelin hangar", o);
    ASSERT_TRUE(found.ok()) << where << ": " << found.status().ToString();
    ASSERT_FALSE(found->hits.empty()) << where;
    EXPECT_EQ(found->hits[0].fact.content, f.content) << where;
  }

  // Sweeps every fault kind over `operation`, on a store made by `seed`;
  // `done` checks the operation's effect after a success.
  void Sweep(const std::string& name, const std::function<void()>& seed,
             const std::function<Outcome(Engine&)>& operation,
             const std::function<void(Engine&, const Outcome&)>& done) {
    for (const FaultKind& kind : FaultKinds()) {
      int64_t failed_runs = 0;
      int64_t skip = 0;
      for (; skip < kMaxSkip; ++skip) {
        const std::string where = name + " with " + kind.name + " fault #" + std::to_string(skip);
        seed();
        if (HasFatalFailure()) return;
        // Opened after the seed, so the operation reads its pages itself.
        std::unique_ptr<Engine> engine = OpenOrDie();
        ASSERT_NE(engine, nullptr) << where;
        const std::string before = Snapshot(*engine);

        vfs_.Arm(FileFault{.op = kind.op, .skip = skip, .error = kind.error, .file_suffix = ""});
        const Outcome outcome = operation(*engine);
        const bool met = vfs_.failures() > 0;
        vfs_.Disarm();

        if (!met) {
          ASSERT_TRUE(outcome.status.ok()) << where << ": " << outcome.status.ToString();
          done(*engine, outcome);
          break;
        }
        ++failed_runs;
        if (!outcome.status.ok()) {
          EXPECT_FALSE(outcome.status.message().empty()) << where;
          EXPECT_EQ(Snapshot(*engine), before) << where << ": " << outcome.status.ToString();
        } else {
          // Succeeded past the fault: only where a part may degrade, and
          // then it says so.
          EXPECT_FALSE(outcome.warnings.empty()) << where << ": a fault met and no word of it";
          done(*engine, outcome);
        }
        ExpectWhole(*engine, where);
        const std::string after = Snapshot(*engine);
        {
          std::unique_ptr<Engine> second = OpenOrDie();
          ASSERT_NE(second, nullptr) << where;
          EXPECT_EQ(Snapshot(*second), after) << where << ": another connection reads otherwise";
        }
        ExpectNextOperationsWork(*engine, where);
        ExpectWhole(*engine, where + ", then an add");
      }
      EXPECT_LT(skip, kMaxSkip) << name << " with " << kind.name << " faults never completed";
      std::cout << name << ": " << failed_runs << " runs met a " << kind.name << " fault\n";
      // Every operation here writes, so it meets write and full-disk
      // faults. Reads may all be served from the page cache, and SQLite
      // syncs and truncates only at a checkpoint (synchronous=NORMAL in
      // WAL mode): those are counted, not required.
      if (kind.op == FileOp::kWrite) {
        EXPECT_GT(failed_runs, 0) << name << " never met a " << kind.name << " fault";
      }
    }
  }

  FaultVfs vfs_;  // before any engine: every connection goes through it
  testing::TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kNow);
  size_t hnsw_threshold_ = 50000;
};

Fact GetOrDie(Engine& engine, const std::string& content) {
  auto fact = engine.Get(kDefaultScope, ComputeFactId(content));
  EXPECT_TRUE(fact.ok()) << content << ": " << fact.status().ToString();
  return fact.ok() ? *fact : Fact{};
}

TEST_F(FaultInjectionTest, Add) {
  Sweep(
      "add", [this] { Seed(); },
      [](Engine& e) {
        NewFact f;
        f.content = "The database port moved to 6543";
        f.tags = {"db"};
        return OutcomeOf(e.Add(f));
      },
      [](Engine& e, const Outcome& outcome) {
        EXPECT_EQ(GetOrDie(e, "The database port moved to 6543").tags,
                  std::vector<std::string>{"db"});
        // A fact stored without its vector says so, and backfill fills it.
        if (e.Stats()->missing_vectors > 0) {
          EXPECT_FALSE(outcome.warnings.empty());
        }
        ASSERT_TRUE(e.Backfill({}).ok());
        EXPECT_EQ(e.Stats()->missing_vectors, 0);
      });
}

TEST_F(FaultInjectionTest, Import) {
  Sweep(
      "import", [this] { Seed(); },
      [](Engine& e) {
        std::vector<NewFact> facts(4);
        facts[0].content = "Redis caches the sessions";
        facts[1].content = "The cache cluster sits in frankfurt";
        facts[2].content = "Deploy windows close at noon";
        facts[3].content = "Postgres listens on port 5433";  // merges
        facts[3].tags = {"ports"};
        auto report = e.Import(facts, {});
        if (report.ok()) {
          EXPECT_EQ(report->added, 3U);
          EXPECT_EQ(report->merged, 1U);
        }
        return OutcomeOf(report);
      },
      [](Engine& e, const Outcome& outcome) {
        for (const char* c : {"Redis caches the sessions", "The cache cluster sits in frankfurt",
                              "Deploy windows close at noon"}) {
          GetOrDie(e, c);
        }
        EXPECT_EQ(GetOrDie(e, "Postgres listens on port 5433").tags,
                  (std::vector<std::string>{"db", "ports"}));
        const int64_t missing = e.Stats()->missing_vectors;
        if (missing > 0) {
          // The import said how many facts it left without a vector.
          const std::string said = ::testing::PrintToString(outcome.warnings);
          EXPECT_NE(said.find(std::to_string(missing) + " of 3 facts"), std::string::npos)
              << said << " for " << missing << " missing";
        }
      });
}

TEST_F(FaultInjectionTest, Update) {
  Sweep(
      "update", [this] { Seed(); },
      [](Engine& e) {
        UpdateRequest r;
        r.id = ComputeFactId("Postgres listens on port 5433");
        r.replacement.content = "Postgres listens on port 6543";
        return OutcomeOf(e.Update(r));
      },
      [](Engine& e, const Outcome&) {
        EXPECT_EQ(GetOrDie(e, "Postgres listens on port 5433").superseded_by,
                  ComputeFactId("Postgres listens on port 6543"));
        EXPECT_FALSE(GetOrDie(e, "Postgres listens on port 6543").IsSuperseded());
      });
}

TEST_F(FaultInjectionTest, Forget) {
  Sweep(
      "forget", [this] { Seed(); },
      [](Engine& e) {
        ForgetRequest r;
        r.ids = {ComputeFactId("Alice prefers tabs in all code")};
        r.history = ForgetHistory::kRestore;
        auto forgotten = e.Forget(r);
        if (forgotten.ok()) {
          EXPECT_EQ(*forgotten, 1);
        }
        return OutcomeOf(forgotten);
      },
      [](Engine& e, const Outcome&) {
        EXPECT_FALSE(e.Get(kDefaultScope, ComputeFactId("Alice prefers tabs in all code")).ok());
        EXPECT_FALSE(GetOrDie(e, "Alice prefers tabs in Go code").IsSuperseded());
      });
}

TEST_F(FaultInjectionTest, ExpiredFactsRemoved) {
  Sweep(
      "gc",
      [this] {
        clock_->Set(kNow);
        Seed();
        clock_->Set(kNow + 2 * kDay);
      },
      [](Engine& e) {
        auto removed = e.RemoveExpired();
        if (removed.ok()) {
          EXPECT_EQ(*removed, 1);
        }
        return OutcomeOf(removed);
      },
      [](Engine& e, const Outcome&) {
        EXPECT_FALSE(
            e.Get(kDefaultScope, ComputeFactId("The release freeze lasts until friday")).ok());
      });
}

TEST_F(FaultInjectionTest, SearchRecordingAccess) {
  Sweep(
      "search", [this] { Seed(); },
      [](Engine& e) {
        auto found = e.Search("postgres port", {});
        if (found.ok()) {
          EXPECT_FALSE(found->hits.empty());
          if (!found->hits.empty()) {
            EXPECT_EQ(found->hits[0].fact.content, "Postgres listens on port 5433");
          }
        }
        return OutcomeOf(found);
      },
      [](Engine& e, const Outcome& outcome) {
        // The ranking stands; a failed access count says so and counts nothing.
        const bool counted =
            ::testing::PrintToString(outcome.warnings).find("access not recorded") ==
            std::string::npos;
        EXPECT_EQ(GetOrDie(e, "Postgres listens on port 5433").access_count, counted ? 1 : 0)
            << ::testing::PrintToString(outcome.warnings);
      });
}

TEST_F(FaultInjectionTest, Backfill) {
  Sweep(
      "backfill", [this] { Seed(/*embed=*/false); },
      [](Engine& e) { return OutcomeOf(e.Backfill({})); },
      [](Engine& e, const Outcome& outcome) {
        // Vectors are stored batch by batch; a batch that could not be
        // stored is reported, and the next backfill embeds it.
        if (e.Stats()->missing_vectors > 0) {
          EXPECT_FALSE(outcome.warnings.empty());
        }
        ASSERT_TRUE(e.Backfill({}).ok());
        EXPECT_EQ(e.Stats()->missing_vectors, 0);
      });
}

// Schema 5's trigger bodies keeping scope_stats in step.
constexpr char kCountNewFactV5[] =
    "INSERT INTO scope_stats(scope, facts, content_terms, tags_terms) VALUES "
    "(new.scope, 1, new.content_terms, new.tags_terms) ON CONFLICT(scope) DO UPDATE "
    "SET facts = facts + 1, content_terms = content_terms + excluded.content_terms, "
    "tags_terms = tags_terms + excluded.tags_terms;";
constexpr char kUncountOldFactV5[] =
    "UPDATE scope_stats SET facts = facts - 1, content_terms = content_terms - "
    "old.content_terms, tags_terms = tags_terms - old.tags_terms WHERE scope = old.scope; "
    "DELETE FROM scope_stats WHERE scope = old.scope AND facts = 0;";

// A schema-5 file (before fact history) migrated on open.
TEST_F(FaultInjectionTest, Migration) {
  const auto seed_schema_5 = [this] {
    Seed();
    auto store = testing::OpenStoreForTest(dir_.File("memory.db"), /*create=*/false);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    // What schemas 6 to 10 added (src/store/sqlite/schema.cc); the one
    // superseded version goes with its column, and the triggers keeping
    // scope_stats are schema 5's again.
    const Status downgraded = (*store)->sqlite()->Exec(
        std::string(testing::kUndoSchema10) +
        "DROP TRIGGER facts_stats_insert; DROP TRIGGER facts_stats_delete; "
        "DROP TRIGGER facts_stats_update; ALTER TABLE facts DROP COLUMN portuguese; "
        "ALTER TABLE scope_stats DROP COLUMN portuguese_facts; "
        "CREATE TRIGGER facts_stats_insert AFTER INSERT ON facts BEGIN " +
        kCountNewFactV5 + " END; CREATE TRIGGER facts_stats_delete AFTER DELETE ON facts BEGIN " +
        kUncountOldFactV5 +
        " END; CREATE TRIGGER facts_stats_update AFTER UPDATE OF scope, content_terms, tags_terms "
        "ON facts BEGIN " +
        kUncountOldFactV5 + kCountNewFactV5 + " END; " +
        "DELETE FROM facts WHERE superseded_by != ''; DROP INDEX facts_rank; "
        "DROP TRIGGER fact_vectors_removed; "
        "ALTER TABLE embedding_spaces DROP COLUMN vectors_removed; "
        "DROP INDEX facts_superseded_by; DROP INDEX facts_expires_at; "
        "DROP TRIGGER facts_versions_delete; DROP TABLE fact_versions; "
        "ALTER TABLE facts DROP COLUMN superseded_by; ALTER TABLE facts DROP COLUMN valid_until; "
        "ALTER TABLE facts DROP COLUMN expires_at; PRAGMA user_version = 5;");
    ASSERT_TRUE(downgraded.ok()) << downgraded.ToString();
  };
  // The migration runs when an engine opens the file, so the operation
  // of this sweep is the open itself.
  for (const FaultKind& kind : FaultKinds()) {
    int64_t failed_runs = 0;
    int64_t skip = 0;
    for (; skip < kMaxSkip; ++skip) {
      const std::string where = "migration with " + kind.name + " fault #" + std::to_string(skip);
      seed_schema_5();
      if (HasFatalFailure()) return;
      vfs_.Arm(FileFault{.op = kind.op, .skip = skip, .error = kind.error, .file_suffix = ""});
      auto opened = Open();
      const bool met = vfs_.failures() > 0;
      vfs_.Disarm();
      if (!met) {
        ASSERT_TRUE(opened.ok()) << where << ": " << opened.status().ToString();
        EXPECT_EQ((*opened)->Stats()->schema_version, kSchemaVersion) << where;
        break;
      }
      ++failed_runs;
      if (!opened.ok()) {
        EXPECT_FALSE(opened.status().message().empty()) << where;
      }
      opened = Result<std::unique_ptr<Engine>>(Internal("closed"));
      // Each migration step is one transaction: the file is at version 5
      // or 6, never between, and the next open finishes the job.
      std::unique_ptr<Engine> reopened = OpenOrDie();
      ASSERT_NE(reopened, nullptr) << where;
      EXPECT_EQ(reopened->Stats()->schema_version, kSchemaVersion) << where;
      EXPECT_EQ(reopened->Stats()->facts, 5) << where;
      ExpectWhole(*reopened, where);
      ExpectNextOperationsWork(*reopened, where);
    }
    EXPECT_LT(skip, kMaxSkip) << "migration with " << kind.name << " faults never completed";
    std::cout << "migration: " << failed_runs << " runs met a " << kind.name << " fault\n";
    if (kind.op == FileOp::kWrite) {
      EXPECT_GT(failed_runs, 0) << kind.name;
    }
  }
}

// The HNSW file is written beside the database with plain POSIX calls: a
// file-size limit makes its writes fail part-way (EFBIG, as a full disk
// would), and a file in the index directory's place makes it impossible
// to create. The search answers from the index in memory and
// says the file was not saved; the next search after the fault saves it.
TEST_F(FaultInjectionTest, HnswSaveFailures) {
  hnsw_threshold_ = 2;
  const std::filesystem::path index_dir = dir_.File("memory.db") + ".vindex";
  const auto saved_files = [&] {
    std::vector<std::string> out;
    if (!std::filesystem::exists(index_dir)) return out;
    for (const auto& f : std::filesystem::directory_iterator(index_dir)) {
      out.push_back(f.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  SearchOptions o;
  o.record_access = false;

  // The file's name, from a search without faults.
  Seed();
  std::string hnsw_name;
  {
    std::unique_ptr<Engine> engine = OpenOrDie();
    ASSERT_NE(engine, nullptr);
    auto found = engine->Search("postgres port", o);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    for (const std::string& f : saved_files()) {
      if (f.ends_with(".hnsw")) hnsw_name = f;
    }
    ASSERT_FALSE(hnsw_name.empty()) << ::testing::PrintToString(saved_files());
  }

  const auto expect_saved_after_fault = [&](const std::string& where,
                                            const std::function<void()>& fault,
                                            const std::function<void()>& clear) {
    Seed();
    std::filesystem::remove_all(index_dir);
    std::unique_ptr<Engine> engine = OpenOrDie();
    ASSERT_NE(engine, nullptr);
    fault();
    auto found = engine->Search("postgres port", o);
    clear();
    ASSERT_TRUE(found.ok()) << where << ": " << found.status().ToString();
    ASSERT_FALSE(found->hits.empty()) << where;
    EXPECT_EQ(found->hits[0].fact.content, "Postgres listens on port 5433") << where;
    const std::string said = ::testing::PrintToString(found->warnings);
    EXPECT_NE(said.find("vector index not saved"), std::string::npos) << where << ": " << said;
    for (const std::string& f : saved_files()) {
      EXPECT_FALSE(f.ends_with(".hnsw")) << where << ": a partial index file is visible: " << f;
    }
    // The next change saves it, and a new engine loads it.
    NewFact more;
    more.content = "Postgres replicas listen on port 5434";
    ASSERT_TRUE(engine->Add(more).ok()) << where;
    auto again = engine->Search("postgres port", o);
    ASSERT_TRUE(again.ok()) << where;
    EXPECT_EQ(::testing::PrintToString(again->warnings).find("not saved"), std::string::npos)
        << where;
    std::unique_ptr<Engine> second = OpenOrDie();
    ASSERT_NE(second, nullptr);
    auto loaded = second->Search("postgres port", o);
    ASSERT_TRUE(loaded.ok()) << where;
    EXPECT_TRUE(loaded->warnings.empty())
        << where << ": " << ::testing::PrintToString(loaded->warnings);
    ExpectWhole(*second, where);
  };

  // Writes past 1 KiB fail (the WAL is written by then: searches without
  // access records write nothing else).
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  expect_saved_after_fault(
      "a file-size limit",
      [] {
        struct rlimit small = {1024, RLIM_INFINITY};
        ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
      },
      [&] { ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0); });
  std::signal(SIGXFSZ, old_handler);

  expect_saved_after_fault(
      "a file in the index directory's place",
      [&] { testing::WriteFile(index_dir.string(), "not a directory"); },
      [&] { std::filesystem::remove(index_dir); });
}

}  // namespace
}  // namespace engram
