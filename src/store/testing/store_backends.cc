#include "src/store/testing/store_backends.h"

#include <filesystem>
#include <random>
#include <string>
#include <utility>

#include "src/store/postgres/pg_store.h"
#include "src/store/postgres/testing/pg_test_database.h"
#include "src/store/sqlite/sqlite_store.h"

namespace engram::testing {

// The temporary directory or the test database holding the store.
struct StoreForTest::Place {
  std::filesystem::path directory;  // SQLite
  std::unique_ptr<PgTestDatabase> database;

  ~Place() {
    std::error_code ec;
    if (!directory.empty()) std::filesystem::remove_all(directory, ec);
  }
};

namespace {

Result<std::unique_ptr<Store>> OpenAt(Backend backend, const std::string& location) {
  if (backend == Backend::kSqlite) {
    SqliteStoreOptions options;
    options.path = location;
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store, SqliteStore::Open(options));
    return std::unique_ptr<Store>(std::move(store));
  }
  PgStoreOptions options;
  options.url = location;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgStore> store, PgStore::Open(options));
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace

std::vector<Backend> AllBackends() { return {Backend::kSqlite, Backend::kPostgres}; }

std::string BackendName(Backend backend) {
  return backend == Backend::kSqlite ? "Sqlite" : "Postgres";
}

StoreForTest::StoreForTest(Backend backend, std::unique_ptr<Place> place, std::string location,
                           std::unique_ptr<Store> store)
    : backend_(backend),
      place_(std::move(place)),
      location_(std::move(location)),
      store_(std::move(store)) {}

StoreForTest::~StoreForTest() { store_.reset(); }

Result<std::unique_ptr<StoreForTest>> StoreForTest::Create(Backend backend) {
  auto place = std::make_unique<Place>();
  std::string location;
  if (backend == Backend::kSqlite) {
    std::random_device random;
    place->directory = std::filesystem::temp_directory_path() /
                       ("engram-store-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(place->directory);
    location = (place->directory / "memory.db").string();
  } else {
    ENGRAM_ASSIGN_OR_RETURN(place->database, PgTestDatabase::Create());
    location = place->database->Url();
  }
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, OpenAt(backend, location));
  return std::unique_ptr<StoreForTest>(
      new StoreForTest(backend, std::move(place), std::move(location), std::move(store)));
}

Result<std::unique_ptr<Store>> StoreForTest::OpenAgain() const {
  return OpenAt(backend_, location_);
}

}  // namespace engram::testing
