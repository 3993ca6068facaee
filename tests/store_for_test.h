// Opens a FactStore on a real SQLite file, as the engine does, for tests
// below the engine.
#ifndef ENGRAM_TESTS_STORE_FOR_TEST_H_
#define ENGRAM_TESTS_STORE_FOR_TEST_H_

#include <memory>
#include <string>

#include "src/store/fact_store.h"

namespace engram::testing {

inline FactStoreOptions StoreOptionsForTest(const std::string& path, bool create = true) {
  FactStoreOptions o;
  o.path = path;
  o.create_if_missing = create;
  return o;
}

inline Result<std::unique_ptr<FactStore>> OpenStoreForTest(const std::string& path,
                                                           bool create = true) {
  return FactStore::Open(StoreOptionsForTest(path, create));
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_STORE_FOR_TEST_H_
