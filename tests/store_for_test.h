// Opens a FactStore on a real SQLite file with engram's FTS5 extensions, as
// the engine does, for tests below the engine.
#ifndef ENGRAM_TESTS_STORE_FOR_TEST_H_
#define ENGRAM_TESTS_STORE_FOR_TEST_H_

#include <memory>
#include <string>

#include "src/lexical/fts5_engram.h"
#include "src/store/fact_store.h"

namespace engram::testing {

inline FactStoreOptions StoreOptionsForTest(const std::string& path, bool create = true) {
  FactStoreOptions o;
  o.path = path;
  o.create_if_missing = create;
  o.on_connect = &RegisterEngramFts5;
  return o;
}

inline Result<std::unique_ptr<FactStore>> OpenStoreForTest(const std::string& path,
                                                           bool create = true) {
  return FactStore::Open(StoreOptionsForTest(path, create));
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_STORE_FOR_TEST_H_
