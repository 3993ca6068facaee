#include "src/store/postgres/testing/pg_test_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>

#include "src/store/postgres/pg_connection.h"

namespace engram::testing {
namespace {

// The cluster's URL from the environment (see the header).
Result<std::string> ConfiguredClusterUrl() {
  if (const char* url = std::getenv("ENGRAM_TEST_POSTGRES_URL"); url != nullptr && *url != '\0') {
    return std::string(url);
  }
  const char* state = std::getenv("ENGRAM_TEST_POSTGRES_STATE");
  if (state == nullptr || *state == '\0') {
    return FailedPrecondition(
        "no PostgreSQL cluster for this test: run it through ctest (make test), or start one "
        "with scripts/pg_cluster.sh start FILE and set ENGRAM_TEST_POSTGRES_STATE=FILE");
  }
  std::ifstream in(state);
  std::string url;
  if (!std::getline(in, url) || !IsPostgresUrl(url)) {
    return FailedPrecondition(std::string("no cluster URL in ") + state +
                              " (is the postgres_cluster_start test's cluster running?)");
  }
  return url;
}

// `cluster_url` with its database replaced by `name`: the URL's path.
std::string WithDatabase(const std::string& cluster_url, const std::string& name) {
  const size_t scheme_end = cluster_url.find("://") + 3;
  const size_t path = cluster_url.find('/', scheme_end);
  const size_t query = cluster_url.find('?', scheme_end);
  const size_t path_end = query == std::string::npos ? cluster_url.size() : query;
  const size_t host_end = path == std::string::npos || path > path_end ? path_end : path;
  return cluster_url.substr(0, host_end) + "/" + name + cluster_url.substr(path_end);
}

}  // namespace

Result<std::unique_ptr<PgTestDatabase>> PgTestDatabase::Create() {
  static std::atomic<int> made{0};
  ENGRAM_ASSIGN_OR_RETURN(const std::string cluster_url, ConfiguredClusterUrl());
  const std::string name =
      "engram_test_" + std::to_string(::getpid()) + "_" + std::to_string(made++);
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> admin, PgConnection::Connect(cluster_url));
  ENGRAM_RETURN_IF_ERROR(admin->Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
  ENGRAM_RETURN_IF_ERROR(admin->Exec("CREATE DATABASE " + name));
  return std::unique_ptr<PgTestDatabase>(
      new PgTestDatabase(cluster_url, name, WithDatabase(cluster_url, name)));
}

PgTestDatabase::~PgTestDatabase() {
  auto admin = PgConnection::Connect(cluster_url_);
  if (admin.ok())
    (*admin)->Exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)").IgnoreError();
}

}  // namespace engram::testing
