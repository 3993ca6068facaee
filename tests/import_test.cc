// `engram import` against bad input: each bad record is named by line, the
// import is all or nothing (or --skip-bad), and a SIGKILL mid-import leaves
// a consistent store with none of the import's facts.
#include <signal.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "src/store/fact_store.h"
#include "tests/cli_runner.h"
#include "tests/store_for_test.h"

namespace engram {
namespace {

using testing::CliRunner;
using testing::WriteFile;

class ImportTest : public ::testing::Test {
 protected:
  // Number of facts in the store, or -1 when it cannot be opened.
  int64_t FactCount() {
    auto store = testing::OpenStoreForTest(cli_.DbPath(), /*create=*/false);
    if (!store.ok()) return -1;
    return (*store)->facts().CountFacts()->facts;
  }

  // SQLite's and FTS5's own consistency checks.
  void ExpectConsistent() {
    auto store = testing::OpenStoreForTest(cli_.DbPath(), /*create=*/false);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto check = (*store)->sqlite()->Prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.ok());
    ASSERT_TRUE(*check->Step());
    EXPECT_EQ(check->ColumnText(0), "ok");
    EXPECT_TRUE((*store)
                    ->sqlite()
                    ->Exec("INSERT INTO facts_fts(facts_fts) VALUES('integrity-check')")
                    .ok());
  }

  std::string Seed() {
    const std::string seed = cli_.File("seed.jsonl");
    WriteFile(seed, R"({"content": "existing fact one"})"
                    "\n"
                    R"({"content": "existing fact two"})"
                    "\n");
    EXPECT_EQ(cli_.Run({"import", seed}).exit_code, 0);
    EXPECT_EQ(FactCount(), 2);
    return seed;
  }

  // Imports a file whose line 2 is `bad` between two good lines; expects
  // failure naming line 2 and `reason`, and the store unchanged.
  void ExpectRejected(const std::string& bad, const std::string& reason) {
    const std::string path = cli_.File("bad.jsonl");
    WriteFile(path, "{\"content\": \"good one\"}\n" + bad + "\n{\"content\": \"good two\"}\n");
    const auto r = cli_.Run({"import", path});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(path + ":2: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing imported"), std::string::npos) << r.err;
    EXPECT_EQ(FactCount(), 2);
  }

  CliRunner cli_;
};

TEST_F(ImportTest, MalformedLineIsNamed) {
  Seed();
  ExpectRejected(R"({"content": "unterminated)", "malformed JSON at byte");
}

TEST_F(ImportTest, InvalidUtf8IsNamed) {
  Seed();
  ExpectRejected("{\"content\": \"bad \xc3\x28 byte\"}", "invalid UTF-8 at byte 18");
}

TEST_F(ImportTest, EmptyTextIsNamed) {
  Seed();
  ExpectRejected(R"({"content": "   "})", "content: empty text");
}

TEST_F(ImportTest, TenMegabyteTextIsNamed) {
  Seed();
  ExpectRejected("{\"content\": \"" + std::string(10 << 20, 'x') + "\"}",
                 "content: 10485760 bytes, over the limit of 1048576");
}

TEST_F(ImportTest, UnknownFieldTypeIsNamed) {
  Seed();
  ExpectRejected(R"({"content": "x", "tags": {"a": 1}})",
                 "field 'tags' must be an array of strings, not object");
}

TEST_F(ImportTest, UnknownFieldNameIsNamed) {
  Seed();
  ExpectRejected(R"({"content": "x", "tag": ["typo"]})", "unknown field 'tag'");
}

// Inputs that once killed `engram import` (an uncaught exception, or a
// recursive dump of a value nested 50,000 deep).
TEST_F(ImportTest, ANumberBeyondADoubleIsNamed) {
  Seed();
  ExpectRejected(R"({"content":"x","confidence":1e999})", "number out of range at byte 33");
}

TEST_F(ImportTest, DeepMetadataIsRefusedBeforeItIsRead) {
  Seed();
  std::string deep = R"({"content":"x","metadata":)";
  for (int i = 0; i < 50000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(50001, '}');
  ExpectRejected(deep, "nesting deeper than 64 levels at $.metadata.a.a.a");
}

TEST_F(ImportTest, ARepeatedFieldIsNamed) {
  Seed();
  ExpectRejected(R"({"content": "x", "tags": ["a"], "tags": ["b"]})",
                 "key \"tags\" appears twice at $.tags");
}

TEST_F(ImportTest, CsvFieldsThatAreNotUtf8AreNamed) {
  Seed();
  const std::string path = cli_.File("bad.csv");
  WriteFile(path, "content,source\ngood one,a\nbad \xc3\x28 byte,b\ngood two,c\n");
  auto r = cli_.Run({"import", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(path + ":3: field 'content': invalid UTF-8 at byte 5"), std::string::npos)
      << r.err;
  EXPECT_EQ(FactCount(), 2);
  WriteFile(path, "content,confidence\nx,1e999\n");
  r = cli_.Run({"import", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(path + ":2: field 'confidence': number out of range at byte 5"),
            std::string::npos)
      << r.err;
  WriteFile(path, "content,tags,content\nx,a,y\n");
  r = cli_.Run({"import", path});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(path + ":1: CSV header names column 'content' twice"), std::string::npos)
      << r.err;
  EXPECT_EQ(FactCount(), 2);
}

TEST_F(ImportTest, CsvWithAByteOrderMarkIsReadLikeJsonl) {
  Seed();
  const std::string csv = cli_.File("bom.csv");
  WriteFile(csv,
            "\xEF\xBB\xBF"
            "content,tags\nfrom a csv with a bom,a\n");
  const std::string jsonl = cli_.File("bom.jsonl");
  WriteFile(jsonl,
            "\xEF\xBB\xBF"
            R"({"content": "from a jsonl with a bom"})"
            "\n");
  for (const std::string& path : {csv, jsonl}) {
    const auto r = cli_.Run({"import", path});
    EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
  }
  EXPECT_EQ(FactCount(), 4);
}

TEST_F(ImportTest, SkipBadImportsTheRestAndReports) {
  Seed();
  const std::string path = cli_.File("mixed.jsonl");
  WriteFile(
      path,
      "{\"content\": \"fine one\"}\n{oops\n{\"content\": \"fine two\"}\n{\"content\": \"\"}\n");
  const auto r = cli_.Run({"import", "--skip-bad", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(path + ":2: malformed JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(path + ":4: content: empty text"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("imported 2 new, 0 merged, skipped 2 bad"), std::string::npos) << r.out;
  EXPECT_EQ(FactCount(), 4);
}

TEST_F(ImportTest, CsvImportNamesBadRows) {
  const std::string path = cli_.File("facts.csv");
  WriteFile(path, "content,tags\n\"ok, quoted\",a;b\n\"\",x\n");
  auto r = cli_.Run({"import", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(path + ":3: content: empty text"), std::string::npos) << r.err;
  WriteFile(path, "content,tags\n\"ok, quoted\",a;b\n");
  r = cli_.Run({"import", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(FactCount(), 1);
}

TEST_F(ImportTest, ExportImportRoundTripIsExact) {
  const std::string path = cli_.File("in.jsonl");
  WriteFile(
      path,
      R"({"content": "Prefere respostas em português", "tags": ["idioma"], "kind": "preference", "source": "chat", "confidence": 0.9, "metadata": {"lang": "pt", "n": [1, 2.5]}, "created_at": "2026-01-02T03:04:05.678Z"})"
      "\n"
      R"({"content": "Work fact", "scope": "work", "created_at": "2025-07-01T00:00:00Z"})"
      "\n");
  ASSERT_EQ(cli_.Run({"import", path}).exit_code, 0);
  ASSERT_EQ(cli_.Run({"search", "português"}).exit_code, 0);  // bumps counters
  const auto first = cli_.Run({"export"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string exported = cli_.File("exported.jsonl");
  WriteFile(exported, first.out);
  const std::string other_db = cli_.File("other.db");
  ASSERT_EQ(cli_.Run({"--db", other_db, "import", exported}).exit_code, 0);
  const auto second = cli_.Run({"--db", other_db, "export"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, first.out);
  EXPECT_NE(first.out.find(R"("access_count":1)"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find(R"("created_at":"2026-01-02T03:04:05.678Z")"), std::string::npos);
}

TEST_F(ImportTest, SigkillMidImportLeavesStoreConsistent) {
  Seed();
  // Large enough that the one transaction spills pages to the WAL well
  // before it commits.
  const std::string path = cli_.File("big.jsonl");
  {
    std::string content;
    for (int i = 0; i < 40000; ++i) {
      content += "{\"content\": \"generated fact number " + std::to_string(i) +
                 " about deploys, ports and editors " + std::string(200, 'z') + "\"}\n";
    }
    WriteFile(path, content);
  }
  const std::string wal = cli_.DbPath() + "-wal";
  const pid_t pid = cli_.Start({"import", path});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::error_code ec;
  while (std::chrono::steady_clock::now() < deadline &&
         (!std::filesystem::exists(wal, ec) || std::filesystem::file_size(wal, ec) < (4u << 20))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  const auto r = cli_.Wait(pid);
  ASSERT_EQ(r.exit_code, 128 + SIGKILL) << "import finished before the kill: " << r.out;
  ExpectConsistent();
  EXPECT_EQ(FactCount(), 2);  // the seed only: nothing of the killed import
  // The store still works.
  EXPECT_EQ(cli_.Run({"add", "after the crash"}).exit_code, 0);
  EXPECT_EQ(FactCount(), 3);
}

}  // namespace
}  // namespace engram
