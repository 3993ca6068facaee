#include "src/store/version_store.h"

#include <algorithm>

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

Status VersionStore::Put(const VersionLink& link) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(link.explicit_update
                       ? "INSERT OR REPLACE INTO fact_versions(older_rowid, newer_rowid, cosine, "
                         "explicit) VALUES (?1, ?2, ?3, 1)"
                       : "INSERT OR IGNORE INTO fact_versions(older_rowid, newer_rowid, cosine, "
                         "explicit) VALUES (?1, ?2, ?3, 0)"));
  s.BindInt(1, link.older_rowid);
  s.BindInt(2, link.newer_rowid);
  s.BindDouble(3, link.cosine);
  return s.Run();
}

Result<std::vector<VersionLink>> VersionStore::NewerThan(const std::vector<int64_t>& rowids) {
  std::vector<VersionLink> out;
  if (rowids.empty()) return out;
  std::vector<int64_t> sorted = rowids;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
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

Result<std::vector<VersionLink>> VersionStore::All() {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT older_rowid, newer_rowid, cosine, explicit FROM fact_versions "
                   "ORDER BY older_rowid, newer_rowid"));
  std::vector<VersionLink> out;
  ENGRAM_RETURN_IF_ERROR(ReadLinks(&s, &out));
  return out;
}

}  // namespace engram
