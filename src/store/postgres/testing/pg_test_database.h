// A database of its own for one test, on the PostgreSQL cluster `make test`
// starts (scripts/pg_cluster.sh, wired as a ctest fixture): created empty,
// dropped with everything in it when the object goes. Tests that need one
// are registered with engram_test(... POSTGRES), which sets
// ENGRAM_TEST_POSTGRES_STATE to the cluster's state file. To run such a
// test by hand, start a cluster with `scripts/pg_cluster.sh start FILE`
// and set ENGRAM_TEST_POSTGRES_STATE=FILE (or ENGRAM_TEST_POSTGRES_URL to
// any server's URL whose user may create databases).
#ifndef ENGRAM_SRC_STORE_POSTGRES_TESTING_PG_TEST_DATABASE_H_
#define ENGRAM_SRC_STORE_POSTGRES_TESTING_PG_TEST_DATABASE_H_

#include <memory>
#include <string>
#include <utility>

#include "engram/status.h"

namespace engram::testing {

class PgTestDatabase {
 public:
  // A new, empty database. FailedPrecondition saying how to get a cluster
  // when none is configured; the server's error when it cannot be made.
  static Result<std::unique_ptr<PgTestDatabase>> Create();
  ~PgTestDatabase();
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;

  // A URL of the new database.
  const std::string& Url() const { return url_; }
  const std::string& Name() const { return name_; }
  // The URL of the cluster's maintenance database, `postgres`.
  const std::string& ClusterUrl() const { return cluster_url_; }

 private:
  PgTestDatabase(std::string cluster_url, std::string name, std::string url)
      : cluster_url_(std::move(cluster_url)), name_(std::move(name)), url_(std::move(url)) {}

  std::string cluster_url_;
  std::string name_;
  std::string url_;
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_STORE_POSTGRES_TESTING_PG_TEST_DATABASE_H_
