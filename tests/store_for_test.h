// Opens a SqliteStore on a real SQLite file, as the engine does, for tests
// below the engine; and the rows such tests write.
#ifndef ENGRAM_TESTS_STORE_FOR_TEST_H_
#define ENGRAM_TESTS_STORE_FOR_TEST_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/store/fact_id.h"
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

// SQL that takes a store of the current schema back to schema 9, for tests
// of migrations from older files: drops what schema 10 added (the
// numbering of changes), leaving user_version to the caller.
inline constexpr char kUndoSchema10[] =
    "DROP TRIGGER facts_changed_insert; DROP TRIGGER facts_changed_update; "
    "DROP INDEX facts_changed; DROP TABLE fact_changes; ALTER TABLE facts DROP COLUMN changed; ";

// A fact of `content` (its id from it) in `scope` with `tags`, created,
// updated and last read at 1000, with no counts of analysed terms.
inline FactRow FactRowForTest(const std::string& content, const std::string& scope = "default",
                              std::vector<std::string> tags = {}) {
  FactRow row;
  row.fact.id = FactId(content);
  row.fact.scope = scope;
  row.fact.content = content;
  row.fact.tags = std::move(tags);
  row.fact.created_at = row.fact.updated_at = row.fact.last_accessed = 1000;
  return row;
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_STORE_FOR_TEST_H_
