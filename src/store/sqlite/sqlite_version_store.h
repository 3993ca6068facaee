// SqliteVersionStore: VersionStore on a SQLite connection (schema 6,
// fact_versions; its links go with either fact by the facts' delete
// trigger).
//
// NewerThan keeps the store's links in memory when they are few, for as
// long as no connection changes the database: a search asks for the links
// of about a thousand candidates twice, and on 10,000 facts reading them
// from SQLite was about 3% of a server's search. A connection made not to
// keep them (a process that searches once, which would read every link to
// use a few) reads the links it is asked for each time.
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
  // `keep_links`: whether NewerThan keeps the links in memory (above).
  SqliteVersionStore(SqliteDb* db, bool keep_links) : db_(db), keep_links_(keep_links) {}

  Status Put(const std::string& scope, const VersionLink& link) override;
  // The links of the rowids asked are read in one walk of their range when
  // it holds at most kLookupRows links per rowid asked (a lookup costs
  // several rows' steps), else one lookup per rowid.
  static constexpr int64_t kLookupRows = 4;
  Result<std::vector<VersionLink>> NewerThan(const std::vector<std::string>& scopes,
                                             const std::vector<int64_t>& rowids) override;
  Result<std::vector<VersionLink>> All() override;

  // Most links NewerThan keeps in memory, about 32 bytes each: at most
  // 2 MB per connection (a server opens the readers' and its own).
  static constexpr size_t kMaxKeptLinks = 1 << 16;
  // How many links are kept in memory now.
  size_t LinksInMemory() const { return kept_.links.size(); }

 private:
  // Every link of the store, by older then newer rowid, as a read
  // transaction of this connection saw them: what `data_version` (PRAGMA
  // data_version: other connections' commits) and `own_changes` (this
  // connection's rows written) were then. Valid while both hold still.
  struct KeptLinks {
    int64_t data_version = -1;
    int64_t own_changes = -1;
    bool all = false;  // false: more than kMaxKeptLinks, none kept
    std::vector<VersionLink> links;
  };
  // The links kept, read again when the connection's snapshot is not the
  // one they describe; null outside a read-only transaction, where no
  // snapshot is fixed or this connection's own writes are not yet final.
  Result<const KeptLinks*> LinksOfThisSnapshot();

  SqliteDb* db_;
  bool keep_links_;
  KeptLinks kept_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_VERSION_STORE_H_
