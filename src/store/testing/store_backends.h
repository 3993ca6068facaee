// Stores of every backend for tests that must hold for each: a SqliteStore
// on a file in a temporary directory, or a PgStore on a database of its own
// on the test cluster (pg_test_database.h; the test program is registered
// with engram_test(... POSTGRES)). Both go, with everything in them, when
// the StoreForTest does.
#ifndef ENGRAM_SRC_STORE_TESTING_STORE_BACKENDS_H_
#define ENGRAM_SRC_STORE_TESTING_STORE_BACKENDS_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/store/store.h"

namespace engram::testing {

enum class Backend { kSqlite, kPostgres };

// Every backend, for INSTANTIATE_TEST_SUITE_P.
std::vector<Backend> AllBackends();
// "Sqlite" or "Postgres", for test names.
std::string BackendName(Backend backend);
inline std::ostream& operator<<(std::ostream& out, Backend backend) {
  return out << BackendName(backend);
}

class StoreForTest {
 public:
  // A new, empty store of `backend`.
  static Result<std::unique_ptr<StoreForTest>> Create(Backend backend);
  ~StoreForTest();
  StoreForTest(const StoreForTest&) = delete;
  StoreForTest& operator=(const StoreForTest&) = delete;

  Store& store() const { return *store_; }  // NOLINT(readability-identifier-naming): accessor
  // The place as a URL or path, as EngineOptions and the CLI name it.
  const std::string& Location() const { return location_; }
  // The store opened again from its location, as another process would.
  Result<std::unique_ptr<Store>> OpenAgain() const;

 private:
  struct Place;
  StoreForTest(Backend backend, std::unique_ptr<Place> place, std::string location,
               std::unique_ptr<Store> store);

  Backend backend_;
  std::unique_ptr<Place> place_;  // the directory or database, removed last
  std::string location_;
  std::unique_ptr<Store> store_;
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_STORE_TESTING_STORE_BACKENDS_H_
