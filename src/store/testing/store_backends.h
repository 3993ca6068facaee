// Stores of every backend for tests that must hold for each: a SqliteStore
// on a file in a temporary directory, or a PgStore on a database of its own
// on the test cluster (pg_test_database.h; the test program is registered
// with engram_test(... POSTGRES)). Both go, with everything in them, when
// the StorePlace does.
#ifndef ENGRAM_SRC_STORE_TESTING_STORE_BACKENDS_H_
#define ENGRAM_SRC_STORE_TESTING_STORE_BACKENDS_H_

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "engram/options.h"
#include "engram/status.h"
#include "src/store/store.h"

namespace engram::testing {

class PgTestDatabase;

enum class Backend { kSqlite, kPostgres };

// Every backend, for INSTANTIATE_TEST_SUITE_P.
std::vector<Backend> AllBackends();
// "Sqlite" or "Postgres", for test names.
std::string BackendName(Backend backend);
inline std::ostream& operator<<(std::ostream& out, Backend backend) {
  return out << BackendName(backend);
}

// Where a test's store lives: a temporary directory, and for PostgreSQL a
// database of its own as well.
class StorePlace {
 public:
  static Result<std::unique_ptr<StorePlace>> Create(Backend backend);
  ~StorePlace();
  StorePlace(const StorePlace&) = delete;
  StorePlace& operator=(const StorePlace&) = delete;

  Backend backend() const { return backend_; }  // NOLINT(readability-identifier-naming): accessor
  // The temporary directory (the SQLite file, derived files).
  const std::string& Directory() const { return directory_; }
  // Points an engine at this place: db_path in the directory, and
  // store_url at the database for PostgreSQL.
  void Apply(EngineOptions* options) const;
  // The store here, opened as the engine opens it.
  Result<std::unique_ptr<Store>> OpenStore() const;

 private:
  StorePlace(Backend backend, std::string directory, std::unique_ptr<PgTestDatabase> database);

  Backend backend_;
  std::string directory_;
  std::unique_ptr<PgTestDatabase> database_;  // PostgreSQL only
};

// A store of its own in a StorePlace, open.
class StoreForTest {
 public:
  // A new, empty store of `backend`.
  static Result<std::unique_ptr<StoreForTest>> Create(Backend backend);
  ~StoreForTest();
  StoreForTest(const StoreForTest&) = delete;
  StoreForTest& operator=(const StoreForTest&) = delete;

  Store& store() const { return *store_; }  // NOLINT(readability-identifier-naming): accessor

 private:
  StoreForTest(std::unique_ptr<StorePlace> place, std::unique_ptr<Store> store)
      : place_(std::move(place)), store_(std::move(store)) {}

  std::unique_ptr<StorePlace> place_;  // removed after the store closes
  std::unique_ptr<Store> store_;
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_STORE_TESTING_STORE_BACKENDS_H_
