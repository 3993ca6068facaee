#include "src/store/sqlite/sqlite_version_store.h"

#include <algorithm>
#include <string>

namespace engram {
namespace {

// Appends every row of `s` (older_rowid, newer_rowid, cosine, explicit) to
// `out`.
Status ReadLinks(SqliteStatement* s, std::vector<VersionLink>* out) {
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s->Step());
    if (!row) return Status::OK();
    out->push_back(
        VersionLink{s->ColumnInt(0), s->ColumnInt(1), s->ColumnDouble(2), s->ColumnInt(3) != 0});
  }
}

}  // namespace

Status SqliteVersionStore::Put(const std::string& scope, const VersionLink& link) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string(link.explicit_update ? "INSERT OR REPLACE" : "INSERT OR IGNORE") +
                   " INTO fact_versions(older_rowid, newer_rowid, cosine, explicit) "
                   "SELECT ?1, ?2, ?3, ?4 WHERE (SELECT count(*) FROM facts WHERE scope = ?5 "
                   "AND rowid IN (?1, ?2)) = 2"));
  s.BindInt(1, link.older_rowid);
  s.BindInt(2, link.newer_rowid);
  s.BindDouble(3, link.cosine);
  s.BindInt(4, link.explicit_update ? 1 : 0);
  s.BindText(5, scope);
  return s.Run();
}

Result<const SqliteVersionStore::KeptLinks*> SqliteVersionStore::LinksOfThisSnapshot() {
  sqlite3* db = db_->handle();
  // Only in a transaction that reads and has written nothing: its snapshot
  // is fixed, and what it reads is what others read. The pragma starts the
  // read of a transaction that has read nothing yet.
  if (!keep_links_ || sqlite3_get_autocommit(db) != 0) return nullptr;
  ENGRAM_ASSIGN_OR_RETURN(const int64_t data_version, db_->QueryInt("PRAGMA data_version"));
  if (sqlite3_txn_state(db, "main") != SQLITE_TXN_READ) return nullptr;
  const int64_t own_changes = sqlite3_total_changes64(db);
  if (kept_.data_version == data_version && kept_.own_changes == own_changes) return &kept_;
  kept_ = KeptLinks{};
  // Counted no further than the limit: a whole count of a million links
  // takes about 4 ms, which every connection would pay after each commit.
  ENGRAM_ASSIGN_OR_RETURN(const int64_t count,
                          db_->QueryInt("SELECT count(*) FROM (SELECT 1 FROM fact_versions LIMIT " +
                                        std::to_string(kMaxKeptLinks + 1) + ")"));
  if (count <= static_cast<int64_t>(kMaxKeptLinks)) {
    ENGRAM_ASSIGN_OR_RETURN(kept_.links, All());
    kept_.all = true;
  }
  kept_.data_version = data_version;
  kept_.own_changes = own_changes;
  return &kept_;
}

Result<std::vector<VersionLink>> SqliteVersionStore::NewerThan(
    const std::vector<std::string>& /*scopes*/, const std::vector<int64_t>& rowids) {
  std::vector<VersionLink> out;
  if (rowids.empty()) return out;
  std::vector<int64_t> sorted = rowids;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  ENGRAM_ASSIGN_OR_RETURN(const KeptLinks* kept, LinksOfThisSnapshot());
  if (kept != nullptr && kept->all) {
    const auto by_older = [](const VersionLink& l, int64_t rowid) { return l.older_rowid < rowid; };
    auto from = kept->links.begin();
    for (const int64_t rowid : sorted) {
      from = std::lower_bound(from, kept->links.end(), rowid, by_older);
      for (; from != kept->links.end() && from->older_rowid == rowid; ++from) out.push_back(*from);
    }
    return out;
  }
  // The range is walked first, for at most the rows the lookups would cost:
  // a range that holds no more links than that is read whole, cheaper than
  // the lookups; one that holds more is left there for the lookups, so
  // either way about twice the cheaper of the two is read at most. A
  // lexical search's candidates over short facts are a few in ten of the
  // scope, and its links fewer still.
  const int64_t budget = static_cast<int64_t>(sorted.size()) * kLookupRows;
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement range,
      db_->Prepare("SELECT older_rowid, newer_rowid, cosine, explicit FROM fact_versions "
                   "WHERE older_rowid BETWEEN ?1 AND ?2 ORDER BY older_rowid, newer_rowid "
                   "LIMIT ?3"));
  range.BindInt(1, sorted.front());
  range.BindInt(2, sorted.back());
  range.BindInt(3, budget + 1);
  ENGRAM_RETURN_IF_ERROR(ReadLinks(&range, &out));
  if (static_cast<int64_t>(out.size()) <= budget) {
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const VersionLink& l) {
                               return !std::binary_search(sorted.begin(), sorted.end(),
                                                          l.older_rowid);
                             }),
              out.end());
    return out;
  }
  out.clear();
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT older_rowid, newer_rowid, cosine, explicit FROM fact_versions "
                   "WHERE older_rowid = ?1 ORDER BY newer_rowid"));
  for (int64_t rowid : sorted) {
    s.BindInt(1, rowid);
    ENGRAM_RETURN_IF_ERROR(ReadLinks(&s, &out));
    s.Reset();
  }
  return out;
}

Result<std::vector<VersionLink>> SqliteVersionStore::All() {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT older_rowid, newer_rowid, cosine, explicit FROM fact_versions "
                   "ORDER BY older_rowid, newer_rowid"));
  std::vector<VersionLink> out;
  ENGRAM_RETURN_IF_ERROR(ReadLinks(&s, &out));
  return out;
}

}  // namespace engram
