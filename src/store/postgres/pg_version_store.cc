#include "src/store/postgres/pg_version_store.h"

#include "src/store/fact_store.h"
#include "src/store/postgres/pg_query.h"

namespace engram {
namespace {

constexpr char kLinkColumns[] = "older_label, newer_label, cosine, explicit";

Result<std::vector<VersionLink>> ReadLinks(const PgResult& r) {
  std::vector<VersionLink> out;
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    VersionLink link;
    ENGRAM_ASSIGN_OR_RETURN(link.older_rowid, r.Int(i, 0));
    ENGRAM_ASSIGN_OR_RETURN(link.newer_rowid, r.Int(i, 1));
    ENGRAM_ASSIGN_OR_RETURN(link.cosine, r.Double(i, 2));
    link.explicit_update = r.Text(i, 3) == "t";
    out.push_back(link);
  }
  return out;
}

}  // namespace

Status PgVersionStore::Put(const std::string& scope, const VersionLink& link) {
  // Both facts in `scope`, or nothing.
  const std::string sql =
      std::string("INSERT INTO fact_versions (scope, ") + kLinkColumns +
      ") SELECT $5, $1, $2, $3, $4 WHERE (SELECT count(*) FROM facts WHERE scope = $5 AND "
      "label IN ($1, $2)) = 2 "
      "ON CONFLICT (scope, older_label, newer_label) DO " +
      (link.explicit_update ? "UPDATE SET cosine = excluded.cosine, explicit = true" : "NOTHING");
  return db()
      .Query(sql, {PgParam::Int(link.older_rowid), PgParam::Int(link.newer_rowid),
                   PgParam::Double(link.cosine), PgParam::Text(link.explicit_update ? "t" : "f"),
                   PgParam::Text(scope)})
      .status();
}

Result<std::vector<VersionLink>> PgVersionStore::NewerThan(const std::vector<std::string>& scopes,
                                                           const std::vector<int64_t>& rowids) {
  if (rowids.empty()) return std::vector<VersionLink>();
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query(std::string("SELECT ") + kLinkColumns +
                     " FROM fact_versions WHERE scope = ANY($2::text[]) AND "
                     "older_label = ANY($1::bigint[]) ORDER BY older_label, newer_label",
                 {IntArray(rowids), TextArray(ScopesOrDefault(scopes))}));
  return ReadLinks(r);
}

Result<std::vector<VersionLink>> PgVersionStore::All() {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query(std::string("SELECT ") + kLinkColumns +
                                     " FROM fact_versions ORDER BY older_label, newer_label"));
  return ReadLinks(r);
}

}  // namespace engram
