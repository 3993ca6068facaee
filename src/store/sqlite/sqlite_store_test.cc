// What the SQLite store alone promises: the file it makes (WAL, private,
// complete, at the current schema), migrations from older schemas, and
// clear errors for a file that is not a whole store. What every backend
// promises is in src/store/fact_store_test.cc.
#include "src/store/sqlite/sqlite_store.h"

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/store/fact_id.h"
#include "src/store/sqlite/schema.h"
#include "src/store/sqlite/sqlite_version_store.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

FactRow Row(const std::string& content, const std::string& scope = "default",
            std::vector<std::string> tags = {}) {
  return testing::FactRowForTest(content, scope, std::move(tags));
}

// scope_stats as a string, and the same totals summed from `facts`: equal
// when the triggers kept the table in step.
std::pair<std::string, std::string> ScopeStatsAndTruth(SqliteDb* db) {
  auto dump = [db](const std::string& sql) {
    auto s = db->Prepare(sql);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    std::string out;
    while (s.ok() && *s->Step()) {
      out += s->ColumnText(0) + ":" + std::to_string(s->ColumnInt(1)) + "," +
             std::to_string(s->ColumnInt(2)) + "," + std::to_string(s->ColumnInt(3)) + "," +
             std::to_string(s->ColumnInt(4)) + ";";
    }
    return out;
  };
  return {dump("SELECT scope, facts, content_terms, tags_terms, portuguese_facts FROM scope_stats "
               "ORDER BY scope"),
          dump("SELECT scope, count(*), sum(content_terms), sum(tags_terms), sum(portuguese) "
               "FROM facts GROUP BY scope ORDER BY scope")};
}

TEST(FactStoreOpenTest, CreatesAWalDatabaseAtTheCurrentSchema) {
  testing::TempDir dir;
  auto opened = testing::OpenStoreForTest(dir.File("memory.db"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteStore* store_ = opened->get();
  auto mode = store_->sqlite()->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(*mode->Step());
  EXPECT_EQ(mode->ColumnText(0), "wal");
  EXPECT_EQ(*store_->sqlite()->QueryInt("PRAGMA user_version"), kSchemaVersion);
  auto counts = store_->facts().CountFacts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->schema_version, kSchemaVersion);
  EXPECT_EQ(counts->location, dir.File("memory.db"));
}

TEST(FactStoreOpenTest, MigratingFromSchema4FillsScopeStatsFromExistingFacts) {
  testing::TempDir dir;
  const std::string path = dir.File("memory.db");
  {
    // A schema-4 file: no scope_stats, no triggers feeding it.
    auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
    ASSERT_TRUE(store.ok());
    SqliteDb* db = (*store)->sqlite();
    ASSERT_TRUE(db->Exec("DROP TRIGGER facts_stats_insert; DROP TRIGGER facts_stats_delete; "
                         "DROP TRIGGER facts_stats_update; DROP TABLE scope_stats; "
                         "PRAGMA user_version = 4")
                    .ok());
    for (const auto& [content, scope] : std::vector<std::pair<std::string, std::string>>{
             {"alpha", "a"}, {"beta gamma", "a"}, {"delta", "b"}}) {
      FactRow row = Row(content, scope, {"t"});
      row.text.content_terms = static_cast<int64_t>(content.size());
      row.text.tags_terms = 1;
      ASSERT_TRUE((*store)->Transact([&] { return (*store)->facts().Insert(row).status(); }).ok());
    }
    // Nor what schemas 6 to 10 added: history columns, version links, the
    // language of the content, the rank index, the count of removals and
    // the numbering of changes.
    ASSERT_TRUE(db->Exec(std::string(testing::kUndoSchema10) +
                         "DROP TRIGGER fact_vectors_removed; "
                         "ALTER TABLE embedding_spaces DROP COLUMN vectors_removed; "
                         "DROP INDEX facts_rank; "
                         "DROP INDEX facts_superseded_by; DROP INDEX facts_expires_at; "
                         "DROP TRIGGER facts_versions_delete; DROP TABLE fact_versions; "
                         "ALTER TABLE facts DROP COLUMN superseded_by; "
                         "ALTER TABLE facts DROP COLUMN valid_until; "
                         "ALTER TABLE facts DROP COLUMN expires_at; "
                         "ALTER TABLE facts DROP COLUMN portuguese")
                    .ok());
  }
  auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(*(*store)->sqlite()->QueryInt("PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(*(*store)->sqlite()->QueryInt(std::string("SELECT count(*) FROM sqlite_schema WHERE "
                                                      "type = 'index' AND name = '") +
                                          kRankIndexName + "'"),
            1);
  const auto [stats, truth] = ScopeStatsAndTruth((*store)->sqlite());
  EXPECT_EQ(stats, "a:2,15,2,0;b:1,5,1,0;");
  EXPECT_EQ(stats, truth);
  FactRow more = Row("epsilon", "b");
  more.text.content_terms = 7;
  ASSERT_TRUE((*store)->Transact([&] { return (*store)->facts().Insert(more).status(); }).ok());
  EXPECT_EQ(ScopeStatsAndTruth((*store)->sqlite()).first, "a:2,15,2,0;b:2,12,1,0;");
  // Facts of the old file have change number 0; the new one is numbered.
  const ScopeChanges b = *(*store)->facts().ChangesOf("b");
  EXPECT_GT(b.last, 0);
  EXPECT_EQ(b.facts, 2);
  const ScopeChanges a = *(*store)->facts().ChangesOf("a");
  EXPECT_EQ(a.last, 0);
  EXPECT_EQ(a.facts, 2);
  EXPECT_EQ(a.store, b.last);
  // The facts of the old file are current, without expiry.
  ListOptions both;
  both.scopes = {"a", "b"};
  both.limit = 0;
  auto listed = (*store)->facts().List(both, {});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->size(), 4u);
  for (const Fact& f : *listed) {
    EXPECT_TRUE(f.superseded_by.empty());
    EXPECT_EQ(f.expires_at, 0);
  }
}

// An update of any column of `facts` but `changed` is a change of the
// fact: the trigger that numbers changes names every one.
TEST(FactStoreOpenTest, TheChangeTriggerNamesEveryColumnOfFacts) {
  testing::TempDir dir;
  auto store = testing::OpenStoreForTest(dir.File("memory.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto columns = (*store)->sqlite()->Prepare("SELECT name FROM pragma_table_info('facts')");
  ASSERT_TRUE(columns.ok());
  const std::string named = std::string(", ") + kFactColumnsButChanged + ",";
  size_t checked = 0;
  while (*columns->Step()) {
    const std::string column = columns->ColumnText(0);
    if (column == "changed" || column == "rowid") continue;  // rowid: never updated
    EXPECT_NE(named.find(" " + column + ","), std::string::npos) << column;
    ++checked;
  }
  EXPECT_GE(checked, 18u);
}

TEST(FactStoreOpenTest, RefusesNewerSchemaWithClearError) {
  testing::TempDir dir;
  const std::string path = dir.File("memory.db");
  {
    auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->sqlite()->Exec("PRAGMA user_version = 99").ok());
  }
  auto again = SqliteStore::Open(testing::StoreOptionsForTest(path));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(again.status().message().find("schema version 99 is newer"), std::string::npos);
  EXPECT_NE(again.status().message().find(path), std::string::npos);
}

TEST(FactStoreOpenTest, MissingPathWithoutCreateIsNotFound) {
  testing::TempDir dir;
  auto store = testing::OpenStoreForTest(dir.File("nope/memory.db"), /*create=*/false);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_NE(store.status().message().find("nope/memory.db"), std::string::npos);
}

TEST(FactStoreOpenTest, NotADatabaseIsAClearError) {
  testing::TempDir dir;
  const std::string path = dir.File("junk.db");
  testing::WriteFile(path, std::string(4096, 'x'));
  auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(path), std::string::npos);
  EXPECT_NE(store.status().message().find("not a database"), std::string::npos);
}

TEST(FactStoreOpenTest, AnEmptyOrTruncatedFileIsRefusedAndLeftAsItIs) {
  testing::TempDir dir;
  for (const std::string& bytes : {std::string(), std::string("S"), std::string("SQLite forma")}) {
    const std::string path = dir.File("memory.db");
    testing::WriteFile(path, bytes);
    const auto expect_refused = [&](const Status& status, const std::string& where) {
      EXPECT_EQ(status.code(), StatusCode::kCorruption) << bytes.size() << " bytes";
      EXPECT_NE(status.message().find(where + "': " + std::to_string(bytes.size()) +
                                      " bytes without an SQLite header"),
                std::string::npos)
          << status.message();
    };
    auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
    ASSERT_FALSE(store.ok()) << bytes.size() << " bytes";
    expect_refused(store.status(), path);
    EXPECT_EQ(testing::ReadFile(path), bytes) << "never rewritten";
    // A reader of a store whose file was cut short under it.
    const std::string cut = dir.File("cut" + std::to_string(bytes.size()) + ".db");
    auto origin = SqliteStore::Open(testing::StoreOptionsForTest(cut));
    ASSERT_TRUE(origin.ok()) << origin.status().ToString();
    testing::WriteFile(cut, bytes);
    auto reader = (*origin)->OpenReader();
    ASSERT_FALSE(reader.ok()) << bytes.size() << " bytes";
    expect_refused(reader.status(), cut);
  }
}

// keep_log_below_bytes: a short log stays beside the file at close, and
// the next connection reads what it holds; a longer one, or any with the
// default, is folded into the file and removed.
TEST(FactStoreOpenTest, AShortLogIsLeftAtCloseOnlyWhenAskedAndRead) {
  testing::TempDir dir;
  const std::string path = dir.File("memory.db");
  const std::string log = path + "-wal";
  SqliteStoreOptions keeping = testing::StoreOptionsForTest(path);
  keeping.keep_log_below_bytes = 256 << 10;
  const auto add = [](const SqliteStoreOptions& options, const std::vector<std::string>& texts) {
    auto store = SqliteStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    const Status added = (*store)->Transact([&]() -> Status {
      for (const std::string& text : texts) {
        ENGRAM_RETURN_IF_ERROR((*store)->facts().Insert(Row(text)).status());
      }
      return Status::OK();
    });
    ASSERT_TRUE(added.ok()) << added.ToString();
  };
  const auto count = [&]() -> int64_t {
    auto store = SqliteStore::Open(keeping);
    if (!store.ok()) return -1;
    auto facts = (*store)->sqlite()->QueryInt("SELECT count(*) FROM facts");
    return facts.ok() ? *facts : -1;
  };

  add(testing::StoreOptionsForTest(path), {"folded at close by default"});
  EXPECT_FALSE(std::filesystem::exists(log));

  add(keeping, {"left in the log"});
  ASSERT_TRUE(std::filesystem::exists(log));
  const uintmax_t left = std::filesystem::file_size(log);
  EXPECT_GT(left, 0U);
  EXPECT_EQ(count(), 2) << "the next connection reads the log";
  EXPECT_EQ(std::filesystem::file_size(log), left) << "a reader leaves it as it was";

  // About 600 KB of new facts: past the limit, so folded.
  std::vector<std::string> long_texts;
  long_texts.reserve(300);
  for (int i = 0; i < 300; ++i)
    long_texts.push_back("fact " + std::to_string(i) + std::string(2000, 'x'));
  add(keeping, long_texts);
  EXPECT_FALSE(std::filesystem::exists(log));
  EXPECT_EQ(count(), 302);
}

// A connection keeps the version links it read in memory for its next
// read transactions unless opened not to; either way NewerThan answers
// the same.
TEST(FactStoreOpenTest, VersionLinksAreKeptInMemoryOnlyWhenAsked) {
  testing::TempDir dir;
  const std::string path = dir.File("memory.db");
  int64_t older = 0;
  int64_t newer = 0;
  {
    auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    const Status made = (*store)->Transact([&]() -> Status {
      ENGRAM_ASSIGN_OR_RETURN(older, (*store)->facts().Insert(Row("the port is 5432")));
      ENGRAM_ASSIGN_OR_RETURN(newer, (*store)->facts().Insert(Row("the port is 5433")));
      return (*store)->versions().Put("default", {older, newer, 0.9, true});
    });
    ASSERT_TRUE(made.ok()) << made.ToString();
  }
  for (const bool keep : {true, false}) {
    SqliteStoreOptions options = testing::StoreOptionsForTest(path);
    options.keep_version_links = keep;
    auto store = SqliteStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    const auto& versions = static_cast<const SqliteVersionStore&>((*store)->versions());
    for (int search = 0; search < 2; ++search) {
      size_t found = 0;
      const Status read = (*store)->ReadTransact([&]() -> Status {
        ENGRAM_ASSIGN_OR_RETURN(std::vector<VersionLink> links,
                                (*store)->versions().NewerThan({"default"}, {older}));
        found = links.size();
        return Status::OK();
      });
      ASSERT_TRUE(read.ok()) << read.ToString();
      EXPECT_EQ(found, 1U) << "keep " << keep << ", search " << search;
      EXPECT_EQ(versions.LinksInMemory(), keep ? 1U : 0U)
          << "keep " << keep << ", search " << search;
    }
  }
}

TEST(FactStoreOpenTest, ANewStoreIsPrivateAndComplete) {
  testing::TempDir dir;
  const mode_t old_umask = ::umask(022);
  const std::string path = dir.File("home/engram/memory.db");
  auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
  ::umask(old_umask);
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)
                  ->Transact([&] { return (*store)->facts().Insert(Row("private fact")).status(); })
                  .ok());
  const auto mode = [](const std::string& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  };
  EXPECT_EQ(mode(dir.File("home")), 0700u);
  EXPECT_EQ(mode(dir.File("home/engram")), 0700u);
  EXPECT_EQ(mode(path), 0600u);
  EXPECT_EQ(mode(path + "-wal"), 0600u) << "SQLite gives its WAL the database's mode";
  EXPECT_EQ(mode(path + "-shm"), 0600u);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("home/engram"))) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"memory.db", "memory.db-shm", "memory.db-wal"}))
      << "no draft left behind";
}

TEST(FactStoreOpenTest, TwoProcessesCreatingOneStoreBothOpenIt) {
  testing::TempDir dir;
  const std::string path = dir.File("memory.db");
  std::vector<std::thread> openers;
  std::atomic<int> opened{0};
  for (int i = 0; i < 4; ++i) {
    openers.emplace_back([&] {
      if (SqliteStore::Open(testing::StoreOptionsForTest(path)).ok()) ++opened;
    });
  }
  for (std::thread& t : openers) t.join();
  EXPECT_EQ(opened.load(), 4);
}

TEST(FactStoreOpenTest, DirectoryPathIsAClearError) {
  testing::TempDir dir;
  auto store = SqliteStore::Open(testing::StoreOptionsForTest(dir.path().string()));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("is a directory"), std::string::npos);
}

// A file cut short by another process while a store has it open, after
// the store wrote and checkpointed it (as a server does all day): the next
// reads are errors, not the end of the process. Through a memory map of the
// file (SqliteStoreOptions::mmap_bytes, 0 by default for this) the connection
// touches pages that are gone and meets SIGBUS.
TEST(FactStoreOpenTest, AFileCutShortUnderAnOpenStoreGivesErrorsNotACrash) {
  namespace fs = std::filesystem;
  testing::TempDir dir;
  const std::string path = dir.File("memory.db");
  auto store = SqliteStore::Open(testing::StoreOptionsForTest(path));
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)
                  ->Transact([&] {
                    for (int i = 0; i < 2000; ++i) {
                      FactRow row = Row("fact number " + std::to_string(i) +
                                        " with some words to fill its page");
                      ENGRAM_RETURN_IF_ERROR((*store)->facts().Insert(row).status());
                    }
                    return Status::OK();
                  })
                  .ok());
  ASSERT_TRUE((*store)->sqlite()->Exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
  // A page cache far smaller than the file, so each pass reads the file.
  ASSERT_TRUE((*store)->sqlite()->Exec("PRAGMA cache_size=4").ok());
  const auto read_all = [&] {
    return (*store)->facts().ForEach({}, [](const StoredFact&) { return true; });
  };
  ASSERT_TRUE(read_all().ok());
  for (const uintmax_t size : {fs::file_size(path) / 2, uintmax_t{4096}, uintmax_t{0}}) {
    fs::resize_file(path, size);
    const Status cut = read_all();
    EXPECT_FALSE(cut.ok()) << "cut to " << size;
    EXPECT_NE(cut.message().find("memory.db"), std::string::npos) << cut.ToString();
  }
}

}  // namespace
}  // namespace engram
