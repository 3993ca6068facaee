// EngineImpl::Check: reads the whole store and names what is not whole
// (docs/ARCHITECTURE.md, "Corruption noticed, not served"). Four phases,
// each on the engine's own connection, which knows the `engram` tokenizer
// that the stock sqlite3 shell lacks: SQLite's integrity check, the
// full-text indexes, fact ids against content, stored vectors.
#include <string>
#include <vector>

#include "src/common/utf8.h"
#include "src/engine/engine_impl.h"
#include "src/store/fact_id.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

// The full-text indexes of the schema.
constexpr const char* kFullTextIndexes[] = {"facts_fts", "context_chunks_fts"};

Status CheckSqlite(SqliteDb* db, CheckReport* report) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s, db->Prepare("PRAGMA integrity_check"));
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::OK();
    const std::string line = s.ColumnText(0);
    if (line != "ok") report->problems.push_back("sqlite: " + line);
  }
}

void CheckFullText(SqliteDb* db, CheckReport* report) {
  for (const char* table : kFullTextIndexes) {
    const std::string t(table);
    // FTS5's own check of the index's structure (SQLite before 3.44 does
    // not compare an external-content index with its rows; CheckFactIds
    // covers content that changed). It runs as a write.
    if (db->ReadOnly()) {
      report->skipped.push_back("full-text index " + t +
                                ": not checked, the store is read-only to this user");
      continue;
    }
    std::string sql = "INSERT INTO " + t;
    sql += "(" + t + ") VALUES('integrity-check')";
    if (Status s = db->Exec(sql); !s.ok()) {
      report->problems.push_back("full-text index " + t + ": " + s.message());
    }
  }
}

Status CheckFactIds(SqliteDb* db, CheckReport* report) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s, db->Prepare("SELECT id, scope, content FROM facts"));
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::OK();
    ++report->facts;
    const std::string id = s.ColumnText(0);
    const std::string scope = s.ColumnText(1);
    const std::string content = s.ColumnText(2);
    std::string where = "fact " + id;
    where += " (scope '" + scope + "'): ";
    if (const std::string wrong = IdMismatch(id, content); !wrong.empty()) {
      report->problems.push_back(where + wrong + ": it changed outside engram");
    }
  }
}

}  // namespace

Result<CheckReport> EngineImpl::Check() {
  CheckReport report;
  std::lock_guard lock(mutex_);
  SqliteDb* db = store_->db();
  ENGRAM_RETURN_IF_ERROR(CheckSqlite(db, &report));
  CheckFullText(db, &report);
  ENGRAM_RETURN_IF_ERROR(CheckFactIds(db, &report));
  // Stored vectors, space by space.
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement spaces,
                          db->Prepare("SELECT id, provider, model, dimension FROM "
                                      "embedding_spaces ORDER BY id"));
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, spaces.Step());
    if (!row) break;
    const int64_t space_id = spaces.ColumnInt(0);
    const size_t dimension = static_cast<size_t>(spaces.ColumnInt(3));
    const EmbeddingSpace space_of{spaces.ColumnText(1), spaces.ColumnText(2), dimension};
    const std::string space = space_of.Key();
    std::vector<std::pair<int64_t, std::string>> bad;  // fact rowid, why
    ENGRAM_RETURN_IF_ERROR(
        vectors_.ForEachBlob(space_id, [&](const VectorRef& ref, std::string_view blob) {
          ++report.vectors;
          Status usable = CheckVectorBlob(blob, dimension, space_of.MaxVectorsPerDocument());
          if (!usable.ok()) bad.emplace_back(ref.fact_rowid, usable.message());
        }));
    for (const auto& [fact_rowid, why] : bad) {
      Result<std::string> fact = vectors_.FactIdOf(fact_rowid);
      std::string problem = fact.ok()
                                ? "fact " + *fact
                                : "a vector of no fact (row " + std::to_string(fact_rowid) + ")";
      problem += ": its vector in space " + space;
      problem += " is unusable (" + why;
      problem += "); `engram backfill` replaces it";
      report.problems.push_back(std::move(problem));
    }
  }
  return report;
}

}  // namespace engram
