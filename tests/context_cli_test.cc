// `engram context`: attach, list, search, refresh and detach through the
// binary, with the hash embedder (fast under the sanitizers), and the
// errors a user meets, with their exit codes (0 ok, 1 runtime, 2 usage).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/cli_runner.h"

namespace engram {
namespace {

using testing::CliRunner;
using testing::WriteFile;

class ContextCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cli_.SetEnv("ENGRAM_EMBED_PROVIDER", "hash:dim=64");
    std::filesystem::create_directories(cli_.File("proj/docs"));
    WriteFile(cli_.File("proj/docs/db.md"), "The staging database is Postgres on port 5433.\n");
    WriteFile(cli_.File("proj/deploy.md"), "Deploys go out on Tuesday mornings.\n");
  }
  CliRunner cli_;
};

TEST_F(ContextCliTest, AttachListSearchRefreshDetach) {
  auto r = cli_.Run({"context", "attach", cli_.File("proj"), "--name", "proj"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "attached 'proj': 2 file(s), 2 chunk(s)\n"
            "embedded 2 chunk text(s) in 1 call(s); 0 reused\n");

  r = cli_.Run({"context", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("proj  2 file(s)  2 chunk(s)  attached ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("  " + cli_.File("proj") + "\n"), std::string::npos) << r.out;

  r = cli_.Run({"context", "search", "postgres port", "-k", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(cli_.File("proj/docs/db.md") + ":1-1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("      The staging database is Postgres on port 5433.\n"), std::string::npos)
      << r.out;

  r = cli_.Run({"context", "search", "tuesday deploys", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["semantic"].get<bool>());
  ASSERT_FALSE(j["hits"].empty());
  EXPECT_EQ(j["hits"][0]["path"], cli_.File("proj/deploy.md"));
  EXPECT_EQ(j["hits"][0]["start_line"], 1);
  EXPECT_EQ(j["hits"][0]["text"], "Deploys go out on Tuesday mornings.\n");
  EXPECT_TRUE(j["hits"][0]["signals"]["lexical"]["present"].get<bool>());

  WriteFile(cli_.File("proj/deploy.md"), "Deploys go out on Thursday afternoons.\n");
  WriteFile(cli_.File("proj/new.md"), "A new note.\n");
  r = cli_.Run({"context", "refresh"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "refreshed 'proj': 1 changed, 1 added, 0 removed, 1 unchanged; 3 file(s), 3 "
            "chunk(s)\nembedded 2 chunk text(s) in 1 call(s); 0 reused\n");
  r = cli_.Run({"context", "refresh", "proj"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("embedded 0 chunk text(s) in 0 call(s)"), std::string::npos) << r.out;

  r = cli_.Run({"context", "detach", "proj"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "detached 'proj' (3 file(s), 3 chunk(s))\n");
  r = cli_.Run({"context", "list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "no attachments; add one with 'engram context attach PATH'\n");
}

TEST_F(ContextCliTest, ErrorsNameTheProblemAndExitWithTheRightCode) {
  auto r = cli_.Run({"context", "attach", cli_.File("proj"), cli_.File("missing")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "engram: context: attach: '" + cli_.File("missing") + "': no such file or directory\n");

  ASSERT_EQ(cli_.Run({"context", "attach", cli_.File("proj")}).exit_code, 0);
  r = cli_.Run({"context", "attach", cli_.File("proj/docs"), "--name", "proj"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "engram: context: attach: an attachment named 'proj' already exists (refresh it, "
            "detach it, or choose another --name)\n");

  r = cli_.Run({"context", "detach", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "engram: context: detach: no attachment named 'nope'\n");
  r = cli_.Run({"context", "refresh", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "engram: context: refresh: no attachment named 'nope'\n");
  r = cli_.Run({"context", "search", "x", "-a", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "engram: context: search: no attachment named 'nope'\n");

  EXPECT_EQ(cli_.Run({"context"}).exit_code, 2);
  EXPECT_EQ(cli_.Run({"context", "attach"}).exit_code, 2);
  EXPECT_EQ(cli_.Run({"context", "search"}).exit_code, 2);
  EXPECT_EQ(cli_.Run({"context", "search", "x", "-k", "0"}).exit_code, 2);
  EXPECT_EQ(cli_.Run({"context", "detach"}).exit_code, 2);
}

TEST_F(ContextCliTest, SkippedFilesAreNotedAndKeywordOnlySaysSo) {
  cli_.SetEnv("ENGRAM_EMBED_PROVIDER", "null");
  WriteFile(cli_.File("proj/logo.png"), std::string("\x89PNG\0\0", 6));
  WriteFile(cli_.File("proj/.gitignore"), "*.tmp\n");
  WriteFile(cli_.File("proj/scratch.tmp"), "ignored\n");
  auto r = cli_.Run({"context", "attach", cli_.File("proj")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "attached 'proj': 3 file(s), 3 chunk(s)\n"
            "keyword-only (no embedding provider): no vectors\n");
  EXPECT_EQ(r.err, "engram: note: skipped " + cli_.File("proj/logo.png") +
                       ": binary (NUL byte in the first 8 KiB)\n");
  r = cli_.Run({"context", "search", "postgres"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "engram: note: lexical only (no embedding provider)\n");
  EXPECT_NE(r.out.find("db.md:1-1"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace engram
