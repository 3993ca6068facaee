#include "src/store/testing/store_backends.h"

#include <filesystem>
#include <random>
#include <string>
#include <utility>

#include "src/store/postgres/pg_store.h"
#include "src/store/postgres/testing/pg_test_database.h"
#include "src/store/sqlite/sqlite_store.h"

namespace engram::testing {

std::vector<Backend> AllBackends() { return {Backend::kSqlite, Backend::kPostgres}; }

std::string BackendName(Backend backend) {
  return backend == Backend::kSqlite ? "Sqlite" : "Postgres";
}

StorePlace::StorePlace(Backend backend, std::string directory,
                       std::unique_ptr<PgTestDatabase> database)
    : backend_(backend), directory_(std::move(directory)), database_(std::move(database)) {}

StorePlace::~StorePlace() {
  database_.reset();
  std::error_code ec;
  std::filesystem::remove_all(directory_, ec);
}

Result<std::unique_ptr<StorePlace>> StorePlace::Create(Backend backend) {
  std::unique_ptr<PgTestDatabase> database;
  if (backend == Backend::kPostgres) {
    ENGRAM_ASSIGN_OR_RETURN(database, PgTestDatabase::Create());
  }
  std::random_device random;
  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() /
      ("engram-store-" + std::to_string(random()) + std::to_string(random()));
  std::filesystem::create_directories(directory);
  return std::unique_ptr<StorePlace>(
      new StorePlace(backend, directory.string(), std::move(database)));
}

void StorePlace::Apply(EngineOptions* options) const {
  options->db_path = (std::filesystem::path(directory_) / "memory.db").string();
  options->store_url = database_ ? database_->Url() : "";
}

Result<std::unique_ptr<Store>> StorePlace::OpenStore() const {
  EngineOptions where;
  Apply(&where);
  if (!where.store_url.empty()) {
    PgStoreOptions options;
    options.url = where.store_url;
    options.sidecar_prefix = where.db_path;
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgStore> store, PgStore::Open(options));
    return std::unique_ptr<Store>(std::move(store));
  }
  SqliteStoreOptions options;
  options.path = where.db_path;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store, SqliteStore::Open(options));
  return std::unique_ptr<Store>(std::move(store));
}

StoreForTest::~StoreForTest() { store_.reset(); }

Result<std::unique_ptr<StoreForTest>> StoreForTest::Create(Backend backend) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<StorePlace> place, StorePlace::Create(backend));
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, place->OpenStore());
  return std::unique_ptr<StoreForTest>(new StoreForTest(std::move(place), std::move(store)));
}

}  // namespace engram::testing
