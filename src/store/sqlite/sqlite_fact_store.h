// SqliteFactStore: FactStore on a SQLite connection (schema.cc's facts
// table, its FTS5 index facts_fts and the per-scope totals its triggers
// keep). The full-text side is in sqlite_fact_store_full_text.cc.
//
// Thread-safety: none; it works on its SqliteStore's connection.
#ifndef ENGRAM_SRC_STORE_SQLITE_SQLITE_FACT_STORE_H_
#define ENGRAM_SRC_STORE_SQLITE_SQLITE_FACT_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/store/fact_store.h"
#include "src/store/sqlite/sqlite_db.h"

namespace engram {

class SqliteFactStore final : public FactStore {
 public:
  explicit SqliteFactStore(SqliteDb* db) : db_(db) {}

  Result<int64_t> Insert(const FactRow& row) override;
  Status UpdateDescription(int64_t rowid, const Fact& fact) override;
  Status UpdateTags(const std::string& scope, int64_t rowid, const std::vector<std::string>& tags,
                    Timestamp updated_at, int64_t tags_terms) override;
  Result<std::vector<RankInput>> RankInputs(const std::vector<std::string>& scopes,
                                            const FactVisibility& visibility) override;
  Result<std::vector<RankInput>> RankInputsOf(const std::vector<std::string>& scopes,
                                              const std::vector<int64_t>& rowids,
                                              const FactVisibility& visibility) override;
  Result<std::vector<std::string>> MissingScopes(const std::vector<std::string>& scopes) override;
  Status RebuildLexicalIndex(const TermCounter& count) override;
  Result<StoredFact> Get(const std::string& scope, const std::string& id_or_prefix) override;
  Result<std::optional<StoredFact>> Find(const std::string& scope,
                                         const std::string& id_or_prefix) override;
  Result<std::vector<Fact>> List(const ListOptions& options,
                                 const FactVisibility& visibility) override;
  Result<std::vector<StoredFact>> GetByRowids(const std::vector<std::string>& scopes,
                                              const std::vector<int64_t>& rowids) override;
  Result<int64_t> DeleteRowids(const std::vector<std::string>& scopes,
                               const std::vector<int64_t>& rowids) override;
  Result<int64_t> DeleteTag(const std::string& scope, const std::string& tag) override;
  Result<int64_t> DeleteScope(const std::string& scope) override;
  Status ForEach(const std::vector<std::string>& scopes,
                 const std::function<bool(const StoredFact&)>& sink) override;
  Status SetSuperseded(const std::string& scope, int64_t rowid, const std::string& by_id,
                       Timestamp valid_until) override;
  Result<int64_t> MoveSupersession(const std::string& scope, const std::string& from_id,
                                   const std::string& to_id) override;
  Result<std::vector<StoredFact>> Expired(Timestamp now) override;
  Result<std::vector<StoredFact>> SupersededBy(const std::string& scope,
                                               const std::string& id) override;
  Status RecordAccess(const std::vector<AccessCount>& counts) override;
  Result<Counts> CountFacts() override;
  Result<FullTextTotals> FullTextTotalsOf(const std::vector<std::string>& scopes) override;
  Result<std::vector<FullTextMatch>> MatchFullText(const std::vector<std::string>& phrases,
                                                   bool content_only,
                                                   const std::vector<std::string>& scopes,
                                                   const FactVisibility& visibility) override;
  Result<int64_t> FactsHolding(const std::string& term, const std::string& scope) override;
  Result<ScopeChanges> ChangesOf(const std::string& scope) override;
  Status ForEachChangedSince(
      const std::string& scope, int64_t after,
      const std::function<bool(const StoredFact&, int64_t changed)>& sink) override;

 private:
  SqliteDb* db_;
};

// An SQL condition (" AND ...", or empty when everything is seen) that
// keeps the rows of the facts table under `alias` that `visibility` sees;
// it names the parameter :now, which BindVisibility binds. SQLite gives
// :now the number after the highest before it, so put the condition after
// every numbered parameter.
std::string VisibilityCondition(const FactVisibility& visibility, std::string_view alias);

// Binds :now and the filter's parameters of a VisibilityCondition.
void BindVisibility(SqliteStatement* s, const FactVisibility& visibility);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_FACT_STORE_H_
