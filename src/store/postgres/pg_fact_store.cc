#include "src/store/postgres/pg_fact_store.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "src/store/fact_id.h"
#include "src/store/index_forms.h"
#include "src/store/postgres/pg_lock_order.h"
#include "src/store/postgres/pg_schema.h"
#include "src/store/postgres/pg_term_index.h"

namespace engram {
namespace {

// Columns: label, id, scope, access_count, last_accessed, created_at.
constexpr char kRankColumns[] = "label, id, scope, access_count, last_accessed, created_at";

Result<RankInput> ReadRankInput(const PgResult& r, int row) {
  RankInput in;
  ENGRAM_ASSIGN_OR_RETURN(in.rowid, r.Int(row, 0));
  in.id = r.Text(row, 1);
  in.scope = r.Text(row, 2);
  ENGRAM_ASSIGN_OR_RETURN(in.access_count, r.Int(row, 3));
  ENGRAM_ASSIGN_OR_RETURN(in.last_accessed, r.Int(row, 4));
  ENGRAM_ASSIGN_OR_RETURN(in.created_at, r.Int(row, 5));
  return in;
}

Result<std::vector<RankInput>> ReadRankInputs(const PgResult& r) {
  std::vector<RankInput> out;
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(RankInput in, ReadRankInput(r, i));
    out.push_back(std::move(in));
  }
  return out;
}

constexpr char kFactColumns[] =
    "label, id, scope, content, tags, kind, source, created_at, updated_at, "
    "last_accessed, access_count, confidence, metadata, superseded_by, valid_until, expires_at";

Result<StoredFact> ReadFact(const PgResult& r, int row) {
  StoredFact out;
  ENGRAM_ASSIGN_OR_RETURN(out.rowid, r.Int(row, 0));
  Fact& f = out.fact;
  f.id = r.Text(row, 1);
  f.scope = r.Text(row, 2);
  f.content = r.Text(row, 3);
  f.tags = DecodeTags(std::string(r.Text(row, 4)));
  f.kind = r.Text(row, 5);
  f.source = r.Text(row, 6);
  ENGRAM_ASSIGN_OR_RETURN(f.created_at, r.Int(row, 7));
  ENGRAM_ASSIGN_OR_RETURN(f.updated_at, r.Int(row, 8));
  ENGRAM_ASSIGN_OR_RETURN(f.last_accessed, r.Int(row, 9));
  ENGRAM_ASSIGN_OR_RETURN(f.access_count, r.Int(row, 10));
  ENGRAM_ASSIGN_OR_RETURN(f.confidence, r.Double(row, 11));
  f.metadata = r.Text(row, 12);
  f.superseded_by = r.Text(row, 13);
  ENGRAM_ASSIGN_OR_RETURN(f.valid_until, r.Int(row, 14));
  ENGRAM_ASSIGN_OR_RETURN(f.expires_at, r.Int(row, 15));
  return out;
}

// The condition that a fact's tags (a JSON array under `alias`) hold the
// tag `placeholder` names.
std::string HoldsTag(std::string_view alias, const std::string& placeholder) {
  return " AND EXISTS (SELECT 1 FROM json_array_elements_text(" + std::string(alias) +
         ".tags::json) AS tag(value) WHERE tag.value = " + placeholder + ")";
}

}  // namespace

void AppendVisibility(const FactVisibility& visibility, std::string_view alias_view,
                      PgQuery* query) {
  PgQuery& q = *query;
  const std::string a(alias_view);
  const FactFilter& f = visibility.filter;
  if (f.as_of) {
    const std::string as_of = q.Param(PgParam::Int(*f.as_of));
    q += " AND " + a + ".created_at <= " + as_of + " AND (" + a + ".superseded_by = '' OR " + a +
         ".valid_until > " + as_of + ") AND (" + a + ".expires_at = 0 OR " + a + ".expires_at > " +
         as_of + ")";
  } else {
    if (!visibility.include_superseded) q += " AND " + a + ".superseded_by = ''";
    if (!visibility.include_expired) {
      q += " AND (" + a + ".expires_at = 0 OR " + a + ".expires_at > " +
           q.Param(PgParam::Int(visibility.now)) + ")";
    }
  }
  if (!f.tags_any.empty()) {
    q += " AND EXISTS (SELECT 1 FROM json_array_elements_text(" + a +
         ".tags::json) AS tag(value) WHERE tag.value = ANY(" + q.Param(TextArray(f.tags_any)) +
         "::text[]))";
  }
  for (const std::string& tag : f.tags_all) q += HoldsTag(a, q.Param(PgParam::Text(tag)));
  if (!f.kind.empty()) q += " AND " + a + ".kind = " + q.Param(PgParam::Text(f.kind));
  for (const auto& [key, value] : f.metadata) {
    q += " AND engram_metadata_text(" + a + ".metadata, " + q.Param(PgParam::Text(key)) +
         ") = " + q.Param(PgParam::Text(value));
  }
  if (f.since) {
    q += " AND greatest(" + a + ".created_at, " + a +
         ".updated_at) >= " + q.Param(PgParam::Int(*f.since));
  }
  if (f.until) {
    q += " AND least(" + a + ".created_at, " + a + ".updated_at) < " +
         q.Param(PgParam::Int(*f.until));
  }
}

Result<std::vector<StoredFact>> PgFactStore::ReadFacts(const PgQuery& query) const {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, query.Run(db()));
  std::vector<StoredFact> out;
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(StoredFact f, ReadFact(r, i));
    out.push_back(std::move(f));
  }
  return out;
}

Result<int64_t> PgFactStore::Insert(const FactRow& row) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {row.fact.scope}));
  const Fact& in = row.fact;
  const std::string tags = EncodeTags(in.tags);
  TermArrays arrays = TermArraysOf(in.content, tags);
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("INSERT INTO facts (id, scope, content, tags, kind, source, created_at, "
                 "updated_at, last_accessed, access_count, confidence, metadata, content_terms, "
                 "tags_terms, superseded_by, valid_until, expires_at, portuguese, terms, "
                 "content_tf, tags_tf) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, "
                 "$12, $13, $14, $15, $16, $17, $18, $19, $20, $21) RETURNING label",
                 {PgParam::Text(in.id),
                  PgParam::Text(in.scope),
                  PgParam::Text(in.content),
                  PgParam::Text(tags),
                  PgParam::Text(in.kind),
                  PgParam::Text(in.source),
                  PgParam::Int(in.created_at),
                  PgParam::Int(in.updated_at),
                  PgParam::Int(in.last_accessed),
                  PgParam::Int(in.access_count),
                  PgParam::Double(in.confidence),
                  PgParam::Text(in.metadata),
                  PgParam::Int(row.text.content_terms),
                  PgParam::Int(row.text.tags_terms),
                  PgParam::Text(in.superseded_by),
                  PgParam::Int(in.valid_until),
                  PgParam::Int(in.expires_at),
                  PgParam::Text(row.text.portuguese ? "t" : "f"),
                  std::move(arrays.terms),
                  std::move(arrays.content_tf),
                  std::move(arrays.tags_tf)}));
  return r.Int(0, 0);
}

Status PgFactStore::UpdateDescription(int64_t rowid, const Fact& fact) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {fact.scope}));
  return db()
      .Query(
          "UPDATE facts SET kind = $1, source = $2, confidence = $3, metadata = $4, "
          "expires_at = $5 WHERE scope = $7 AND label = $6",
          {PgParam::Text(fact.kind), PgParam::Text(fact.source), PgParam::Double(fact.confidence),
           PgParam::Text(fact.metadata), PgParam::Int(fact.expires_at), PgParam::Int(rowid),
           PgParam::Text(fact.scope)})
      .status();
}

Status PgFactStore::UpdateTags(const std::string& scope, int64_t rowid,
                               const std::vector<std::string>& tags, Timestamp updated_at,
                               int64_t tags_terms) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {scope}));  // the totals change
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult content,
      db().Query("SELECT content FROM facts WHERE scope = $1 AND label = $2 FOR UPDATE",
                 {PgParam::Text(scope), PgParam::Int(rowid)}));
  if (content.Rows() == 0) return Status::OK();  // gone: nothing to update, as an UPDATE finds
  const std::string encoded = EncodeTags(tags);
  TermArrays arrays = TermArraysOf(content.Text(0, 0), encoded);
  return db()
      .Query(
          "UPDATE facts SET tags = $1, updated_at = $2, tags_terms = $3, terms = $4, "
          "content_tf = $5, tags_tf = $6 WHERE scope = $8 AND label = $7",
          {PgParam::Text(encoded), PgParam::Int(updated_at), PgParam::Int(tags_terms),
           std::move(arrays.terms), std::move(arrays.content_tf), std::move(arrays.tags_tf),
           PgParam::Int(rowid), PgParam::Text(scope)})
      .status();
}

Result<std::vector<RankInput>> PgFactStore::RankInputs(const std::vector<std::string>& scopes,
                                                       const FactVisibility& visibility) {
  PgQuery q(std::string("SELECT ") + kRankColumns + " FROM facts f WHERE scope = ANY(");
  q += q.Param(TextArray(ScopesOrDefault(scopes))) + "::text[])";
  AppendVisibility(visibility, "f", &q);
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, q.Run(db()));
  return ReadRankInputs(r);
}

Result<std::vector<RankInput>> PgFactStore::RankInputsOf(const std::vector<std::string>& scopes,
                                                         const std::vector<int64_t>& rowids,
                                                         const FactVisibility& visibility) {
  if (rowids.empty()) return std::vector<RankInput>();
  // In the order asked for, each once as SQLite's lookups give them.
  PgQuery q(std::string("SELECT ") + kRankColumns + " FROM unnest(" +
            "$1::bigint[]) WITH ORDINALITY AS asked(label, position) "
            "JOIN facts f USING (label) WHERE f.scope = ANY($2::text[])");
  q.Param(IntArray(rowids));
  q.Param(TextArray(ScopesOrDefault(scopes)));
  AppendVisibility(visibility, "f", &q);
  q += " ORDER BY asked.position";
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, q.Run(db()));
  return ReadRankInputs(r);
}

Result<std::vector<std::string>> PgFactStore::MissingScopes(
    const std::vector<std::string>& scopes) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT asked.scope FROM unnest($1::text[]) WITH ORDINALITY AS asked(scope, i) "
                 "WHERE NOT EXISTS (SELECT 1 FROM scope_stats s WHERE s.scope = asked.scope "
                 "AND s.facts > 0) "
                 "ORDER BY asked.i",
                 {TextArray(ScopesOrDefault(scopes))}));
  return TextColumn(r, 0);
}

Status PgFactStore::RebuildLexicalIndex(const TermCounter& count) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {}));  // every scope's totals change
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query("SELECT label, content, tags FROM facts ORDER BY label"));
  for (int i = 0; i < r.Rows(); ++i) {
    const std::string content(r.Text(i, 1));
    const std::string tags(r.Text(i, 2));
    const FactTextCounts counts = count(content, DecodeTags(tags));
    TermArrays arrays = TermArraysOf(content, tags);
    ENGRAM_ASSIGN_OR_RETURN(const int64_t label, r.Int(i, 0));
    ENGRAM_RETURN_IF_ERROR(
        db().Query("UPDATE facts SET content_terms = $1, tags_terms = $2, portuguese = $3, "
                   "terms = $4, content_tf = $5, tags_tf = $6 WHERE label = $7",
                   {PgParam::Int(counts.content_terms), PgParam::Int(counts.tags_terms),
                    PgParam::Text(counts.portuguese ? "t" : "f"), std::move(arrays.terms),
                    std::move(arrays.content_tf), std::move(arrays.tags_tf), PgParam::Int(label)})
            .status());
  }
  return Status::OK();
}

Result<std::optional<StoredFact>> PgFactStore::Find(const std::string& scope,
                                                    const std::string& id_or_prefix) {
  if (!LooksLikeIdPrefix(id_or_prefix) || id_or_prefix.size() < 4) {
    return InvalidArgument("store: get: '" + id_or_prefix +
                           "' is not a fact id (4 to 24 lower-case hex characters)");
  }
  PgQuery q(std::string("SELECT ") + kFactColumns + " FROM facts WHERE scope = $1 AND id >= $2 " +
            "AND id < $3 ORDER BY id LIMIT 2");
  q.Param(PgParam::Text(scope));
  q.Param(PgParam::Text(id_or_prefix));
  q.Param(PgParam::Text(id_or_prefix + "g"));  // 'g' sorts after every hex digit
  ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> found, ReadFacts(q));
  if (found.empty()) return std::optional<StoredFact>();
  if (found.size() > 1) {
    return InvalidArgument("store: get: id prefix '" + id_or_prefix +
                           "' matches several facts; give more characters");
  }
  return std::optional<StoredFact>(std::move(found[0]));
}

Result<StoredFact> PgFactStore::Get(const std::string& scope, const std::string& id_or_prefix) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<StoredFact> found, Find(scope, id_or_prefix));
  if (found) return std::move(*found);
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT DISTINCT scope FROM facts WHERE id >= $1 AND id < $2 ORDER BY scope "
                 "LIMIT 6",
                 {PgParam::Text(id_or_prefix), PgParam::Text(id_or_prefix + "g")}));
  return NotFound(FactNotFoundMessage(scope, id_or_prefix, TextColumn(r, 0)));
}

Result<std::vector<Fact>> PgFactStore::List(const ListOptions& options,
                                            const FactVisibility& visibility) {
  PgQuery q(std::string("SELECT ") + kFactColumns + " FROM facts f WHERE scope = ANY(");
  q += q.Param(TextArray(ScopesOrDefault(options.scopes))) + "::text[])";
  if (!options.tag.empty()) q += HoldsTag("f", q.Param(PgParam::Text(options.tag)));
  if (!options.kind.empty()) q += " AND kind = " + q.Param(PgParam::Text(options.kind));
  AppendVisibility(visibility, "f", &q);
  q += " ORDER BY created_at DESC, id ASC";
  if (options.limit > 0) q += " LIMIT " + q.Param(PgParam::Int(options.limit));
  if (options.offset > 0) q += " OFFSET " + q.Param(PgParam::Int(options.offset));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> stored, ReadFacts(q));
  std::vector<Fact> out;
  out.reserve(stored.size());
  for (StoredFact& f : stored) out.push_back(std::move(f.fact));
  return out;
}

Result<std::vector<StoredFact>> PgFactStore::GetByRowids(const std::vector<std::string>& scopes,
                                                         const std::vector<int64_t>& rowids) {
  if (rowids.empty()) return std::vector<StoredFact>();
  PgQuery q(std::string("SELECT ") + kFactColumns +
            " FROM unnest($1::bigint[]) WITH ORDINALITY AS asked(label, position) "
            "JOIN facts USING (label) WHERE scope = ANY($2::text[]) ORDER BY asked.position");
  q.Param(IntArray(rowids));
  q.Param(TextArray(ScopesOrDefault(scopes)));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> out, ReadFacts(q));
  if (out.size() != rowids.size()) {
    for (size_t i = 0; i < rowids.size(); ++i) {
      if (i >= out.size() || out[i].rowid != rowids[i]) {
        return NotFound("store: get: fact row " + std::to_string(rowids[i]) + " is gone");
      }
    }
  }
  return out;
}

Result<int64_t> PgFactStore::DeleteRowids(const std::vector<std::string>& scopes,
                                          const std::vector<int64_t>& rowids) {
  if (rowids.empty()) return 0;
  const std::vector<std::string> named = ScopesOrDefault(scopes);
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), named));
  ENGRAM_RETURN_IF_ERROR(LockFacts(db(), named, rowids, /*to_delete=*/true));
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("DELETE FROM facts WHERE scope = ANY($1::text[]) AND label = ANY($2::bigint[])",
                 {TextArray(named), IntArray(rowids)}));
  return r.AffectedRows();
}

Result<int64_t> PgFactStore::DeleteTag(const std::string& scope, const std::string& tag) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {scope}));
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query("DELETE FROM facts f WHERE scope = $1" + HoldsTag("f", "$2"),
                                     {PgParam::Text(scope), PgParam::Text(tag)}));
  return r.AffectedRows();
}

Result<int64_t> PgFactStore::DeleteScope(const std::string& scope) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {scope}));
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query("DELETE FROM facts WHERE scope = $1", {PgParam::Text(scope)}));
  return r.AffectedRows();
}

Status PgFactStore::ForEach(const std::vector<std::string>& scopes,
                            const std::function<bool(const StoredFact&)>& sink) {
  // A page at a time, each starting after the last fact of the one before
  // (scope and id are the key, so the order is total): what is held stays
  // bounded whatever the store holds.
  std::optional<StoredFact> last;
  while (true) {
    PgQuery q(std::string("SELECT ") + kFactColumns + " FROM facts WHERE true");
    if (!scopes.empty()) q += " AND scope = ANY(" + q.Param(TextArray(scopes)) + "::text[])";
    if (last) {
      q += " AND (scope, created_at, id) > (" + q.Param(PgParam::Text(last->fact.scope)) + ", " +
           q.Param(PgParam::Int(last->fact.created_at)) + ", " +
           q.Param(PgParam::Text(last->fact.id)) + ")";
    }
    q += " ORDER BY scope, created_at, id LIMIT " + std::to_string(kForEachPage);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredFact> page, ReadFacts(q));
    for (const StoredFact& f : page) {
      if (!sink(f)) return Status::OK();
    }
    if (page.size() < kForEachPage) return Status::OK();
    last = std::move(page.back());
  }
}

Status PgFactStore::SetSuperseded(const std::string& scope, int64_t rowid, const std::string& by_id,
                                  Timestamp valid_until) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {scope}));
  return db()
      .Query(
          "UPDATE facts SET superseded_by = $1, valid_until = $2 WHERE scope = $4 AND "
          "label = $3",
          {PgParam::Text(by_id), PgParam::Int(by_id.empty() ? 0 : valid_until), PgParam::Int(rowid),
           PgParam::Text(scope)})
      .status();
}

Result<int64_t> PgFactStore::MoveSupersession(const std::string& scope, const std::string& from_id,
                                              const std::string& to_id) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {scope}));
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("UPDATE facts SET superseded_by = $1, "
                 "valid_until = CASE WHEN $1 = '' THEN 0 ELSE valid_until END "
                 "WHERE scope = $2 AND superseded_by = $3",
                 {PgParam::Text(to_id), PgParam::Text(scope), PgParam::Text(from_id)}));
  return r.AffectedRows();
}

Result<std::vector<StoredFact>> PgFactStore::Expired(Timestamp now) {
  PgQuery q(std::string("SELECT ") + kFactColumns +
            " FROM facts WHERE expires_at <> 0 AND expires_at <= $1 ORDER BY scope, id");
  q.Param(PgParam::Int(now));
  return ReadFacts(q);
}

Result<std::vector<StoredFact>> PgFactStore::SupersededBy(const std::string& scope,
                                                          const std::string& id) {
  PgQuery q(std::string("SELECT ") + kFactColumns +
            " FROM facts WHERE scope = $1 AND superseded_by = $2 ORDER BY created_at, id");
  q.Param(PgParam::Text(scope));
  q.Param(PgParam::Text(id));
  return ReadFacts(q);
}

Status PgFactStore::RecordAccess(const std::vector<AccessCount>& counts) {
  if (counts.empty()) return Status::OK();
  // One statement for the batch; counts of one fact are summed first, as
  // one UPDATE per count would add them.
  std::vector<std::string> scopes;
  std::vector<int64_t> labels;
  std::vector<std::string> ids;
  std::vector<int64_t> added;
  std::vector<int64_t> last;
  for (const AccessCount& c : counts) {
    scopes.push_back(c.scope);
    labels.push_back(c.rowid);
    ids.push_back(c.id);
    added.push_back(c.count);
    last.push_back(c.last);
  }
  std::vector<std::string> distinct = scopes;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  ENGRAM_RETURN_IF_ERROR(LockFacts(db(), distinct, labels, /*to_delete=*/false));
  return db()
      .Query(
          "UPDATE facts f SET access_count = f.access_count + a.count, "
          "last_accessed = greatest(f.last_accessed, a.last) FROM ("
          "SELECT scope, label, id, sum(count) AS count, max(last) AS last FROM "
          "unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[]) "
          "AS c(scope, label, id, count, last) GROUP BY scope, label, id) AS a "
          "WHERE f.scope = a.scope AND f.label = a.label AND f.id = a.id",
          {TextArray(scopes), IntArray(labels), TextArray(ids), IntArray(added), IntArray(last)})
      .status();
}

Result<FactStore::Counts> PgFactStore::CountFacts() {
  Counts stats;
  stats.location = db().ShownUrl();
  stats.schema_version = kPgSchemaVersion;
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT scope, facts FROM scope_stats WHERE facts > 0 ORDER BY scope"));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t facts, r.Int(i, 1));
    stats.scopes.emplace_back(std::string(r.Text(i, 0)), facts);
    stats.facts += facts;
  }
  return stats;
}

}  // namespace engram
