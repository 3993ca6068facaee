#include "src/store/sqlite/schema.h"

#include <string>
#include <vector>

namespace engram {
namespace {

// Trigger bodies keeping scope_stats in step, as schema 5 wrote them: `new`
// counted into its scope's row, `old` taken out of its scope's row. Schema 7
// replaces them with the V7 bodies below.
constexpr char kCountNewFact[] = R"sql(
  INSERT INTO scope_stats(scope, facts, content_terms, tags_terms)
    VALUES (new.scope, 1, new.content_terms, new.tags_terms)
    ON CONFLICT(scope) DO UPDATE SET facts = facts + 1,
      content_terms = content_terms + excluded.content_terms,
      tags_terms = tags_terms + excluded.tags_terms;
)sql";
constexpr char kUncountOldFact[] = R"sql(
  UPDATE scope_stats SET facts = facts - 1, content_terms = content_terms - old.content_terms,
    tags_terms = tags_terms - old.tags_terms WHERE scope = old.scope;
  DELETE FROM scope_stats WHERE scope = old.scope AND facts = 0;
)sql";

// The same from schema 7 on, with the scope's facts detected as Portuguese.
constexpr char kCountNewFactV7[] = R"sql(
  INSERT INTO scope_stats(scope, facts, content_terms, tags_terms, portuguese_facts)
    VALUES (new.scope, 1, new.content_terms, new.tags_terms, new.portuguese)
    ON CONFLICT(scope) DO UPDATE SET facts = facts + 1,
      content_terms = content_terms + excluded.content_terms,
      tags_terms = tags_terms + excluded.tags_terms,
      portuguese_facts = portuguese_facts + excluded.portuguese_facts;
)sql";
constexpr char kUncountOldFactV7[] = R"sql(
  UPDATE scope_stats SET facts = facts - 1, content_terms = content_terms - old.content_terms,
    tags_terms = tags_terms - old.tags_terms, portuguese_facts = portuguese_facts - old.portuguese
    WHERE scope = old.scope;
  DELETE FROM scope_stats WHERE scope = old.scope AND facts = 0;
)sql";

// Trigger body of schema 10: `new` takes the store's next change number.
constexpr char kNoteChange[] = R"sql(
  UPDATE fact_changes SET seq = seq + 1;
  UPDATE facts SET changed = (SELECT seq FROM fact_changes) WHERE rowid = new.rowid;
)sql";

// kMigrations[i] upgrades version i to i+1.
const std::vector<std::string>& Migrations() {
  static const std::vector<std::string> migrations = {
      // 0 -> 1: facts, their full-text index and the triggers keeping the
      // index in step inside every transaction.
      R"sql(
CREATE TABLE engram_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE facts(
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  scope TEXT NOT NULL,
  content TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  kind TEXT NOT NULL DEFAULT 'fact',
  source TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_accessed INTEGER NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0,
  confidence REAL NOT NULL DEFAULT 1.0,
  metadata TEXT NOT NULL DEFAULT '{}',
  content_terms INTEGER NOT NULL DEFAULT 0,
  tags_terms INTEGER NOT NULL DEFAULT 0,
  UNIQUE(scope, id)
);
CREATE INDEX facts_scope_created ON facts(scope, created_at);
CREATE VIRTUAL TABLE facts_fts USING fts5(
  content, tags, content='facts', content_rowid='rowid', tokenize='engram');
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, content, tags) VALUES (new.rowid, new.content, new.tags);
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, tags)
    VALUES ('delete', old.rowid, old.content, old.tags);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content, tags ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, content, tags)
    VALUES ('delete', old.rowid, old.content, old.tags);
  INSERT INTO facts_fts(rowid, content, tags) VALUES (new.rowid, new.content, new.tags);
END;
)sql",
      // 1 -> 2: embedding spaces and their vectors (DESIGN §6). A vector's
      // rowid never comes back after a delete (AUTOINCREMENT), so a
      // persisted index can tell a new vector from an old one by label.
      // Deleting a fact deletes its vectors in every space.
      R"sql(
CREATE TABLE embedding_spaces(
  id INTEGER PRIMARY KEY,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  dimension INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE(provider, model, dimension)
);
CREATE TABLE fact_vectors(
  rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  space_id INTEGER NOT NULL,
  fact_rowid INTEGER NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE(space_id, fact_rowid)
);
CREATE INDEX fact_vectors_fact ON fact_vectors(fact_rowid);
CREATE TRIGGER facts_vectors_delete AFTER DELETE ON facts BEGIN
  DELETE FROM fact_vectors WHERE fact_rowid = old.rowid;
END;
)sql",
      // 2 -> 3: HyDE hypotheses, keyed by the LLM that wrote them, the
      // prompt's version and the query (DESIGN §5).
      R"sql(
CREATE TABLE hyde_hypotheses(
  llm TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,
  query TEXT NOT NULL,
  hypothesis TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY(llm, prompt_version, query)
) WITHOUT ROWID;
)sql",
      // 3 -> 4: attached files (include/engram/context.h). Chunks carry the
      // SHA-256 of their text; vectors are keyed by space and that hash, so
      // equal text is embedded once. The chunks' full-text index is kept in
      // step by triggers; deleting an attachment deletes its files and
      // chunks, deleting a space its chunk vectors. `chunking` records the
      // chunker settings the chunks were cut with ("bytes/overlap").
      R"sql(
CREATE TABLE context_attachments(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  roots TEXT NOT NULL,
  chunking TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  refreshed_at INTEGER NOT NULL
);
CREATE TABLE context_files(
  attachment_id INTEGER NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  PRIMARY KEY(attachment_id, path)
) WITHOUT ROWID;
CREATE TABLE context_chunks(
  rowid INTEGER PRIMARY KEY,
  attachment_id INTEGER NOT NULL,
  path TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  text TEXT NOT NULL,
  terms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX context_chunks_file ON context_chunks(attachment_id, path);
CREATE INDEX context_chunks_hash ON context_chunks(content_hash);
CREATE VIRTUAL TABLE context_chunks_fts USING fts5(
  text, content='context_chunks', content_rowid='rowid', tokenize='engram');
CREATE TRIGGER context_chunks_fts_insert AFTER INSERT ON context_chunks BEGIN
  INSERT INTO context_chunks_fts(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER context_chunks_fts_delete AFTER DELETE ON context_chunks BEGIN
  INSERT INTO context_chunks_fts(context_chunks_fts, rowid, text)
    VALUES ('delete', old.rowid, old.text);
END;
CREATE TABLE context_vectors(
  space_id INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY(space_id, content_hash)
) WITHOUT ROWID;
CREATE TRIGGER context_attachments_delete AFTER DELETE ON context_attachments BEGIN
  DELETE FROM context_chunks WHERE attachment_id = old.id;
  DELETE FROM context_files WHERE attachment_id = old.id;
END;
CREATE TRIGGER context_vectors_space_delete AFTER DELETE ON embedding_spaces BEGIN
  DELETE FROM context_vectors WHERE space_id = old.id;
END;
)sql",
      // 4 -> 5: per-scope totals BM25 needs (facts, content and tag terms),
      // kept in step with `facts` by triggers inside every transaction, so
      // a search reads its collection statistics from one row per scope
      // instead of summing every fact of the scope. A scope's row goes when
      // its last fact does.
      std::string(R"sql(
CREATE TABLE scope_stats(
  scope TEXT PRIMARY KEY,
  facts INTEGER NOT NULL,
  content_terms INTEGER NOT NULL,
  tags_terms INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO scope_stats(scope, facts, content_terms, tags_terms)
  SELECT scope, count(*), sum(content_terms), sum(tags_terms) FROM facts GROUP BY scope;
CREATE TRIGGER facts_stats_insert AFTER INSERT ON facts BEGIN)sql") +
          kCountNewFact + "END;\nCREATE TRIGGER facts_stats_delete AFTER DELETE ON facts BEGIN" +
          kUncountOldFact +
          "END;\nCREATE TRIGGER facts_stats_update AFTER UPDATE OF scope, content_terms, "
          "tags_terms ON facts BEGIN" +
          kUncountOldFact + kCountNewFact + "END;\n",
      // 5 -> 6: facts that change (docs/ARCHITECTURE.md). A superseded fact
      // names the fact that replaced it and when it stopped being valid; a
      // fact may expire. fact_versions holds the version links found on
      // write: `newer` is likely a later version of `older` (same scope,
      // created later, close in embedding space), or replaced it by an
      // explicit update (`explicit` 1). Deleting a fact deletes its links.
      R"sql(
ALTER TABLE facts ADD COLUMN superseded_by TEXT NOT NULL DEFAULT '';
ALTER TABLE facts ADD COLUMN valid_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE facts ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX facts_superseded_by ON facts(scope, superseded_by) WHERE superseded_by != '';
CREATE INDEX facts_expires_at ON facts(expires_at) WHERE expires_at != 0;
CREATE TABLE fact_versions(
  older_rowid INTEGER NOT NULL,
  newer_rowid INTEGER NOT NULL,
  cosine REAL NOT NULL,
  explicit INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(older_rowid, newer_rowid)
) WITHOUT ROWID;
CREATE INDEX fact_versions_newer ON fact_versions(newer_rowid);
CREATE TRIGGER facts_versions_delete AFTER DELETE ON facts BEGIN
  DELETE FROM fact_versions WHERE older_rowid = old.rowid OR newer_rowid = old.rowid;
END;
)sql",
      // 6 -> 7: whether a fact's content is detected as Portuguese, and
      // each scope's count of such facts, so a search adds an English
      // query's Portuguese forms only where they can match
      // (lexical_searcher.h, WithPortugueseForms). Existing facts are
      // counted when the analyzer version that comes with this schema
      // rebuilds the full-text index on open.
      std::string(R"sql(
ALTER TABLE facts ADD COLUMN portuguese INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scope_stats ADD COLUMN portuguese_facts INTEGER NOT NULL DEFAULT 0;
DROP TRIGGER facts_stats_insert;
DROP TRIGGER facts_stats_delete;
DROP TRIGGER facts_stats_update;
CREATE TRIGGER facts_stats_insert AFTER INSERT ON facts BEGIN)sql") +
          kCountNewFactV7 + "END;\nCREATE TRIGGER facts_stats_delete AFTER DELETE ON facts BEGIN" +
          kUncountOldFactV7 +
          "END;\nCREATE TRIGGER facts_stats_update AFTER UPDATE OF scope, content_terms, "
          "tags_terms, portuguese ON facts BEGIN" +
          kUncountOldFactV7 + kCountNewFactV7 + "END;\n",
      // 7 -> 8: what ranking reads of a fact it finds by rowid (a lexical
      // match, a vector's nearest), in an index of its own: a search then
      // reads entries of about 80 bytes instead of whole rows, whose
      // content is often kilobytes (three scifact abstracts fill a page
      // that holds fifty entries). Queries name it with INDEXED BY, since
      // the planner otherwise prefers the table's own rowid search.
      R"sql(
CREATE INDEX facts_rank ON facts(rowid, superseded_by, expires_at, scope, id, created_at,
  last_accessed, access_count, content_terms, tags_terms);
)sql",
      // 8 -> 9: each space counts the vectors ever deleted from it, on
      // every path (a fact deleted, a vector replaced, pruned). While the
      // count holds still a scope's vectors only grow, so a process keeping
      // them in memory reads what was added since it last looked
      // (VectorStore::Refs with `after`) instead of every label.
      R"sql(
ALTER TABLE embedding_spaces ADD COLUMN vectors_removed INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER fact_vectors_removed AFTER DELETE ON fact_vectors BEGIN
  UPDATE embedding_spaces SET vectors_removed = vectors_removed + 1 WHERE id = old.space_id;
END;
)sql",
      // 9 -> 10: when each fact last changed, so a process keeping a
      // scope's full-text index in memory reads only what changed since it
      // last looked (FactStore::ChangesOf, ForEachChangedSince). `changed` takes the next
      // value of one sequence for the whole store on every insert and
      // every update of any other column (an access counted, a fact
      // superseded): committed values only grow and are never given twice,
      // so a scope's largest value and its count hold still exactly while
      // none of its facts is added, changed or deleted.
      std::string(R"sql(
ALTER TABLE facts ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
CREATE TABLE fact_changes(only INTEGER PRIMARY KEY CHECK (only = 0), seq INTEGER NOT NULL);
INSERT INTO fact_changes(only, seq) VALUES (0, 0);
CREATE INDEX facts_changed ON facts(scope, changed);
CREATE TRIGGER facts_changed_insert AFTER INSERT ON facts BEGIN)sql") +
          kNoteChange + "END;\nCREATE TRIGGER facts_changed_update AFTER UPDATE OF " +
          kFactColumnsButChanged + " ON facts BEGIN" + kNoteChange + "END;\n",
  };
  return migrations;
}

}  // namespace

Result<int> MigrateSchema(SqliteDb* db) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t found, db->QueryInt("PRAGMA user_version"));
  if (found > kSchemaVersion) {
    return NotSupported("store: open '" + db->path() + "': schema version " +
                        std::to_string(found) + " is newer than this engram supports (" +
                        std::to_string(kSchemaVersion) + "); upgrade engram");
  }
  const auto& migrations = Migrations();
  for (int64_t v = found; v < kSchemaVersion;) {
    ENGRAM_RETURN_IF_ERROR(db->Exec("BEGIN IMMEDIATE"));
    // Another process may have migrated while this one waited for the lock:
    // the version read under the lock is the one that counts.
    auto current = db->QueryInt("PRAGMA user_version");
    Status s = current.status();
    if (s.ok() && *current >= kSchemaVersion) {
      s = db->Exec("COMMIT");
      if (!s.ok()) db->Exec("ROLLBACK").IgnoreError();  // report the COMMIT failure
      return s.ok() ? Result<int>(static_cast<int>(found)) : Result<int>(s);
    }
    if (s.ok()) v = *current;
    if (s.ok()) s = db->Exec(migrations[static_cast<size_t>(v)]);
    if (s.ok()) s = db->Exec("PRAGMA user_version = " + std::to_string(v + 1));
    if (s.ok()) s = db->Exec("COMMIT");
    if (!s.ok()) {
      db->Exec("ROLLBACK").IgnoreError();  // the failure above is what matters
      return s.WithContext("store: migrate to schema " + std::to_string(v + 1));
    }
    ++v;
  }
  return static_cast<int>(found);
}

}  // namespace engram
