#include "src/store/postgres/pg_schema.h"

#include <iterator>
#include <string>

namespace engram {
namespace {

// Version 1: the tables, their indexes and the triggers that keep the
// BM25 totals and the removal counts.
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE engram_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE SEQUENCE fact_labels;
CREATE SEQUENCE vector_labels;
CREATE TABLE embedding_spaces (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  provider text NOT NULL,
  model text NOT NULL,
  dimension integer NOT NULL,
  created_at bigint NOT NULL,
  vectors_removed bigint NOT NULL DEFAULT 0,
  UNIQUE (provider, model, dimension)
);
CREATE TABLE facts (
  scope text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  label bigint NOT NULL DEFAULT nextval('fact_labels'),
  content text NOT NULL,
  tags text NOT NULL DEFAULT '[]',
  kind text COLLATE "C" NOT NULL DEFAULT 'fact',
  source text NOT NULL DEFAULT '',
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  last_accessed bigint NOT NULL,
  access_count bigint NOT NULL DEFAULT 0,
  confidence double precision NOT NULL DEFAULT 1.0,
  metadata text NOT NULL DEFAULT '{}',
  superseded_by text COLLATE "C" NOT NULL DEFAULT '',
  valid_until bigint NOT NULL DEFAULT 0,
  expires_at bigint NOT NULL DEFAULT 0,
  content_terms integer NOT NULL DEFAULT 0,
  tags_terms integer NOT NULL DEFAULT 0,
  portuguese boolean NOT NULL DEFAULT false,
  terms text[] COLLATE "C" NOT NULL DEFAULT '{}',
  content_tf integer[] NOT NULL DEFAULT '{}',
  tags_tf integer[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (scope, id),
  UNIQUE (scope, label)
);
CREATE INDEX facts_label ON facts (label);
CREATE INDEX facts_terms ON facts USING gin (terms);
CREATE INDEX facts_scope_created ON facts (scope, created_at);
CREATE INDEX facts_superseded_by ON facts (scope, superseded_by) WHERE superseded_by <> '';
CREATE INDEX facts_expires_at ON facts (expires_at) WHERE expires_at <> 0;
CREATE TABLE scope_stats (
  scope text COLLATE "C" PRIMARY KEY,
  facts bigint NOT NULL,
  content_terms bigint NOT NULL,
  tags_terms bigint NOT NULL,
  portuguese_facts bigint NOT NULL
);
CREATE TABLE fact_vectors (
  scope text COLLATE "C" NOT NULL,
  space_id bigint NOT NULL REFERENCES embedding_spaces (id) ON DELETE CASCADE,
  fact_label bigint NOT NULL,
  label bigint NOT NULL DEFAULT nextval('vector_labels'),
  vector bytea NOT NULL,
  PRIMARY KEY (scope, space_id, fact_label),
  UNIQUE (scope, label),
  FOREIGN KEY (scope, fact_label) REFERENCES facts (scope, label) ON DELETE CASCADE
);
CREATE INDEX fact_vectors_label ON fact_vectors (label);
CREATE INDEX fact_vectors_space ON fact_vectors (space_id, scope, label);
CREATE TABLE fact_versions (
  scope text COLLATE "C" NOT NULL,
  older_label bigint NOT NULL,
  newer_label bigint NOT NULL,
  cosine double precision NOT NULL,
  explicit boolean NOT NULL DEFAULT false,
  PRIMARY KEY (scope, older_label, newer_label),
  FOREIGN KEY (scope, older_label) REFERENCES facts (scope, label) ON DELETE CASCADE,
  FOREIGN KEY (scope, newer_label) REFERENCES facts (scope, label) ON DELETE CASCADE
);
CREATE INDEX fact_versions_older ON fact_versions (older_label);
CREATE INDEX fact_versions_newer ON fact_versions (scope, newer_label);
CREATE TABLE hyde_hypotheses (
  llm text NOT NULL,
  prompt_version integer NOT NULL,
  query text NOT NULL,
  hypothesis text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (llm, prompt_version, query)
);

-- The per-scope totals BM25 reads, kept by every insert, delete and change
-- of a fact's analysed lengths, in the same transaction; a scope's row goes
-- with its last fact.
CREATE FUNCTION engram_count_fact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE scope_stats SET facts = facts - 1,
      content_terms = content_terms - OLD.content_terms,
      tags_terms = tags_terms - OLD.tags_terms,
      portuguese_facts = portuguese_facts - OLD.portuguese::integer
    WHERE scope = OLD.scope;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO scope_stats AS s
      VALUES (NEW.scope, 1, NEW.content_terms, NEW.tags_terms, NEW.portuguese::integer)
    ON CONFLICT (scope) DO UPDATE SET facts = s.facts + 1,
      content_terms = s.content_terms + excluded.content_terms,
      tags_terms = s.tags_terms + excluded.tags_terms,
      portuguese_facts = s.portuguese_facts + excluded.portuguese_facts;
  END IF;
  IF TG_OP = 'DELETE' THEN
    DELETE FROM scope_stats WHERE scope = OLD.scope AND facts = 0;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER facts_stats AFTER INSERT OR DELETE OR UPDATE OF content_terms, tags_terms, portuguese
  ON facts FOR EACH ROW EXECUTE FUNCTION engram_count_fact();

-- Every vector deleted, by any path, counted per space: while the count
-- holds still, a scope's vectors only grow.
CREATE FUNCTION engram_count_removed_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE embedding_spaces SET vectors_removed = vectors_removed + 1 WHERE id = OLD.space_id;
  RETURN NULL;
END $$;
CREATE TRIGGER fact_vectors_removed AFTER DELETE ON fact_vectors
  FOR EACH ROW EXECUTE FUNCTION engram_count_removed_vector();

-- A metadata value as SQLite's CAST(json_extract(doc, path) AS TEXT) gives
-- it, so a filter on metadata matches the same facts on both stores: a
-- string as itself, true and false as 1 and 0, null as NULL, a number or a
-- container as its JSON text.
CREATE FUNCTION engram_metadata_text(doc text, key text) RETURNS text
  LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'string' THEN v #>> '{}'
    WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '1' ELSE '0' END
    WHEN 'null' THEN NULL
    ELSE v::text END
  FROM (SELECT doc::jsonb -> key AS v) AS value
$$;
)sql";

// Version 2: vector labels in commit order within a scope, and removals
// counted per scope instead of per space.
//
// A vector's label is drawn after its scope's row of scope_stats is
// locked, and that lock is held to COMMIT, so the writers of one scope
// draw labels one at a time: a snapshot that holds a label of a scope holds
// every smaller label of that scope that will ever commit, and a reader
// that has seen the labels up to L misses nothing by reading those above L
// next (VectorStore::Refs). (Drawn from the column's default, a label
// came before the lock: a writer could draw 10, another draw 11 and commit
// first, and a reader that saw 11 would never look below it for 10.) A
// fact written in the same transaction has locked the row already.
//
// scope_stats counts the vectors removed from each scope, which
// VectorStore::Versions reads with the scope's largest label: a server
// learns that its cache of a scope is stale from one row and one index
// probe, and a removal in one tenant no longer updates a row every
// tenant's removals share. A scope's row now stays when its last fact
// goes, so its count never goes back.
constexpr char kSchemaV2[] = R"sql(
ALTER TABLE scope_stats ADD COLUMN vectors_removed bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION engram_count_fact() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE scope_stats SET facts = facts - 1,
      content_terms = content_terms - OLD.content_terms,
      tags_terms = tags_terms - OLD.tags_terms,
      portuguese_facts = portuguese_facts - OLD.portuguese::integer
    WHERE scope = OLD.scope;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO scope_stats AS s (scope, facts, content_terms, tags_terms, portuguese_facts)
      VALUES (NEW.scope, 1, NEW.content_terms, NEW.tags_terms, NEW.portuguese::integer)
    ON CONFLICT (scope) DO UPDATE SET facts = s.facts + 1,
      content_terms = s.content_terms + excluded.content_terms,
      tags_terms = s.tags_terms + excluded.tags_terms,
      portuguese_facts = s.portuguese_facts + excluded.portuguese_facts;
  END IF;
  RETURN NULL;
END $$;

ALTER TABLE fact_vectors ALTER COLUMN label DROP DEFAULT;
CREATE FUNCTION engram_label_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM scope_stats WHERE scope = NEW.scope FOR NO KEY UPDATE;
  NEW.label := nextval('vector_labels');
  RETURN NEW;
END $$;
CREATE TRIGGER fact_vectors_label BEFORE INSERT ON fact_vectors
  FOR EACH ROW EXECUTE FUNCTION engram_label_vector();

CREATE OR REPLACE FUNCTION engram_count_removed_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE scope_stats SET vectors_removed = vectors_removed + 1 WHERE scope = OLD.scope;
  RETURN NULL;
END $$;
ALTER TABLE embedding_spaces DROP COLUMN vectors_removed;
)sql";

// Version 3: attached files (include/engram/context.h), as on SQLite:
// attachments, their files and chunks, and the chunks' vectors keyed by
// space and the SHA-256 of their text, so equal text is embedded once.
// A chunk's full-text index is term arrays, as a fact's: `index_terms`
// (its distinct index forms, under a GIN index) and `index_tf` (each
// form's count). Deleting an attachment deletes its files and chunks,
// deleting a space its chunk vectors (foreign keys).
constexpr char kSchemaV3[] = R"sql(
CREATE TABLE context_attachments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text COLLATE "C" NOT NULL UNIQUE,
  roots text NOT NULL,
  chunking text NOT NULL,
  created_at bigint NOT NULL,
  refreshed_at bigint NOT NULL
);
CREATE TABLE context_files (
  attachment_id bigint NOT NULL REFERENCES context_attachments (id) ON DELETE CASCADE,
  path text COLLATE "C" NOT NULL,
  size bigint NOT NULL,
  mtime bigint NOT NULL,
  content_hash text NOT NULL,
  PRIMARY KEY (attachment_id, path)
);
CREATE TABLE context_chunks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  attachment_id bigint NOT NULL REFERENCES context_attachments (id) ON DELETE CASCADE,
  path text COLLATE "C" NOT NULL,
  start_line bigint NOT NULL,
  end_line bigint NOT NULL,
  content_hash text COLLATE "C" NOT NULL,
  text text NOT NULL,
  terms integer NOT NULL,
  index_terms text[] COLLATE "C" NOT NULL,
  index_tf integer[] NOT NULL
);
CREATE INDEX context_chunks_file ON context_chunks (attachment_id, path);
CREATE INDEX context_chunks_hash ON context_chunks (content_hash);
CREATE INDEX context_chunks_terms ON context_chunks USING gin (index_terms);
CREATE TABLE context_vectors (
  space_id bigint NOT NULL REFERENCES embedding_spaces (id) ON DELETE CASCADE,
  content_hash text COLLATE "C" NOT NULL,
  vector bytea NOT NULL,
  PRIMARY KEY (space_id, content_hash)
);
)sql";

// kMigrations[v] takes a database from version v to v + 1 (0: empty).
constexpr const char* kMigrations[] = {kSchemaV1, kSchemaV2, kSchemaV3};
static_assert(std::size(kMigrations) == kPgSchemaVersion);

// The version recorded in `db`, 0 when it has no schema.
Result<int> RecordedVersion(PgConnection& db) {
  ENGRAM_ASSIGN_OR_RETURN(PgResult table, db.Query("SELECT to_regclass('engram_meta') IS NULL"));
  if (table.Text(0, 0) == "t") return 0;
  ENGRAM_ASSIGN_OR_RETURN(PgResult version,
                          db.Query("SELECT value::integer FROM engram_meta WHERE key = $1",
                                   {PgParam::Text("schema_version")}));
  if (version.Rows() == 0) {
    return Corruption("store: postgres: " + db.ShownUrl() +
                      " has engram's tables but no schema version in engram_meta");
  }
  ENGRAM_ASSIGN_OR_RETURN(const int64_t found, version.Int(0, 0));
  return static_cast<int>(found);
}

// The schema checked and, when missing, created; the caller's transaction.
Result<int> EnsureLocked(PgConnection& db, int target) {
  ENGRAM_RETURN_IF_ERROR(
      db.Query("SELECT pg_advisory_xact_lock($1)", {PgParam::Int(kPgSchemaLock)}).status());
  ENGRAM_ASSIGN_OR_RETURN(const int found, RecordedVersion(db));
  if (found > kPgSchemaVersion) {
    return NotSupported("store: postgres: " + db.ShownUrl() + " has schema version " +
                        std::to_string(found) + ", newer than this build's " +
                        std::to_string(kPgSchemaVersion) + ": upgrade engram to use it");
  }
  if (found >= target) return found;
  for (int v = found; v < target; ++v) ENGRAM_RETURN_IF_ERROR(db.Exec(kMigrations[v]));
  ENGRAM_RETURN_IF_ERROR(db.Query("INSERT INTO engram_meta (key, value) VALUES ($1, $2) "
                                  "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                                  {PgParam::Text("schema_version"), PgParam::Int(target)})
                             .status());
  return found;
}

}  // namespace

Result<int> EnsurePgSchema(PgConnection& db, int target) {
  if (target < 1 || target > kPgSchemaVersion) {
    return InvalidArgument("store: postgres: no schema version " + std::to_string(target));
  }
  ENGRAM_RETURN_IF_ERROR(db.Exec("BEGIN"));
  Result<int> found = EnsureLocked(db, target);
  const Status ended = db.Exec(found.ok() ? "COMMIT" : "ROLLBACK");
  if (!found.ok()) return found.status();
  ENGRAM_RETURN_IF_ERROR(ended);
  return found;
}

}  // namespace engram
