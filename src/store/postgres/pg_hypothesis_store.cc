#include "src/store/postgres/pg_hypothesis_store.h"

namespace engram {

Result<std::optional<std::string>> PgHypothesisStore::Get(const HypothesisKey& key) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query(
          "SELECT hypothesis FROM hyde_hypotheses WHERE llm = $1 AND prompt_version = $2 "
          "AND query = $3",
          {PgParam::Text(key.llm), PgParam::Int(key.prompt_version), PgParam::Text(key.query)}));
  if (r.Rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(std::string(r.Text(0, 0)));
}

Status PgHypothesisStore::Put(const HypothesisKey& key, const std::string& hypothesis,
                              Timestamp now) {
  return db()
      .Query(
          "INSERT INTO hyde_hypotheses (llm, prompt_version, query, hypothesis, created_at) "
          "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (llm, prompt_version, query) DO UPDATE "
          "SET hypothesis = excluded.hypothesis, created_at = excluded.created_at",
          {PgParam::Text(key.llm), PgParam::Int(key.prompt_version), PgParam::Text(key.query),
           PgParam::Text(hypothesis), PgParam::Int(now)})
      .status();
}

Result<int64_t> PgHypothesisStore::Count() {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, db().Query("SELECT count(*) FROM hyde_hypotheses"));
  return r.Int(0, 0);
}

Status PgHypothesisStore::ForEach(
    const std::function<void(const HypothesisKey&, const std::string&, Timestamp)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT llm, prompt_version, query, hypothesis, created_at FROM hyde_hypotheses"));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t prompt_version, r.Int(i, 1));
    ENGRAM_ASSIGN_OR_RETURN(const Timestamp created_at, r.Int(i, 4));
    sink(HypothesisKey{std::string(r.Text(i, 0)), static_cast<int>(prompt_version),
                       std::string(r.Text(i, 2))},
         std::string(r.Text(i, 3)), created_at);
  }
  return Status::OK();
}

}  // namespace engram
