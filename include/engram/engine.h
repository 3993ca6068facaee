// Engine: the memory. Adds, finds, lists, forgets, imports and exports facts
// of one SQLite store, and ranks them for a query.
//
// Thread-safety: an Engine may be used from several threads; writes are
// serialised by the store. Ownership: Open() returns the only owner.
#ifndef ENGRAM_ENGINE_H_
#define ENGRAM_ENGINE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/context.h"
#include "engram/embedder.h"
#include "engram/explain.h"
#include "engram/export.h"
#include "engram/fact.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram {

struct SearchHit {
  Fact fact;
  double score = 0.0;
  Explanation explanation;  // filled when SearchOptions::explain
};

// What HyDE did for one search (DESIGN §5).
struct HydeReport {
  // HyDE ran: enabled in the engine, an LLM configured (or feedback on),
  // allowed by the search, and a query to work on.
  bool enabled = false;
  // Llm::Name(), or "feedback" for pseudo-relevance feedback
  // (FeedbackOptions), which has no hypothesis but `feedback_facts`.
  std::string llm;
  std::string hypothesis;  // empty when there is none (see fallbacks)
  bool cached = false;     // the hypothesis came from the store's cache
  // Keywords of the hypothesis (or feedback terms) added to the lexical
  // query (3a).
  std::vector<std::string> keywords;
  // Feedback: the ids of the first pass's facts read as feedback, best
  // first.
  std::vector<std::string> feedback_facts;
  // The vector searched: "query", "hypothesis", "query+hypothesis",
  // "query+feedback", or empty when there was no vector search.
  std::string vector;
  // What went wrong; the search went on without that part of HyDE.
  std::vector<std::string> fallbacks;
};

struct SearchResponse {
  std::vector<SearchHit> hits;
  std::vector<std::string> query_terms;  // analysed terms of the query
  std::string language;                  // language detected for the query
  // The English gloss of a Portuguese query embedded beside it for an
  // English-only model (QueryAnalysisOptions::translate); empty when none.
  std::string translation;
  size_t candidates = 0;  // facts scored before the cut to k
  // Nothing matched the query (no term, no vector above the floor, or
  // only candidates without evidence); hits is then empty unless the
  // recency fallback is on.
  bool no_match = false;
  // Candidates dropped for lacking evidence (FusionOptions::min_lexical_coverage).
  size_t without_evidence = 0;
  // The hits are the scope's most recent facts, not matches
  // (FusionOptions::temporal_fallback).
  bool temporal_fallback = false;
  size_t below_min_score = 0;               // blended hits dropped by FusionOptions::min_score
  std::vector<std::string> missing_scopes;  // searched scopes that hold no fact
  bool semantic = false;                    // the query was embedded and vectors searched
  size_t vector_candidates = 0;             // candidates found by the vector search
  HydeReport hyde;
  // Problems that did not stop the search (e.g. access not recorded because
  // another process held the write lock, the query could not be embedded,
  // HyDE's fallbacks).
  std::vector<std::string> warnings;
};

// A new fact merged into a current fact it nearly repeats
// (VersionOptions::merge_near_duplicates); its own text is not kept.
struct NearDuplicate {
  std::string id;       // the id the merged-away fact had
  std::string content;  // its text
  double cosine = 0.0;
  double overlap = 0.0;  // weighted term overlap (src/lexical/term_overlap.h)
};

struct AddOutcome {
  Fact fact;
  bool created = false;  // false: merged into an existing fact
  // Set when the merge was of a near-duplicate rather than the same text.
  std::optional<NearDuplicate> near_duplicate;
  // On a merge: the fields besides tags that the new values changed
  // ("kind", "source", "confidence", "metadata", "expires_at").
  std::vector<std::string> updated_fields;
  // The fact is stored but could not be embedded (it will be by backfill).
  std::vector<std::string> warnings;
};

struct ImportOptions {
  // Called after each fact with (done, total). May be empty.
  std::function<void(size_t, size_t)> progress;
  // Called after each batch of new facts is embedded, with (done, total).
  std::function<void(size_t, size_t)> embed_progress;
};

struct ImportReport {
  size_t added = 0;
  size_t merged = 0;           // same text, or near-duplicates (counted again below)
  size_t near_duplicates = 0;  // merged as near-duplicates of current facts
  // Id each near-duplicate had -> id of the fact it was merged into.
  std::map<std::string, std::string> merged_into;
  size_t embedded = 0;  // new facts given a vector in the active space
  // Facts stored without a vector (embedding failed); backfill retries them.
  std::vector<std::string> warnings;
};

struct BackfillOptions {
  // Most facts to embed; 0 means every fact that lacks a vector.
  size_t limit = 0;
  // Called after each batch with (done, total). May be empty.
  std::function<void(size_t, size_t)> progress;
};

struct BackfillReport {
  // Stored vectors no search could use (a NaN or an infinity, a zero norm,
  // a blob of the wrong size), deleted so their facts are embedded again.
  size_t replaced = 0;
  size_t embedded = 0;
  size_t remaining = 0;               // facts still without a vector
  std::vector<std::string> warnings;  // facts that could not be embedded
};

// What Engine::Check found. Every problem names what is wrong and where
// (a fact by its id and scope, a vector by its fact and space, a table);
// none means the store is whole.
struct CheckReport {
  int64_t facts = 0;    // facts whose id was checked against their content
  int64_t vectors = 0;  // stored vectors checked, every space
  std::vector<std::string> problems;
  // Checks that could not run, and why (FTS5 runs its integrity check as a
  // write, which a store read-only to its user refuses). Not problems.
  std::vector<std::string> skipped;
};

// One embedding space of the store.
struct SpaceStats {
  EmbeddingSpace space;
  int64_t vectors = 0;
  bool active = false;  // the space of the configured embedder
};

// What becomes of the older versions of a current fact that is forgotten
// (docs/ARCHITECTURE.md, "Facts that change"): forgetting never silently
// brings an older version back, nor silently deletes it.
enum class ForgetHistory {
  kRefuse,   // FailedPrecondition naming the older versions (the default)
  kRestore,  // the newest older version becomes current again
  kDelete,   // the older versions are forgotten too
};

// What to forget; exactly one of ids, tag or whole_scope. Older versions
// of a forgotten fact that was itself replaced move on to its successor.
struct ForgetRequest {
  std::string scope = kDefaultScope;
  std::vector<std::string> ids;  // full ids or unique prefixes (>= 4 chars)
  std::string tag;
  bool whole_scope = false;  // every fact of the scope, every version
  ForgetHistory history = ForgetHistory::kRefuse;
};

// An explicit update: `replacement` supersedes fact `id` of `scope`, which
// is kept, marked as replaced by it from now on (DESIGN §3).
struct UpdateRequest {
  std::string scope = kDefaultScope;
  std::string id;       // the fact replaced: full id or unique prefix (>= 4 chars)
  NewFact replacement;  // its scope is taken from `scope`
};

struct UpdateOutcome {
  // The current version: a new fact, or the existing fact with that
  // content (made current again when it was an older version).
  Fact fact;
  bool created = false;
  Fact superseded;  // the replaced fact, as now stored
  std::vector<std::string> warnings;
};

struct StoreStats {
  int64_t facts = 0;
  std::vector<std::pair<std::string, int64_t>> scopes;  // scope, fact count
  int schema_version = 0;
  std::string db_path;
  // The configured embedder's space; provider empty when keyword-only.
  EmbeddingSpace active_space;
  int64_t vectors = 0;          // vectors in the active space
  int64_t missing_vectors = 0;  // facts without one
  std::vector<SpaceStats> spaces;
};

class ENGRAM_EXPORT Engine {
 public:
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  virtual ~Engine() = default;

  // Adds one fact, or merges it into the existing fact with the same content
  // in the scope (tags merged, updated_at bumped, counters kept).
  virtual Result<AddOutcome> Add(const NewFact& fact) = 0;

  // Checks a fact without storing it: content non-empty, valid UTF-8, within
  // limits, metadata a JSON object, confidence in [0, 1], id matching.
  virtual Status Validate(const NewFact& fact) const = 0;

  // Adds every fact in one transaction: all or nothing.
  virtual Result<ImportReport> Import(const std::vector<NewFact>& facts,
                                      const ImportOptions& options) = 0;

  // Looks a fact up by id or unique id prefix (>= 4 hex chars).
  virtual Result<Fact> Get(const std::string& scope, const std::string& id_or_prefix) = 0;

  virtual Result<std::vector<Fact>> List(const ListOptions& options) = 0;

  // Replaces a current fact by a new version in one transaction; the old
  // fact is kept, superseded. NotFound for an unknown id; FailedPrecondition
  // when the fact was already replaced (update the current version) ;
  // InvalidArgument when the new content is the same fact.
  virtual Result<UpdateOutcome> Update(const UpdateRequest& request) = 0;

  // Every version of the thing fact `id` is a version of, through explicit
  // updates: the chain from its oldest to its current version, oldest
  // first (several facts replaced by one are all there).
  virtual Result<std::vector<Fact>> History(const std::string& scope, const std::string& id) = 0;

  // Returns how many facts were removed. Ids that do not exist, and a whole
  // scope that holds nothing, are NotFound errors; a current fact with older
  // versions is FailedPrecondition unless request.history says what becomes
  // of them; then nothing is removed.
  virtual Result<int64_t> Forget(const ForgetRequest& request) = 0;

  // Removes every fact whose expires_at has passed, with the older versions
  // it replaced, in one transaction. Returns how many facts went.
  virtual Result<int64_t> RemoveExpired() = 0;

  // Calls `sink` for every fact of the scopes (all scopes when empty), in
  // scope then creation order. Stops early when `sink` returns false.
  virtual Status Export(const std::vector<std::string>& scopes,
                        const std::function<bool(const Fact&)>& sink) = 0;

  virtual Result<SearchResponse> Search(const std::string& query, const SearchOptions& options) = 0;

  virtual Result<StoreStats> Stats() = 0;

  // Embeds facts that lack a vector in the active space, in batches, each
  // batch committed on its own. FailedPrecondition when keyword-only.
  virtual Result<BackfillReport> Backfill(const BackfillOptions& options) = 0;
  // Checks the whole store, reading every row: SQLite's integrity check,
  // the full-text indexes against the text they index, each fact's id
  // against its content, and each stored vector (its size, and no NaN, no
  // infinity, no zero norm). Reports; changes nothing.
  virtual Result<CheckReport> Check() = 0;

  // Deletes every embedding space but the active one, with its vectors and
  // index files. Returns the number of vectors removed.
  virtual Result<int64_t> PruneVectors() = 0;

  // Attached files (engram/context.h). Attach reads, chunks and indexes the
  // files of a new attachment and embeds chunks that have no vector in the
  // active space. The text side (attachment, files, chunks, full-text index)
  // is written in one transaction with the vectors that could be made: a
  // failing embedder leaves chunks without a vector (reported; the next
  // refresh embeds them), any other failure leaves the store as it was.
  // NotFound for a missing path, AlreadyExists for a name in use.
  virtual Result<AttachReport> Attach(const AttachRequest& request) = 0;
  // Every attachment, by name.
  virtual Result<std::vector<Attachment>> Attachments() = 0;
  // Re-reads the files of attachment `name` (all when empty) whose size,
  // mtime or content changed, adds new files, drops deleted ones and embeds
  // chunks lacking a vector; one transaction per attachment, as Attach.
  virtual Result<std::vector<AttachReport>> RefreshAttachments(const std::string& name) = 0;
  // Removes an attachment with its files and chunks (and vectors no other
  // chunk uses). NotFound for an unknown name.
  virtual Result<Attachment> Detach(const std::string& name) = 0;
  // Ranks the chunks of the attachments for `query`: BM25 and cosine,
  // min-max normalised and blended with the semantic and lexical weights.
  // Lexical only without an embedder.
  virtual Result<ContextSearchResponse> SearchContext(const std::string& query,
                                                      const ContextSearchOptions& options) = 0;

  // Puts new options in force for the calls that start after it returns:
  // embedder (a new provider, model or dimension selects its own embedding
  // space; facts without a vector in it are backfilled), LLM, HyDE, ranking,
  // vector and limit options. Calls already running finish with the options
  // they started with. InvalidArgument when the options are invalid or name
  // another database (db_path, create_if_missing, busy_timeout_ms and
  // readers are fixed at Open); nothing changes then.
  virtual Status Reload(const EngineOptions& options) = 0;

  // The options in force (a copy: Reload may replace them at any time).
  virtual EngineOptions options() const = 0;
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_H_
