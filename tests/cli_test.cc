// The engram CLI as a user runs it: commands, help, exit codes and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/store/sqlite/sqlite_db.h"
#include "src/store/testing/store_place_test.h"
#include "tests/cli_runner.h"

namespace engram {
namespace {

using testing::CliRunner;

TEST(CliTest, EveryCommandHasHelp) {
  CliRunner cli;
  for (const char* cmd : {"add", "import", "list", "show", "forget", "export", "search", "config",
                          "eval", "backfill", "prune", "migrate"}) {
    const auto r = cli.Run({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    EXPECT_NE(r.out.find("Example"), std::string::npos) << cmd << ": " << r.out;
  }
  const auto top = cli.Run({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("search"), std::string::npos);
}

// engram migrate copies the configured store into another file (the
// copy's behaviour on every backend: src/engine/store_migrate_test.cc), and
// refuses to copy a store onto itself or into one that holds facts.
TEST(CliTest, MigrateCopiesTheStoreIntoAnother) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  ASSERT_EQ(cli.Run({"add", "Postgres runs on port 5433", "--tag", "db"}).exit_code, 0);
  ASSERT_EQ(cli.Run({"add", "Deploys go out on Thursdays", "--scope", "ops"}).exit_code, 0);
  const std::string copy = cli.File("copy.db");
  auto r = cli.Run({"migrate", "--to", copy});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("copied 2 fact(s)"), std::string::npos) << r.out;
  const auto original = cli.Run({"export"});
  const auto copied = cli.Run({"--db", copy, "export"});
  ASSERT_EQ(original.exit_code, 0);
  EXPECT_EQ(copied.out, original.out);
  r = cli.Run({"migrate", "--to", copy});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("holds 2 facts"), std::string::npos) << r.err;
  r = cli.Run({"--db", copy, "migrate", "--to", copy});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("names the store being copied"), std::string::npos) << r.err;
}

TEST(CliTest, UsageErrorsExitTwo) {
  CliRunner cli;
  EXPECT_EQ(cli.Run({}).exit_code, 2);
  EXPECT_EQ(cli.Run({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(cli.Run({"search"}).exit_code, 2);  // no query
  EXPECT_EQ(cli.Run({"search", "x", "--mode", "psychic"}).exit_code, 2);
  EXPECT_EQ(cli.Run({"forget"}).exit_code, 2);  // nothing to forget
}

// The everyday commands on each store: a SQLite file in the runner's home,
// or a PostgreSQL database of its own named by ENGRAM_STORE_URL.
class CliStoreTest : public testing::StorePlaceTest,
                     public ::testing::WithParamInterface<testing::Backend> {
 protected:
  CliStoreTest() : StorePlaceTest(GetParam()) {}
  void SetUpStore() override {
    EngineOptions where;
    place_->Apply(&where);
    if (!where.store_url.empty()) cli_.SetEnv("ENGRAM_STORE_URL", where.store_url);
  }

  CliRunner cli_;
};

TEST_P(CliStoreTest, AddSearchShowForget) {
  auto r =
      cli_.Run({"add", "Postgres runs on port 5433 in Docker", "--tag", "db", "--kind", "fact"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("added ", 0), 0u) << r.out;
  const std::string id = r.out.substr(6, 24);
  r = cli_.Run({"add", "postgres RUNS on port 5433 in docker", "--tag", "ports"});
  EXPECT_EQ(r.out, "merged into " + id + "\n");

  r = cli_.Run({"search", "which port for postgres", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["fact"]["id"], id);
  EXPECT_EQ(j["hits"][0]["fact"]["tags"], nlohmann::json::array({"db", "ports"}));
  EXPECT_TRUE(j["hits"][0]["signals"]["lexical"]["present"].get<bool>());

  r = cli_.Run({"search", "postgres", "--explain"});
  EXPECT_NE(r.out.find("lexical  raw"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("temporal raw"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("weight"), std::string::npos) << r.out;

  r = cli_.Run({"show", id.substr(0, 8)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("access_count:  2"), std::string::npos) << r.out;  // two searches

  r = cli_.Run({"forget", id.substr(0, 10)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "forgot 1 fact(s)\n");
  r = cli_.Run({"show", id});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no fact"), std::string::npos) << r.err;
}

// What import writes, export gives back, line for line, and the store
// checks out.
TEST_P(CliStoreTest, ImportThenExportGivesTheSameFactsAndCheckPasses) {
  const std::string input = cli_.File("in.jsonl");
  testing::WriteFile(input,
                     R"({"content": "The staging database listens on port 5433", "tags": ["db"]})"
                     "\n"
                     R"({"content": "Deploys go out on Thursdays", "scope": "ops"})"
                     "\n"
                     R"({"content": "Alice prefers dark mode", "scope": "alice"})"
                     "\n");
  auto r = cli_.Run({"import", input});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli_.Run({"export"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> contents;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    contents.push_back(nlohmann::json::parse(line)["content"]);
  }
  std::sort(contents.begin(), contents.end());
  EXPECT_EQ(contents,
            std::vector<std::string>({"Alice prefers dark mode", "Deploys go out on Thursdays",
                                      "The staging database listens on port 5433"}));
  r = cli_.Run({"search", "dark mode", "--scope", "alice", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["hits"].size(), 1u);
  r = cli_.Run({"check"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

INSTANTIATE_TEST_SUITE_P(Backends, CliStoreTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

TEST(CliTest, ForgetWholeScopeOffTerminalNeedsYes) {
  CliRunner cli;
  ASSERT_EQ(cli.Run({"add", "scratch note", "--scope", "tmp"}).exit_code, 0);
  auto r = cli.Run({"forget", "--all", "--scope", "tmp"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--yes"), std::string::npos);
  r = cli.Run({"forget", "--all", "--scope", "tmp", "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "forgot 1 fact(s)\n");
}

TEST(CliTest, BadFactIsRefusedWithReason) {
  CliRunner cli;
  auto r = cli.Run({"add", "   "});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("content: empty text"), std::string::npos) << r.err;
  r = cli.Run({"add", "x", "--meta", "[]"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("metadata: not a JSON object"), std::string::npos) << r.err;
}

TEST(CliTest, MissingDatabaseIsAClearError) {
  CliRunner cli;
  const auto r = cli.Run({"--db", cli.File("nowhere/memory.db"), "list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nowhere/memory.db"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no database there"), std::string::npos) << r.err;
}

TEST(CliTest, UnwritableDatabasePathIsAClearError) {
  CliRunner cli;
  testing::WriteFile(cli.File("plainfile"), "x");
  const auto r = cli.Run({"--db", cli.File("plainfile/memory.db"), "add", "x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("plainfile/memory.db"), std::string::npos) << r.err;
}

TEST(CliTest, NewerSchemaIsAClearError) {
  CliRunner cli;
  ASSERT_EQ(cli.Run({"add", "x"}).exit_code, 0);
  {
    auto db = SqliteDb::Open(cli.DbPath(), SqliteOpenMode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA user_version = 99").ok());
  }
  const auto r = cli.Run({"list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("schema version 99 is newer than this engram supports"), std::string::npos)
      << r.err;
}

TEST(CliTest, ConfigShowsValuesAndSources) {
  CliRunner cli;
  testing::WriteFile(cli.File("config.toml"), "[bm25]\nk1 = 1.1\n");
  ASSERT_EQ(cli.Run({"add", "x"}).exit_code, 0);
  const auto r = cli.Run({"config", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bm25.k1"]["value"], "1.1");
  EXPECT_EQ(j["bm25.k1"]["source"], "file");
  EXPECT_EQ(j["home"]["source"], "env");
  EXPECT_EQ(j["bm25.b"]["source"], "default");
  const auto text = cli.Run({"config"});
  EXPECT_NE(text.out.find("1 fact(s)"), std::string::npos) << text.out;
}

TEST(CliTest, ListFiltersByTagAndScope) {
  CliRunner cli;
  ASSERT_EQ(cli.Run({"add", "a one", "--tag", "x"}).exit_code, 0);
  ASSERT_EQ(cli.Run({"add", "a two", "--tag", "y"}).exit_code, 0);
  ASSERT_EQ(cli.Run({"add", "a three", "--tag", "x", "--scope", "other"}).exit_code, 0);
  auto r = cli.Run({"list", "--tag", "x", "--json"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
  EXPECT_NE(r.out.find("a one"), std::string::npos);
  r = cli.Run({"list", "--scope", "other"});
  EXPECT_NE(r.out.find("a three"), std::string::npos);
  EXPECT_EQ(r.out.find("a one"), std::string::npos);
}

TEST(CliTest, EvalJsonIsOneObject) {
  CliRunner cli;
  const std::string dir = cli.File("ds");
  std::filesystem::create_directories(dir + "/qrels");
  testing::WriteFile(dir + "/corpus.jsonl",
                     R"({"_id": "d1", "title": "", "text": "neovim is the editor"})"
                     "\n"
                     R"({"_id": "d2", "title": "", "text": "lunch at noon"})"
                     "\n");
  testing::WriteFile(dir + "/queries.jsonl", R"({"_id": "q1", "text": "which editor"})"
                                             "\n");
  testing::WriteFile(dir + "/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
  const auto r = cli.Run(
      {"eval", dir, "--compare", "lexical,blended", "--json", "--run-file", cli.File("run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dataset"], "ds");
  EXPECT_EQ(j["queries"], 1);
  EXPECT_DOUBLE_EQ(j["results"]["lexical"]["nDCG@10"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["results"]["blended"]["P@1"].get<double>(), 1.0);
  EXPECT_NE(testing::ReadFile(cli.File("run.lexical")).find("q1 Q0 d1 1 "), std::string::npos);
}

}  // namespace
}  // namespace engram
