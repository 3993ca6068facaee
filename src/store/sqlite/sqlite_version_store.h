// SqliteVersionStore: VersionStore on a SQLite connection (schema 6,
// fact_versions; its links go with either fact by the facts' delete
// trigger).
//
// Thread-safety: none; it works on its SqliteStore's connection.
#ifndef ENGRAM_SRC_STORE_SQLITE_SQLITE_VERSION_STORE_H_
#define ENGRAM_SRC_STORE_SQLITE_SQLITE_VERSION_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/store/sqlite/sqlite_db.h"
#include "src/store/version_store.h"

namespace engram {

class SqliteVersionStore final : public VersionStore {
 public:
  explicit SqliteVersionStore(SqliteDb* db) : db_(db) {}

  Status Put(const std::string& scope, const VersionLink& link) override;
  // The links of the rowids asked are read in one walk of their range when
  // it holds at most kLookupRows links per rowid asked (a lookup costs
  // several rows' steps), else one lookup per rowid.
  static constexpr int64_t kLookupRows = 4;
  Result<std::vector<VersionLink>> NewerThan(const std::vector<std::string>& scopes,
                                             const std::vector<int64_t>& rowids) override;
  Result<std::vector<VersionLink>> All() override;

 private:
  SqliteDb* db_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_VERSION_STORE_H_
