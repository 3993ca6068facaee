#include "src/store/sqlite/sqlite_hypothesis_store.h"

namespace engram {

Result<std::optional<std::string>> SqliteHypothesisStore::Get(const HypothesisKey& key) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT hypothesis FROM hyde_hypotheses WHERE llm = ?1 AND "
                                       "prompt_version = ?2 AND query = ?3"));
  s.BindText(1, key.llm);
  s.BindInt(2, key.prompt_version);
  s.BindText(3, key.query);
  ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
  if (!found) return std::optional<std::string>();
  return std::optional<std::string>(s.ColumnText(0));
}

Status SqliteHypothesisStore::Put(const HypothesisKey& key, const std::string& hypothesis,
                                  Timestamp now) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("INSERT OR REPLACE INTO hyde_hypotheses(llm, prompt_version, query, "
                   "hypothesis, created_at) VALUES (?1, ?2, ?3, ?4, ?5)"));
  s.BindText(1, key.llm);
  s.BindInt(2, key.prompt_version);
  s.BindText(3, key.query);
  s.BindText(4, hypothesis);
  s.BindInt(5, now);
  return s.Run();
}

Result<int64_t> SqliteHypothesisStore::Count() {
  return db_->QueryInt("SELECT count(*) FROM hyde_hypotheses");
}

Status SqliteHypothesisStore::ForEach(
    const std::function<void(const HypothesisKey&, const std::string&, Timestamp)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(
          "SELECT llm, prompt_version, query, hypothesis, created_at FROM hyde_hypotheses"));
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(const bool row, s.Step());
    if (!row) return Status::OK();
    sink(HypothesisKey{s.ColumnText(0), static_cast<int>(s.ColumnInt(1)), s.ColumnText(2)},
         s.ColumnText(3), s.ColumnInt(4));
  }
}

}  // namespace engram
