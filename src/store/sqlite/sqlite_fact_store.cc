#include "src/store/sqlite/sqlite_fact_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"
#include "src/store/fact_id.h"
#include "src/store/sqlite/schema.h"

namespace engram {
namespace {

// Columns: rowid, id, scope, access_count, last_accessed, created_at.
constexpr char kRankColumns[] = "rowid, id, scope, access_count, last_accessed, created_at";
RankInput ReadRankInput(const SqliteStatement& s) {
  return RankInput{s.ColumnInt(0), s.ColumnText(1), s.ColumnText(2),
                   s.ColumnInt(3), s.ColumnInt(4),  s.ColumnInt(5)};
}

constexpr char kFactColumns[] =
    "rowid, id, scope, content, tags, kind, source, created_at, updated_at, "
    "last_accessed, access_count, confidence, metadata, superseded_by, valid_until, expires_at";

// The columns a list of them names ("a, b, c": 3).
constexpr int ColumnsIn(std::string_view list) {
  int commas = 0;
  for (const char c : list) commas += c == ',' ? 1 : 0;
  return commas + 1;
}
static_assert(ColumnsIn(kFactColumns) == 16, "ReadFact reads 16 columns");

StoredFact ReadFact(const SqliteStatement& s) {
  StoredFact out;
  out.rowid = s.ColumnInt(0);
  Fact& f = out.fact;
  f.id = s.ColumnText(1);
  f.scope = s.ColumnText(2);
  f.content = s.ColumnText(3);
  f.tags = DecodeTags(s.ColumnText(4));
  f.kind = s.ColumnText(5);
  f.source = s.ColumnText(6);
  f.created_at = s.ColumnInt(7);
  f.updated_at = s.ColumnInt(8);
  f.last_accessed = s.ColumnInt(9);
  f.access_count = s.ColumnInt(10);
  f.confidence = s.ColumnDouble(11);
  f.metadata = s.ColumnText(12);
  f.superseded_by = s.ColumnText(13);
  f.valid_until = s.ColumnInt(14);
  f.expires_at = s.ColumnInt(15);
  return out;
}

// Every row `s` gives (kFactColumns), in order.
Result<std::vector<StoredFact>> ReadFacts(SqliteStatement* s) {
  std::vector<StoredFact> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s->Step());
    if (!row) return out;
    out.push_back(ReadFact(*s));
  }
}

}  // namespace

std::string VisibilityCondition(const FactVisibility& visibility, std::string_view alias) {
  std::string out;
  const std::string a(alias);
  const FactFilter& f = visibility.filter;
  if (f.as_of) {
    out += " AND " + a + ".created_at <= :as_of AND (" + a + ".superseded_by = '' OR " + a +
           ".valid_until > :as_of) AND (" + a + ".expires_at = 0 OR " + a + ".expires_at > :as_of)";
  } else {
    if (!visibility.include_superseded) out += " AND " + a + ".superseded_by = ''";
    if (!visibility.include_expired)
      out += " AND (" + a + ".expires_at = 0 OR " + a + ".expires_at > :now)";
  }
  if (!f.tags_any.empty()) {
    out += " AND EXISTS (SELECT 1 FROM json_each(" + a + ".tags) WHERE value IN (";
    for (size_t i = 0; i < f.tags_any.size(); ++i) {
      out += (i ? ", :any" : ":any") + std::to_string(i);
    }
    out += "))";
  }
  for (size_t i = 0; i < f.tags_all.size(); ++i) {
    out += " AND EXISTS (SELECT 1 FROM json_each(" + a + ".tags) WHERE value = :all" +
           std::to_string(i) + ")";
  }
  if (!f.kind.empty()) out += " AND " + a + ".kind = :kind";
  for (size_t i = 0; i < f.metadata.size(); ++i) {
    const std::string n = std::to_string(i);
    out += " AND CAST(json_extract(";
    out += a;
    out += ".metadata, :mpath";
    out += n;
    out += ") AS TEXT) = :mval";
    out += n;
  }
  if (f.since) out += " AND max(" + a + ".created_at, " + a + ".updated_at) >= :since";
  if (f.until) out += " AND min(" + a + ".created_at, " + a + ".updated_at) < :until";
  return out;
}

void BindVisibility(SqliteStatement* s, const FactVisibility& visibility) {
  s->BindInt(":now", visibility.now);
  const FactFilter& f = visibility.filter;
  if (f.as_of) s->BindInt(":as_of", *f.as_of);
  for (size_t i = 0; i < f.tags_any.size(); ++i) {
    s->BindText((":any" + std::to_string(i)).c_str(), f.tags_any[i]);
  }
  for (size_t i = 0; i < f.tags_all.size(); ++i) {
    s->BindText((":all" + std::to_string(i)).c_str(), f.tags_all[i]);
  }
  if (!f.kind.empty()) s->BindText(":kind", f.kind);
  for (size_t i = 0; i < f.metadata.size(); ++i) {
    const std::string n = std::to_string(i);
    s->BindText((":mpath" + n).c_str(), "$.\"" + f.metadata[i].first + "\"");
    s->BindText((":mval" + n).c_str(), f.metadata[i].second);
  }
  if (f.since) s->BindInt(":since", *f.since);
  if (f.until) s->BindInt(":until", *f.until);
}

Result<int64_t> SqliteFactStore::Insert(const FactRow& row) {
  const Fact& in = row.fact;
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement insert,
      db_->Prepare("INSERT INTO facts(id, scope, content, tags, kind, source, created_at, "
                   "updated_at, last_accessed, access_count, confidence, metadata, "
                   "content_terms, tags_terms, superseded_by, valid_until, expires_at, "
                   "portuguese) "
                   "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)"));
  insert.BindText(1, in.id);
  insert.BindText(2, in.scope);
  insert.BindText(3, in.content);
  insert.BindText(4, EncodeTags(in.tags));
  insert.BindText(5, in.kind);
  insert.BindText(6, in.source);
  insert.BindInt(7, in.created_at);
  insert.BindInt(8, in.updated_at);
  insert.BindInt(9, in.last_accessed);
  insert.BindInt(10, in.access_count);
  insert.BindDouble(11, in.confidence);
  insert.BindText(12, in.metadata);
  insert.BindInt(13, row.text.content_terms);
  insert.BindInt(14, row.text.tags_terms);
  insert.BindText(15, in.superseded_by);
  insert.BindInt(16, in.valid_until);
  insert.BindInt(17, in.expires_at);
  insert.BindInt(18, row.text.portuguese ? 1 : 0);
  ENGRAM_RETURN_IF_ERROR(insert.Run());
  return db_->LastInsertRowid();
}

Status SqliteFactStore::UpdateDescription(int64_t rowid, const Fact& fact) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement update,
      db_->Prepare("UPDATE facts SET kind = ?1, source = ?2, confidence = ?3, metadata = ?4, "
                   "expires_at = ?5 WHERE rowid = ?6 AND scope = ?7"));
  update.BindText(1, fact.kind);
  update.BindText(2, fact.source);
  update.BindDouble(3, fact.confidence);
  update.BindText(4, fact.metadata);
  update.BindInt(5, fact.expires_at);
  update.BindInt(6, rowid);
  update.BindText(7, fact.scope);
  return update.Run();
}

Status SqliteFactStore::UpdateTags(const std::string& scope, int64_t rowid,
                                   const std::vector<std::string>& tags, Timestamp updated_at,
                                   int64_t tags_terms) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement update,
      db_->Prepare("UPDATE facts SET tags = ?1, updated_at = ?2, tags_terms = ?3 "
                   "WHERE rowid = ?4 AND scope = ?5"));
  update.BindText(1, EncodeTags(tags));
  update.BindInt(2, updated_at);
  update.BindInt(3, tags_terms);
  update.BindInt(4, rowid);
  update.BindText(5, scope);
  return update.Run();
}

Result<std::vector<RankInput>> SqliteFactStore::RankInputs(const std::vector<std::string>& scopes,
                                                           const FactVisibility& visibility) {
  const auto sc = ScopesOrDefault(scopes);
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT ") + kRankColumns + " FROM facts WHERE scope IN (" +
                   Placeholders(sc.size()) + ")" + VisibilityCondition(visibility, "facts")));
  BindTexts(&s, 1, sc);
  BindVisibility(&s, visibility);
  std::vector<RankInput> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadRankInput(s));
  }
  return out;
}

Result<std::vector<RankInput>> SqliteFactStore::RankInputsOf(const std::vector<std::string>& scopes,
                                                             const std::vector<int64_t>& rowids,
                                                             const FactVisibility& visibility) {
  const std::vector<std::string> sc = ScopesOrDefault(scopes);
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT ") + kRankColumns + " FROM facts INDEXED BY " +
                   kRankIndexName + " WHERE rowid = ?1 AND scope IN (" + Placeholders(sc.size()) +
                   ")" + VisibilityCondition(visibility, "facts")));
  std::vector<RankInput> out;
  for (int64_t rowid : rowids) {
    s.BindInt(1, rowid);
    BindTexts(&s, 2, sc);
    BindVisibility(&s, visibility);
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) out.push_back(ReadRankInput(s));
    s.Reset();
  }
  return out;
}

Result<std::vector<std::string>> SqliteFactStore::MissingScopes(
    const std::vector<std::string>& scopes) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT 1 FROM scope_stats WHERE scope = ?1"));
  std::vector<std::string> missing;
  for (const auto& scope : ScopesOrDefault(scopes)) {
    s.BindText(1, scope);
    ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
    if (!found) missing.push_back(scope);
    s.Reset();
  }
  return missing;
}

Status SqliteFactStore::RebuildLexicalIndex(const TermCounter& count) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement read,
                          db_->Prepare("SELECT rowid, content, tags FROM facts"));
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement write,
      db_->Prepare("UPDATE facts SET content_terms = ?1, tags_terms = ?2, portuguese = ?3 "
                   "WHERE rowid = ?4"));
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, read.Step());
    if (!row) break;
    const FactTextCounts counts = count(read.ColumnText(1), DecodeTags(read.ColumnText(2)));
    write.BindInt(1, counts.content_terms);
    write.BindInt(2, counts.tags_terms);
    write.BindInt(3, counts.portuguese ? 1 : 0);
    write.BindInt(4, read.ColumnInt(0));
    ENGRAM_RETURN_IF_ERROR(write.Run());
  }
  return db_->Exec("INSERT INTO facts_fts(facts_fts) VALUES('rebuild')");
}

Result<std::optional<StoredFact>> SqliteFactStore::Find(const std::string& scope,
                                                        const std::string& id_or_prefix) {
  if (!LooksLikeIdPrefix(id_or_prefix) || id_or_prefix.size() < 4) {
    return InvalidArgument("store: get: '" + id_or_prefix +
                           "' is not a fact id (4 to 24 lower-case hex characters)");
  }
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT ") + kFactColumns +
                   " FROM facts WHERE scope = ?1 AND id >= ?2 AND id < ?3 LIMIT 2"));
  s.BindText(1, scope);
  s.BindText(2, id_or_prefix);
  s.BindText(3, id_or_prefix + "g");  // 'g' sorts after every hex digit
  ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
  if (!found) return std::optional<StoredFact>();
  StoredFact fact = ReadFact(s);
  ENGRAM_ASSIGN_OR_RETURN(bool second, s.Step());
  if (second) {
    return InvalidArgument("store: get: id prefix '" + id_or_prefix +
                           "' matches several facts; give more characters");
  }
  return std::optional<StoredFact>(std::move(fact));
}

Result<StoredFact> SqliteFactStore::Get(const std::string& scope, const std::string& id_or_prefix) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<StoredFact> found, Find(scope, id_or_prefix));
  if (found) return std::move(*found);
  // Scopes isolate, so the id is not taken from another scope; but the
  // caller is told where it is.
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement elsewhere,
      db_->Prepare("SELECT DISTINCT scope FROM facts WHERE id >= ?1 AND id < ?2 "
                   "ORDER BY scope LIMIT 6"));
  elsewhere.BindText(1, id_or_prefix);
  elsewhere.BindText(2, id_or_prefix + "g");
  std::vector<std::string> scopes;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, elsewhere.Step());
    if (!row) break;
    scopes.push_back(elsewhere.ColumnText(0));
  }
  return NotFound(FactNotFoundMessage(scope, id_or_prefix, scopes));
}

Result<std::vector<Fact>> SqliteFactStore::List(const ListOptions& options,
                                                const FactVisibility& visibility) {
  const auto scopes = ScopesOrDefault(options.scopes);
  std::string sql = std::string("SELECT ") + kFactColumns + " FROM facts WHERE scope IN (" +
                    Placeholders(scopes.size()) + ")";
  const int next = static_cast<int>(scopes.size()) + 1;
  if (!options.tag.empty()) {
    sql += " AND EXISTS (SELECT 1 FROM json_each(facts.tags) WHERE value = ?" +
           std::to_string(next) + ")";
  }
  if (!options.kind.empty()) sql += " AND kind = ?" + std::to_string(next + 1);
  // Last: SQLite numbers :now after every parameter before it.
  sql += VisibilityCondition(visibility, "facts");
  sql += " ORDER BY created_at DESC, id ASC";
  if (options.limit > 0) sql += " LIMIT " + std::to_string(options.limit);
  if (options.offset > 0) {
    if (options.limit == 0) sql += " LIMIT -1";
    sql += " OFFSET " + std::to_string(options.offset);
  }
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s, db_->Prepare(sql));
  BindTexts(&s, 1, scopes);
  if (!options.tag.empty()) s.BindText(next, options.tag);
  if (!options.kind.empty()) s.BindText(next + 1, options.kind);
  BindVisibility(&s, visibility);
  std::vector<Fact> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadFact(s).fact);
  }
  return out;
}

Result<std::vector<StoredFact>> SqliteFactStore::GetByRowids(const std::vector<std::string>& scopes,
                                                             const std::vector<int64_t>& rowids) {
  std::vector<StoredFact> out;
  if (rowids.empty()) return out;
  const std::vector<std::string> sc = ScopesOrDefault(scopes);
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT ") + kFactColumns + " FROM facts WHERE rowid = ?1 AND " +
                   "scope IN (" + Placeholders(sc.size()) + ")"));
  for (int64_t rowid : rowids) {
    s.BindInt(1, rowid);
    BindTexts(&s, 2, sc);
    ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
    if (!found) return NotFound("store: get: fact row " + std::to_string(rowid) + " is gone");
    out.push_back(ReadFact(s));
    s.Reset();
  }
  return out;
}

Result<int64_t> SqliteFactStore::DeleteRowids(const std::vector<std::string>& scopes,
                                              const std::vector<int64_t>& rowids) {
  const std::vector<std::string> sc = ScopesOrDefault(scopes);
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("DELETE FROM facts WHERE rowid = ?1 AND scope IN (" +
                                       Placeholders(sc.size()) + ")"));
  int64_t removed = 0;
  for (int64_t rowid : rowids) {
    s.BindInt(1, rowid);
    BindTexts(&s, 2, sc);
    ENGRAM_RETURN_IF_ERROR(s.Run());
    removed += db_->Changes();
  }
  return removed;
}

Result<int64_t> SqliteFactStore::DeleteTag(const std::string& scope, const std::string& tag) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("DELETE FROM facts WHERE scope = ?1 AND EXISTS "
                                       "(SELECT 1 FROM json_each(facts.tags) WHERE value = ?2)"));
  s.BindText(1, scope);
  s.BindText(2, tag);
  ENGRAM_RETURN_IF_ERROR(s.Run());
  return db_->Changes();
}

Result<int64_t> SqliteFactStore::DeleteScope(const std::string& scope) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s, db_->Prepare("DELETE FROM facts WHERE scope = ?1"));
  s.BindText(1, scope);
  ENGRAM_RETURN_IF_ERROR(s.Run());
  return db_->Changes();
}

Status SqliteFactStore::ForEach(const std::vector<std::string>& scopes,
                                const std::function<bool(const StoredFact&)>& sink) {
  std::string sql = std::string("SELECT ") + kFactColumns + " FROM facts";
  if (!scopes.empty()) sql += " WHERE scope IN (" + Placeholders(scopes.size()) + ")";
  sql += " ORDER BY scope, created_at, id";
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s, db_->Prepare(sql));
  BindTexts(&s, 1, scopes);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row || !sink(ReadFact(s))) break;
  }
  return Status::OK();
}

Result<ScopeChanges> SqliteFactStore::ChangesOf(const std::string& scope) {
  // Three seeks: the scope's largest change in facts_changed, its count in
  // scope_stats, the store's sequence.
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT coalesce((SELECT max(changed) FROM facts WHERE scope = ?1), 0), "
                   "coalesce((SELECT facts FROM scope_stats WHERE scope = ?1), 0), "
                   "(SELECT seq FROM fact_changes)"));
  s.BindText(1, scope);
  ENGRAM_ASSIGN_OR_RETURN(const bool row, s.Step());
  if (!row) return ScopeChanges{};
  return ScopeChanges{s.ColumnInt(0), s.ColumnInt(1), s.ColumnInt(2)};
}

Status SqliteFactStore::ForEachChangedSince(
    const std::string& scope, int64_t after,
    const std::function<bool(const StoredFact&, int64_t changed)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare(std::string("SELECT ") + kFactColumns +
                                       ", changed FROM facts WHERE scope = ?1 AND changed > ?2 "
                                       "ORDER BY rowid"));
  s.BindText(1, scope);
  s.BindInt(2, after);
  constexpr int kChangedColumn = ColumnsIn(kFactColumns);  // the one after kFactColumns
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row || !sink(ReadFact(s), s.ColumnInt(kChangedColumn))) break;
  }
  return Status::OK();
}

Status SqliteFactStore::SetSuperseded(const std::string& scope, int64_t rowid,
                                      const std::string& by_id, Timestamp valid_until) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("UPDATE facts SET superseded_by = ?1, valid_until = ?2 "
                                       "WHERE rowid = ?3 AND scope = ?4"));
  s.BindText(1, by_id);
  s.BindInt(2, by_id.empty() ? 0 : valid_until);
  s.BindInt(3, rowid);
  s.BindText(4, scope);
  return s.Run();
}

Result<int64_t> SqliteFactStore::MoveSupersession(const std::string& scope,
                                                  const std::string& from_id,
                                                  const std::string& to_id) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s, db_->Prepare("UPDATE facts SET superseded_by = ?1, "
                                      "valid_until = CASE WHEN ?1 = '' THEN 0 ELSE valid_until END "
                                      "WHERE scope = ?2 AND superseded_by = ?3"));
  s.BindText(1, to_id);
  s.BindText(2, scope);
  s.BindText(3, from_id);
  ENGRAM_RETURN_IF_ERROR(s.Run());
  return db_->Changes();
}

Result<std::vector<StoredFact>> SqliteFactStore::Expired(Timestamp now) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT ") + kFactColumns +
                   " FROM facts WHERE expires_at != 0 AND expires_at <= ?1 ORDER BY scope, id"));
  s.BindInt(1, now);
  return ReadFacts(&s);
}

Result<std::vector<StoredFact>> SqliteFactStore::SupersededBy(const std::string& scope,
                                                              const std::string& id) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT ") + kFactColumns +
                   " FROM facts WHERE scope = ?1 AND superseded_by = ?2 ORDER BY created_at, id"));
  s.BindText(1, scope);
  s.BindText(2, id);
  return ReadFacts(&s);
}

Status SqliteFactStore::RecordAccess(const std::vector<AccessCount>& counts) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("UPDATE facts SET access_count = access_count + ?1, "
                                       "last_accessed = max(last_accessed, ?2) "
                                       "WHERE rowid = ?3 AND id = ?4 AND scope = ?5"));
  for (const AccessCount& c : counts) {
    s.BindInt(1, c.count);
    s.BindInt(2, c.last);
    s.BindInt(3, c.rowid);
    s.BindText(4, c.id);
    s.BindText(5, c.scope);
    ENGRAM_RETURN_IF_ERROR(s.Run());
  }
  return Status::OK();
}

Result<FactStore::Counts> SqliteFactStore::CountFacts() {
  Counts stats;
  stats.location = db_->path();
  ENGRAM_ASSIGN_OR_RETURN(int64_t version, db_->QueryInt("PRAGMA user_version"));
  stats.schema_version = static_cast<int>(version);
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT scope, count(*) FROM facts GROUP BY scope ORDER BY scope"));
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    stats.scopes.emplace_back(s.ColumnText(0), s.ColumnInt(1));
    stats.facts += s.ColumnInt(1);
  }
  return stats;
}

}  // namespace engram
