// `engram check` on a real store: whole, then with one byte of a fact's
// content flipped in the database file itself (as a disk or a careless
// editor would, past every trigger), a damaged full-text index block, and
// a vector gone bad.
#include <sqlite3.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <string>

#include "tests/cli_runner.h"

namespace engram {
namespace {

using testing::CliRunner;

TEST(CheckCliTest, NamesTheFactWhoseContentChangedOnDisk) {
  CliRunner cli;
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "hash:dim=16");
  auto a = cli.Run({"add", "The quartermaster keeps spare keys in the blue tin"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto b = cli.Run({"add", "Deploys go out on Tuesday afternoons"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const std::string changed = testing::IdIn(a.out), untouched = testing::IdIn(b.out);
  ASSERT_EQ(changed.size(), 24u) << a.out;

  auto whole = cli.Run({"check"});
  EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  EXPECT_EQ(whole.out, "checked 2 fact(s), 2 vector(s): no problem\n");

  // One byte of the content, in the file: 'q' becomes 'p'.
  std::string bytes = testing::ReadFile(cli.DbPath());
  const size_t at = bytes.find("quartermaster keeps");
  ASSERT_NE(at, std::string::npos) << "the content is in the main file once the CLI has exited";
  ASSERT_EQ(bytes.find("quartermaster keeps", at + 1), std::string::npos);
  bytes[at] = 'p';
  testing::WriteFile(cli.DbPath(), bytes);

  auto broken = cli.Run({"check"});
  EXPECT_EQ(broken.exit_code, 1) << broken.out << broken.err;
  EXPECT_NE(broken.out.find("fact " + changed +
                            " (scope 'default'): its content no longer matches its id"),
            std::string::npos)
      << broken.out;
  EXPECT_EQ(broken.out.find(untouched), std::string::npos) << broken.out;
  // Named, not served: search leaves it out and says so; show refuses it.
  auto searched = cli.Run({"search", "quartermaster spare keys blue tin", "--no-record"});
  EXPECT_EQ(searched.out.find(changed), std::string::npos) << searched.out;
  EXPECT_NE(searched.err.find("fact " + changed +
                              " (scope 'default') left out: its content no "
                              "longer matches its id"),
            std::string::npos)
      << searched.err;
  auto shown = cli.Run({"show", changed});
  EXPECT_EQ(shown.exit_code, 1) << shown.out;
  EXPECT_NE(shown.err.find("no longer matches its id"), std::string::npos) << shown.err;
  EXPECT_EQ(cli.Run({"show", untouched}).exit_code, 0);

  // A damaged block of the full-text index.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(cli.DbPath().c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db,
                         "UPDATE facts_fts_data SET block = x'00ff00ff00ff' WHERE id = "
                         "(SELECT max(id) FROM facts_fts_data)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  auto bad_index = cli.Run({"check"});
  EXPECT_EQ(bad_index.exit_code, 1);
  EXPECT_NE(bad_index.out.find("full-text index facts_fts: "), std::string::npos) << bad_index.out;

  // A vector with a NaN: named by its fact, and backfill replaces it.
  const std::string nan =
      "UPDATE fact_vectors SET vector = cast(x'0000c07f' || substr(vector, 5) "
      "AS BLOB) WHERE fact_rowid = (SELECT rowid FROM facts WHERE id = '" +
      untouched + "')";
  EXPECT_EQ(sqlite3_exec(db, nan.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto bad_vector = cli.Run({"check"});
  EXPECT_EQ(bad_vector.exit_code, 1);
  EXPECT_NE(bad_vector.out.find("fact " + untouched +
                                ": its vector in space hash:fnv1a:16 is "
                                "unusable (vindex: check vector: NaN at component 0)"),
            std::string::npos)
      << bad_vector.out;
  auto backfill = cli.Run({"backfill"});
  EXPECT_NE(backfill.out.find("deleted 1 unusable stored vector(s)"), std::string::npos)
      << backfill.out << backfill.err;
  auto after = cli.Run({"check"});
  EXPECT_EQ(after.out.find(untouched), std::string::npos) << after.out;
}

#ifdef ENGRAM_TEST_MODEL_FILE
// The embedded model file is hashed whole, whatever its stamp says.
TEST(CheckCliTest, HashesTheWholeModelFile) {
  CliRunner cli;
  testing::TempDir models;
  const std::string model = models.File("use-lite-en.bin");
  std::string bytes = testing::ReadFile(ENGRAM_TEST_MODEL_FILE);
  testing::WriteFile(model, bytes);
  cli.SetEnv("ENGRAM_EMBED_MODELS_DIR", models.path().string());
  ASSERT_EQ(cli.Run({"add", "The quartermaster keeps spare keys in the blue tin"}).exit_code, 0);
  auto whole = cli.Run({"check"});
  EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  EXPECT_EQ(whole.out, "checked 1 fact(s), 1 vector(s) and the model file: no problem\n");

  bytes[bytes.size() / 2] ^= 0x40;
  testing::WriteFile(model, bytes);
  auto damaged = cli.Run({"check"});
  EXPECT_EQ(damaged.exit_code, 1) << damaged.out << damaged.err;
  EXPECT_NE(damaged.out.find("use-lite-en.bin: checksum mismatch"), std::string::npos)
      << damaged.out;
}
#endif

}  // namespace
}  // namespace engram
