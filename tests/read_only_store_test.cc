// A store its user cannot write: files 0444 in directories 0555, as a
// backup restored read-only or a store shared for reading. Every command
// that only reads answers from it; a search answers and says it could not
// count the access; a write fails with an error that says why; and not a
// byte of the store changes. Run as root, for whom modes do not hold, the
// commands run as `nobody` through setpriv(1), from a copy of the binary
// that user can reach.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/cli_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::CliRunner;

constexpr uid_t kNobody = 65534;

// Every file under `dir` with its bytes.
std::map<std::string, std::string> Files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) out[entry.path().string()] = testing::ReadFile(entry.path());
  }
  return out;
}

// Gives `dir` and everything under it to `owner` (when not -1) with modes
// `dirs` and `files`.
void SetModes(const fs::path& dir, uid_t owner, mode_t dirs, mode_t files) {
  const auto set = [&](const fs::path& p, mode_t mode) {
    if (owner != static_cast<uid_t>(-1)) {
      ASSERT_EQ(chown(p.c_str(), owner, owner), 0) << p;
    }
    ASSERT_EQ(chmod(p.c_str(), mode), 0) << p;
  };
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    set(entry.path(), entry.is_directory() ? dirs : files);
  }
  set(dir, dirs);
}

TEST(ReadOnlyStoreTest, ReadCommandsAnswerAndWritesFailWithoutChangingAByte) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "hash:dim=16");
  ASSERT_EQ(cli.Run({"add", "The backup server lives in rack seven", "--tag", "infra"}).exit_code,
            0);
  const CliResult added = cli.Run({"add", "Deploys go out on Tuesday afternoons"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  const std::string id = testing::IdIn(added.out);
  const CliResult updated = cli.Run({"update", id, "Deploys go out on Wednesday afternoons"});
  ASSERT_EQ(updated.exit_code, 0) << updated.err;

  // A search leaves its short log of access counts beside the file
  // (EngineOptions::keep_log_below_bytes): readers read it too.
  ASSERT_EQ(cli.Run({"search", "Wednesday deploys"}).exit_code, 0);
  ASSERT_TRUE(fs::exists(cli.DbPath() + "-wal"));

  const fs::path home = cli.home();
  const bool root = geteuid() == 0;
  if (root) {
    const std::string copy = cli.File("bin/engram");
    fs::create_directories(fs::path(copy).parent_path());
    fs::copy_file(ENGRAM_BINARY, copy);
    ASSERT_EQ(chmod(fs::path(copy).parent_path().c_str(), 0755), 0);
    ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
    ASSERT_EQ(chmod(cli.File("").c_str(), 0755), 0);
    cli.SetBinary(copy, {"/usr/bin/setpriv", "--reuid=" + std::to_string(kNobody),
                         "--regid=" + std::to_string(kNobody), "--clear-groups"});
  }
  SetModes(home, root ? kNobody : static_cast<uid_t>(-1), 0555, 0444);
  const auto before = Files(home);

  const auto expect_answers = [&](const std::vector<std::string>& args, const std::string& want) {
    const CliResult r = cli.Run(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.out << r.err;
    EXPECT_NE(r.out.find(want), std::string::npos) << args[0] << ": " << r.out << r.err;
    return r;
  };
  expect_answers({"list"}, "Wednesday afternoons");
  expect_answers({"show", id}, "Tuesday afternoons");
  expect_answers({"history", id}, "Wednesday afternoons");
  expect_answers({"export"}, "rack seven");
  const CliResult checked = expect_answers({"check"}, "no problem");
  EXPECT_NE(checked.err.find("not checked, the store is read-only"), std::string::npos)
      << checked.err;
  expect_answers({"config"}, "memory.db");
  expect_answers({"search", "backup rack", "--no-record"}, "rack seven");
  const CliResult counted = expect_answers({"search", "backup rack"}, "rack seven");
  EXPECT_NE(counted.err.find("access"), std::string::npos)
      << "a search that could not count its access says so: " << counted.err;

  const CliResult add = cli.Run({"add", "A fact that cannot be written"});
  EXPECT_EQ(add.exit_code, 1) << add.out << add.err;
  EXPECT_NE(add.err.find("read"), std::string::npos) << add.err;
  const CliResult forget = cli.Run({"forget", "--tag", "infra", "--yes"});
  EXPECT_EQ(forget.exit_code, 1) << forget.out << forget.err;

  EXPECT_EQ(Files(home), before) << "the read-only store changed";
  // Writable again, for the clean-up and to show the store is whole.
  SetModes(home, root ? 0 : static_cast<uid_t>(-1), 0700, 0600);
  cli.SetBinary(ENGRAM_BINARY);
  expect_answers({"check"}, "no problem");
}

}  // namespace
}  // namespace engram
