// FactStore: the facts of a Store and their full-text index (DESIGN §3),
// the source of truth for both. One implementation per backend
// (src/store/sqlite, src/store/postgres); every one gives the same answers
// and the same errors.
//
// Every mutation runs inside its Store's Transact(), so a crash or a failed
// step leaves the store as it was before. The store does no analysis of its
// own: callers pass the term counts the lexical index needs.
//
// Thread-safety: none; it works on its Store's connection, one thread at a
// time.
#ifndef ENGRAM_SRC_STORE_FACT_STORE_H_
#define ENGRAM_SRC_STORE_FACT_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/fact.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram {

// Accesses of one fact by searches, merged: `count` of them, the latest at
// `last`. The scope, the row and the id together name the fact.
struct AccessCount {
  std::string scope;
  int64_t rowid = 0;
  std::string id;
  int64_t count = 0;
  Timestamp last = 0;
};

// The collection statistics of some scopes' full-text index.
struct FullTextTotals {
  int64_t facts = 0;
  double content_terms = 0;      // summed over the facts
  double tags_terms = 0;         // the same, of tags
  int64_t portuguese_facts = 0;  // facts whose content is detected as Portuguese
};

// One fact the full-text index matched, with what ranking reads of it.
struct FullTextMatch {
  int64_t rowid = 0;
  std::string id;
  std::string scope;
  int64_t content_terms = 0;  // field lengths, in analysed terms
  int64_t tags_terms = 0;
  int64_t access_count = 0;
  Timestamp last_accessed = 0;
  Timestamp created_at = 0;
  // Occurrences of each phrase asked for, [phrase][field], fields content
  // then tags.
  std::vector<int32_t> tf;
};

// What the index records of a fact's text besides its terms: the lengths
// (in analysed terms) of its content and tags that BM25 normalises by, and
// whether its content is detected as Portuguese, counted per scope
// (scope_stats.portuguese_facts) so a search knows whether an English
// query's Portuguese forms can match anything.
struct FactTextCounts {
  int64_t content_terms = 0;
  int64_t tags_terms = 0;
  bool portuguese = false;
};

// A fact as written, with what the index records of its text.
struct FactRow {
  Fact fact;
  FactTextCounts text;
};

// What ranking needs of every fact of a scope when there is no query match.
struct RankInput {
  int64_t rowid = 0;
  std::string id;
  std::string scope;
  int64_t access_count = 0;
  Timestamp last_accessed = 0;
  Timestamp created_at = 0;  // orders versions of a thing
};

// Which facts a read sees: by default only current ones, neither
// superseded nor expired at `now`, narrowed by a FactFilter.
struct FactVisibility {
  Timestamp now = 0;
  bool include_superseded = false;
  bool include_expired = false;
  // Tags, kind, metadata and times (tags already normalised); as_of
  // replaces the two flags above with "current at that instant".
  FactFilter filter;
};

// What the index records of a fact's content and tags.
using TermCounter =
    std::function<FactTextCounts(const std::string& content, const std::vector<std::string>& tags)>;

struct StoredFact {
  int64_t rowid = 0;
  Fact fact;
};

// FactStore::ChangesOf: where one scope's facts stand.
struct ScopeChanges {
  int64_t last = 0;   // the largest change number of its facts
  int64_t facts = 0;  // how many it holds
  int64_t store = 0;  // the largest change number given in the whole store
  // Whether the scope is as it was at `other`, whatever other scopes did.
  bool SameScopeAs(const ScopeChanges& other) const {
    return last == other.last && facts == other.facts;
  }
};

class FactStore {
 public:
  virtual ~FactStore() = default;

  // Inserts a new fact; (scope, id) must not exist (AlreadyExists). Returns
  // its row: the label that names it until it is deleted, never reused.
  // Run inside Transact().
  virtual Result<int64_t> Insert(const FactRow& row) = 0;
  // Rewrites the kind, source, confidence and metadata of the fact at
  // `rowid` of fact.scope, as a merge that brings new values does. Run
  // inside Transact().
  virtual Status UpdateDescription(int64_t rowid, const Fact& fact) = 0;
  // Rewrites the tags (and their analysed length) and updated_at of the
  // fact at `rowid` of `scope`, as a merge does. Run inside Transact().
  virtual Status UpdateTags(const std::string& scope, int64_t rowid,
                            const std::vector<std::string>& tags, Timestamp updated_at,
                            int64_t tags_terms) = 0;

  // Every fact of the scopes (default scope when empty) that `visibility`
  // sees, for recency ranking.
  virtual Result<std::vector<RankInput>> RankInputs(const std::vector<std::string>& scopes,
                                                    const FactVisibility& visibility) = 0;
  // The same for the facts at `rowids` of `scopes`, in order; rows that are
  // gone, not seen or of another scope are skipped.
  virtual Result<std::vector<RankInput>> RankInputsOf(const std::vector<std::string>& scopes,
                                                      const std::vector<int64_t>& rowids,
                                                      const FactVisibility& visibility) = 0;
  // The scopes (default scope when empty) that hold no fact.
  virtual Result<std::vector<std::string>> MissingScopes(
      const std::vector<std::string>& scopes) = 0;

  // Recomputes what the index records of every fact with `count` and
  // rebuilds the full-text index from the facts, for when the analyzer
  // changed. Run inside Transact().
  virtual Status RebuildLexicalIndex(const TermCounter& count) = 0;

  // The fact of `scope` that `id_or_prefix` (4 to 24 lower-case hex
  // characters) names. NotFound names the scopes that hold it, when others
  // do: that takes a scan of every fact, so it is for answering a person.
  virtual Result<StoredFact> Get(const std::string& scope, const std::string& id_or_prefix) = 0;
  // The same, nullopt when the scope holds no such fact, without looking
  // anywhere else: for callers to whom absence is the usual outcome (an add
  // checking for the same fact).
  virtual Result<std::optional<StoredFact>> Find(const std::string& scope,
                                                 const std::string& id_or_prefix) = 0;
  // The facts of options.scopes that `visibility` sees, newest first (then
  // by id), narrowed by options.tag and options.kind, paged.
  virtual Result<std::vector<Fact>> List(const ListOptions& options,
                                         const FactVisibility& visibility) = 0;
  // The facts at `rowids` of `scopes`, in order; NotFound when one is
  // gone (or of another scope).
  virtual Result<std::vector<StoredFact>> GetByRowids(const std::vector<std::string>& scopes,
                                                      const std::vector<int64_t>& rowids) = 0;

  // Deletions, with the facts' vectors and version links; each returns the
  // number of facts removed. Run inside Transact().
  // DeleteRowids skips a row of another scope than `scopes`.
  virtual Result<int64_t> DeleteRowids(const std::vector<std::string>& scopes,
                                       const std::vector<int64_t>& rowids) = 0;
  virtual Result<int64_t> DeleteTag(const std::string& scope, const std::string& tag) = 0;
  virtual Result<int64_t> DeleteScope(const std::string& scope) = 0;

  // Every fact of `scopes` (every scope when empty) by scope, created_at
  // and id, until `sink` returns false.
  virtual Status ForEach(const std::vector<std::string>& scopes,
                         const std::function<bool(const StoredFact&)>& sink) = 0;

  // Marks the fact at `rowid` of `scope` as replaced by the fact `by_id` of
  // that scope from `valid_until` on; an empty `by_id` makes it current
  // again. Run inside Transact().
  virtual Status SetSuperseded(const std::string& scope, int64_t rowid, const std::string& by_id,
                               Timestamp valid_until) = 0;
  // Points every fact of `scope` that `from_id` superseded at `to_id`
  // instead (empty: current again, valid_until cleared). Returns how many.
  // Run inside Transact().
  virtual Result<int64_t> MoveSupersession(const std::string& scope, const std::string& from_id,
                                           const std::string& to_id) = 0;
  // Every fact whose expires_at is set and not after `now`, by scope and id.
  virtual Result<std::vector<StoredFact>> Expired(Timestamp now) = 0;
  // Facts of `scope` that `id` superseded directly, by created_at and id.
  virtual Result<std::vector<StoredFact>> SupersededBy(const std::string& scope,
                                                       const std::string& id) = 0;

  // Adds each count to its fact's access_count and moves last_accessed
  // up to its time (never back); a count whose row no longer holds the
  // fact it names is skipped. Run inside Transact().
  virtual Status RecordAccess(const std::vector<AccessCount>& counts) = 0;

  // The facts stored, per scope (by scope name), the schema version, and
  // where the store is.
  struct Counts {
    int64_t facts = 0;
    std::vector<std::pair<std::string, int64_t>> scopes;  // scope, fact count
    int schema_version = 0;
    std::string location;  // the database file, or its URL without secrets
  };
  virtual Result<Counts> CountFacts() = 0;

  // The full-text index.
  //
  // What BM25 needs of the facts of `scopes` (the default scope when
  // empty), every stored fact counted, seen or not.
  virtual Result<FullTextTotals> FullTextTotalsOf(const std::vector<std::string>& scopes) = 0;
  // Every fact of `scopes` that `visibility` sees holding at least one of
  // `phrases` (analysed terms, as the index holds them), in content or,
  // unless `content_only`, in tags; unordered. Each match carries its
  // occurrences of every phrase per field.
  virtual Result<std::vector<FullTextMatch>> MatchFullText(const std::vector<std::string>& phrases,
                                                           bool content_only,
                                                           const std::vector<std::string>& scopes,
                                                           const FactVisibility& visibility) = 0;
  // How many stored facts of `scope` hold `term` (analysed), in content or
  // tags.
  virtual Result<int64_t> FactsHolding(const std::string& term, const std::string& scope) = 0;

  // Changes, for a process that keeps a scope's facts in memory
  // (src/engine/lexical_cache.h). Every insert of a fact, and every update
  // of one (an access counted, a fact superseded, its tags rewritten),
  // gives it the store's next change number: committed numbers only grow
  // and are never given twice (a transaction that rolls back gives its
  // numbers again, so only a read transaction may rely on them).
  //
  // The largest change number of `scope`'s facts (0 if none), how many
  // facts it holds, and the store's largest number: while the first two
  // hold still, nothing of the scope changed (a deletion changes the
  // count, and may lower the largest number).
  // NotSupported from a store that does not number changes.
  virtual Result<ScopeChanges> ChangesOf(const std::string& scope) = 0;
  // Every fact of `scope` whose change number is above `after`, with that
  // number, by rowid, until `sink` returns false.
  virtual Status ForEachChangedSince(
      const std::string& scope, int64_t after,
      const std::function<bool(const StoredFact&, int64_t changed)>& sink) = 0;
};

// Tags as stored and as the full-text index reads them: a JSON array.
std::string EncodeTags(const std::vector<std::string>& tags);
// The tags of EncodeTags' array; what is not an array of strings gives none.
std::vector<std::string> DecodeTags(const std::string& text);

// FactStore::Get's NotFound message for `id_or_prefix` in `scope`, naming
// the `scopes` that hold it (the first 6 by name), where the caller should
// look.
std::string FactNotFoundMessage(const std::string& scope, const std::string& id_or_prefix,
                                const std::vector<std::string>& scopes);

// `scopes`, or {"default"} when it is empty.
std::vector<std::string> ScopesOrDefault(const std::vector<std::string>& scopes);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_FACT_STORE_H_
