// Opens a SqliteStore on a real SQLite file, as the engine does, for tests
// below the engine.
#ifndef ENGRAM_TESTS_STORE_FOR_TEST_H_
#define ENGRAM_TESTS_STORE_FOR_TEST_H_

#include <memory>
#include <string>

#include "src/store/sqlite/sqlite_store.h"

namespace engram::testing {

inline SqliteStoreOptions StoreOptionsForTest(const std::string& path, bool create = true) {
  SqliteStoreOptions o;
  o.path = path;
  o.create_if_missing = create;
  return o;
}

inline Result<std::unique_ptr<SqliteStore>> OpenStoreForTest(const std::string& path,
                                                             bool create = true) {
  return SqliteStore::Open(StoreOptionsForTest(path, create));
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_STORE_FOR_TEST_H_
