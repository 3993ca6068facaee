// Facts that change, as a user types them: update and history, add
// --supersedes, --include-superseded, forget of a current version, --ttl
// with gc, the filters, ids that live in another scope, and facts whose
// text would drive a terminal.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace engram {
namespace {

using nlohmann::json;
using testing::CliRunner;

// The id of the first fact `list --json ARGS` prints.
std::string FirstId(CliRunner& cli, std::vector<std::string> args = {}) {
  args.insert(args.begin(), {"list", "--json"});
  const auto r = cli.Run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json first = json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false);
  return first.is_object() ? first["id"].get<std::string>() : "";
}

TEST(HistoryCliTest, UpdateKeepsTheOldVersionAndHistoryShowsTheChain) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  ASSERT_EQ(cli.Run({"add", "Standup is at 9:30 in the Kestrel room"}).exit_code, 0);
  const std::string old_id = FirstId(cli);
  auto r = cli.Run({"update", old_id.substr(0, 8), "Standup moved to 10:15 on Google Meet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(old_id + " superseded by "), std::string::npos) << r.out;
  const std::string new_id = FirstId(cli);
  ASSERT_NE(new_id, old_id);

  r = cli.Run({"list"});
  EXPECT_EQ(r.out.find("Kestrel"), std::string::npos) << "a replaced fact is not listed";
  r = cli.Run({"list", "--include-superseded"});
  EXPECT_NE(r.out.find("Kestrel"), std::string::npos) << r.out;
  r = cli.Run({"search", "standup", "--no-record"});
  EXPECT_EQ(r.out.find("Kestrel"), std::string::npos) << r.out;
  r = cli.Run({"history", new_id.substr(0, 6)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t first = r.out.find("Kestrel");
  const size_t second = r.out.find("Google Meet");
  ASSERT_NE(first, std::string::npos) << r.out;
  EXPECT_LT(first, second) << "oldest first: " << r.out;
  EXPECT_NE(r.out.find("superseded by " + new_id), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", current"), std::string::npos) << r.out;

  ASSERT_EQ(cli.Run({"add", "Standup moved to 11:00", "--supersedes", new_id}).exit_code, 0);
  EXPECT_EQ(cli.Run({"history", old_id}).out.find("11:00") != std::string::npos, true);

  // Forgetting the current version asks what becomes of the older ones.
  const std::string current = FirstId(cli);
  r = cli.Run({"forget", current, "--yes"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("history 'restore'"), std::string::npos) << r.err;
  r = cli.Run({"forget", current, "--yes", "--history", "restore"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(cli.Run({"list"}).out.find("10:15"), std::string::npos) << "the previous is back";
}

TEST(HistoryCliTest, TtlFiltersAndGc) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  ASSERT_EQ(cli.Run({"add", "postgres staging listens on 5433", "--tag", "db", "--tag", "staging",
                     "--meta", R"({"env": "staging"})"})
                .exit_code,
            0);
  ASSERT_EQ(cli.Run({"add", "postgres prod listens on 5432", "--tag", "db", "--meta",
                     R"({"env": "prod"})"})
                .exit_code,
            0);
  auto r = cli.Run({"search", "postgres", "--any-tag", "staging", "--no-record"});
  EXPECT_NE(r.out.find("5433"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("5432"), std::string::npos) << r.out;
  r = cli.Run({"list", "--meta-is", "env=prod"});
  EXPECT_NE(r.out.find("5432"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("5433"), std::string::npos) << r.out;
  r = cli.Run({"search", "postgres", "--since", "2000-01-01", "--until", "2001-01-01"});
  EXPECT_EQ(r.out.find("postgres"), std::string::npos) << "nothing that old: " << r.out;
  EXPECT_EQ(cli.Run({"search", "x", "--since", "yesterday"}).exit_code, 2);
  EXPECT_EQ(cli.Run({"add", "x", "--ttl", "soon"}).exit_code, 2);

  // Given its second only now, so a slow run of the commands above cannot
  // make it expire before they look.
  ASSERT_EQ(cli.Run({"add", "postgres canary listens on 5434", "--ttl", "1s"}).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  r = cli.Run({"list"});
  EXPECT_EQ(r.out.find("5434"), std::string::npos) << "expired: " << r.out;
  EXPECT_NE(r.out.find("5432"), std::string::npos) << r.out;
  r = cli.Run({"gc"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed 1 expired fact(s)"), std::string::npos) << r.out;
  EXPECT_EQ(cli.Run({"export"}).out.find("5434"), std::string::npos);
}

TEST(HistoryCliTest, AnIdOfAnotherScopeIsAnErrorThatNamesIt) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  ASSERT_EQ(cli.Run({"add", "Prefers dark mode", "--scope", "alice"}).exit_code, 0);
  const std::string id = FirstId(cli, {"--scope", "alice"});
  auto r = cli.Run({"show", id.substr(0, 8)});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("it is in scope 'alice'"), std::string::npos) << r.err;
  r = cli.Run({"forget", id, "--yes"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(cli.Run({"list", "--scope", "alice"}).out.find("dark mode") != std::string::npos, true)
      << "nothing forgotten across scopes";
}

TEST(HistoryCliTest, ATerminalNeverGetsAFactsRawControlCharacters) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  const std::string nasty = "evil \x1b[31mred\x1b[0m \xE2\x80\xAEgnp.exe\rhidden";
  ASSERT_EQ(cli.Run({"add", nasty, "--tag", "x"}).exit_code, 0);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"list"}, {"search", "evil", "--no-record"}}) {
    const auto r = cli.Run(args);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << args[0];
    EXPECT_EQ(r.out.find("\xE2\x80\xAE"), std::string::npos) << args[0];
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << args[0];
    EXPECT_NE(r.out.find("\\x1b[31mred"), std::string::npos) << r.out;
  }
  const auto shown = cli.Run({"show", FirstId(cli)});
  EXPECT_EQ(shown.out.find('\x1b'), std::string::npos);
  EXPECT_NE(shown.out.find("\\u202e"), std::string::npos) << shown.out;
  // Stored as given: the export has it exactly (JSON-escaped).
  EXPECT_NE(cli.Run({"export"}).out.find("\\u001b[31mred"), std::string::npos);
}

}  // namespace
}  // namespace engram
