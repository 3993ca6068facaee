// Options for the engine and for one search. Each field's default is its
// initialiser, written here once: the configuration's help lines take it
// from here, docs/CONFIG.md documents it (ConfigDocTest holds the two
// together), and the defaults that depend on the embedding provider are
// DefaultsForProvider's alone. src/config fills the fields from defaults <
// file < environment < flags.
#ifndef ENGRAM_OPTIONS_H_
#define ENGRAM_OPTIONS_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/clock.h"
#include "engram/export.h"
#include "engram/status.h"

namespace engram {

class Embedder;
class Llm;

// BM25 over content and tags (DESIGN §4), Lucene idf.
struct Bm25Options {
  // Term-frequency saturation. Higher lets repeated terms count for more.
  // Anserini's by default; range [0, 10].
  double k1 = 0.9;
  // Length normalisation, 0 = none, 1 = full; range [0, 1].
  double b = 0.4;
  // Weight of a term found in the tags relative to one in the content.
  // By default a tag counts like a word of the text; 0 makes tags
  // unsearchable; range [0, 10].
  double tag_boost = 1.0;
};

// Recency x use (DESIGN §4).
struct TemporalOptions {
  // Days for the recency factor to halve; range (0, 36500].
  double half_life_days = 30.0;
};

// How the signals are combined into one score.
enum class FusionMode {
  kBlended,   // min-max normalised weighted sum of every signal present
  kLexical,   // BM25 only
  kTemporal,  // recency x use only
  kSemantic,  // cosine only, over the vector candidates
  kRrf,       // reciprocal rank fusion of the lexical and semantic rankings
};

// "blended", "lexical", "temporal", "semantic", "rrf".
ENGRAM_EXPORT std::string_view FusionModeName(FusionMode mode);
// The mode a name gives; InvalidArgument naming the accepted names.
ENGRAM_EXPORT Result<FusionMode> ParseFusionMode(const std::string& text);

// Weights of the blended score. Negative weights count as 0; when all are 0
// the defaults are used. Weights of signals that are absent (no vectors yet)
// are dropped and the rest renormalised to sum to 1. The defaults are the
// embedded model's (provider `local`, the CLI's default); another
// provider's are DefaultsForProvider's (below).
struct FusionWeights {
  double semantic = 0.34;
  double lexical = 0.51;
  double temporal = 0.15;
};

struct FusionOptions {
  FusionWeights weights;
  // k of reciprocal rank fusion: score = sum over rankings of 1 / (k + rank).
  // Range [1, 1000].
  double rrf_k = 60.0;
  // When a blended or rrf search finds no candidate at all (no query term
  // matched, no vector above the floor), answer with the scope's facts by
  // recency instead of nothing; the response says they are recent facts,
  // not matches (SearchResponse::temporal_fallback). Off by default: an
  // agent shown unrelated facts as results takes them for answers.
  bool temporal_fallback = false;
  // Blended results scoring below this are dropped (scores are in [0, 1]).
  // None dropped by default. Raise it to keep weak matches away from a
  // model that trusts whatever it is given; other modes ignore it.
  double min_score = 0.0;
  // A blended or rrf search answers only when some candidate shows
  // evidence of being about the query: a cosine of at least
  // vector.match_cosine, or of at least vector.min_cosine with a query term
  // matched, or matched query terms carrying at least this share of the
  // query's idf weight (terms in no fact of the scope weigh most).
  // Otherwise it returns nothing (SearchResponse::no_match): a query that
  // shares one ordinary word ("show", "low") with a store about something
  // else finds nothing. Range [0, 1]; 0 turns the check off.
  double min_lexical_coverage = 0.3;
};

// The semantic signal and its index (DESIGN §4, §6).
struct VectorOptions {
  // Vector hits below this cosine are not candidates. The default is the
  // embedded model's (another provider's: DefaultsForProvider); range
  // [-1, 1].
  double min_cosine = 0.3;
  // A cosine that alone shows a candidate is about the query
  // (FusionOptions::min_lexical_coverage). The default is chosen for the
  // embedded model on the dev sets (docs/RESULTS.md); range [-1, 1]. A
  // remote model's cosines run on another scale: set it with min_cosine.
  double match_cosine = 0.42;
  // Vector hits added to the lexical candidates per search; range
  // [0, 10000]. Semantic mode takes max(top_k, k).
  size_t top_k = 12;
  // A scope with at least this many vectors is searched with HNSW (persisted
  // beside the database) instead of exactly; 0 = always HNSW.
  size_t hnsw_threshold = 50000;
  // Milliseconds after its first unsaved change that an HNSW scope's file
  // is written again, by a background thread that gives way to searches
  // (src/engine/index_saver.h), and on close. Until then a restart reads
  // from the store only the vectors that changed. 0: the search that
  // changed the index writes it at once, holding off other searches
  // meanwhile (engram's one-shot commands, which exit next). Range
  // [0, 3600000].
  int hnsw_save_delay_ms = 2000;
  // Most facts the background worker embeds after one search.
  size_t backfill_batch_max = 500;
  // Facts embedded per call to the provider (add, import, backfill).
  size_t embed_batch = 64;
  // Embed facts that lack a vector in a background thread after searches.
  bool background_backfill = true;
  // Keep a snapshot of each exactly searched scope of at least 1,024
  // vectors beside the database (space<id>-<scope hash>.flat), and load a
  // scope from it, brought in step by label, instead of copying every
  // vector out of SQLite: for a process that opens the store to search once
  // and exits (engram's one-shot commands set it). A snapshot is rewritten
  // when its scope has changed by more than a 32nd since. Default false.
  bool flat_snapshots = false;
  // Scan an exactly searched scope by int8 codes first and score in float
  // only the rows a bound cannot rule out (FlatIndexOptions::int8_scan):
  // the same hits and scores as the float scan, bit for bit, reading about
  // a quarter of the bytes per search (3.3x faster at 100,000 x 512,
  // bench/RESULTS-scan.md) for a quarter more memory. Default true: a
  // server with 50 clients on 10,000 facts answered 6 to 13% more
  // searches (docs/ARCHITECTURE.md). A scope loaded from a flat snapshot
  // is scanned in float, and one-shot commands turn it off.
  bool int8_scan = true;
};

// Which vector the semantic search uses when HyDE has a hypothesis.
enum class HydeEmbed {
  kQuery,       // the query's embedding only
  kHypothesis,  // the hypothesis's embedding only
  kBoth,        // the normalised mean of the two
};

// "query", "hypothesis", "both".
ENGRAM_EXPORT std::string_view HydeEmbedName(HydeEmbed embed);
// The value a name gives; InvalidArgument naming the accepted names.
ENGRAM_EXPORT Result<HydeEmbed> ParseHydeEmbed(const std::string& text);

// HyDE (DESIGN §5): an LLM writes a short hypothetical answer to the query;
// its keywords expand the lexical query (3a) and its embedding joins the
// query's in the vector search (3b). Any failure leaves the search to go on
// without it, with a warning.
struct HydeOptions {
  // Ask the LLM (EngineOptions::llm) for a hypothesis on every search.
  // Off by default: it costs one LLM call per new query.
  bool enabled = false;
  // 3b: embed the hypothesis for the vector search; false keeps HyDE to
  // keyword expansion.
  bool use_vectors = true;
  // 3a: keywords of the hypothesis merged after the query's own; range
  // [0, 20]; 0 turns expansion off.
  size_t num_keywords = 5;
  // 3b: the search vector.
  HydeEmbed embed = HydeEmbed::kBoth;
  // Most tokens the LLM may write; range [16, 2048].
  size_t max_tokens = 200;
  // Keep hypotheses in the store, keyed by LLM, prompt version and query,
  // so a repeated query costs no call.
  bool cache = true;
};

// How a query is analysed for the lexical signal (docs/ARCHITECTURE.md, "A
// query term has forms").
struct QueryAnalysisOptions {
  // Count the English translations of a Portuguese query's words (Debian's
  // dict-freedict-por-eng, when installed) as occurrences of them, and the
  // Portuguese translations of an English query's words
  // (dict-freedict-eng-por) in the facts detected as Portuguese. On by
  // default: it helps the questions of updates-dev whose answer is in the
  // other language, and leaves a search of scopes in English only as it is.
  bool translate = true;
  // Also embed a Portuguese query's English gloss (its words' first
  // translations, BilingualDictionary::Gloss) and search the normalised sum
  // of the two vectors, when the embedding model reads English only (the
  // local provider). On by default: on updates-dev it takes the Portuguese
  // questions' blended nDCG@10 from 0.527 to 0.543, and no query of the
  // other dev sets is Portuguese (docs/ARCHITECTURE.md, "A query term has
  // forms").
  bool translate_vector = true;
};

// HyDE without an LLM: pseudo-relevance feedback (docs/ARCHITECTURE.md,
// "Pseudo-relevance feedback"). A first pass of the search stands in for the
// hypothetical answer: the terms of its top facts expand the lexical query
// (RM3) and their vectors move the query vector (Rocchio). It runs when it
// is enabled and no LLM gave a hypothesis for the search, and follows
// SearchOptions::hyde like HyDE. Off by default: it did not help on every
// dev dataset (docs/RESULTS.md has the figures on and off).
struct FeedbackOptions {
  bool enabled = false;
  // Top facts of the first pass read as feedback; range [1, 100].
  size_t docs = 10;
  // Feedback terms added to the lexical query, the most probable under
  // the feedback facts' term distribution; range [0, 100]; 0 turns the
  // lexical part off.
  size_t terms = 10;
  // RM3's interpolation: the share of the query's weight the feedback
  // terms carry, the query's own terms keeping the rest; range [0, 1].
  double term_weight = 0.5;
  // Rocchio's beta: the search vector is the normalised q + beta * mean of
  // the feedback facts' vectors; range [0, 10]; 0 turns the vector part off.
  double vector_weight = 0.5;
};

// Facts that change (docs/ARCHITECTURE.md, "Facts that change"): version
// links between facts that arrive without an explicit update, and the order
// they impose on search. When a fact is written it is linked to the facts
// of its scope nearest to it by cosine (in the active embedding space); the
// one created later is the newer version. A search that finds an older
// version ranks a newer one just above it, bringing it in when the query
// alone did not retrieve it; the older stays in the results, below.
//
// Off by default: measured on every dev dataset together (docs/RESULTS.md),
// the settings that meet the knowledge-update targets on updates-dev cost
// locomo-dev about 0.1 nDCG@10, because facts of later chat sessions that
// look alike are not versions of one another. Turn both on for a memory of
// facts that are mostly rewritten rather than added to.
struct VersionOptions {
  // Look for the facts a new fact is a version of when it is written
  // (costs one vector scan of the scope per new fact, and a count of each
  // term of the pair's facts).
  bool link_on_write = true;
  // Least cosine between two facts for a link; range [-1, 1].
  // This model scores unrelated facts of one scope 0.3-0.6, so a low floor
  // links many pairs that are not versions.
  double link_min_cosine = 0.5;
  // Most facts one new fact is linked to, its nearest first; range
  // [0, 16]; 0 turns write-time links off.
  size_t link_max = 1;
  // Least weighted term overlap between a fact and an older version of it
  // (src/lexical/term_overlap.h: words rare in the scope count most).
  // The default is chosen on the dev sets with timestamps together
  // (docs/RESULTS.md); range [0, 1]; 0 lets cosine alone decide. Two facts
  // about the same thing share its names and values; two about a scope's
  // usual subject share only its common words.
  double link_min_overlap = 0.4;
  // Order search results so a newer version ranks above the older ones it
  // is linked to (explicit updates included).
  bool newer_first = true;
  // A newer version is lifted above an older one only when its own score is
  // at least this share of the older's (by default every successor is
  // lifted); range [0, 1]. Higher keeps versions that do not answer the
  // query where their own score puts them.
  double lift_min_share = 0.0;
  // Most newer versions one older fact lifts above itself, the best scoring
  // first; range [1, 16]. More puts every look-alike newer fact
  // above a fact the query found.
  size_t max_successors = 2;
  // A new fact this close to a current fact of its scope, in the same
  // space, is merged into it instead of stored beside it (tags united, new
  // kind, source, confidence, metadata and expiry applied, its text not
  // kept; AddOutcome::near_duplicate says so). Both conditions hold:
  // cosine at least merge_min_cosine (range [0, 1]) and weighted term
  // overlap at least merge_min_overlap (range [0, 1]), so "port 5432" does
  // not swallow "port 5433" however close their vectors.
  // merge_near_duplicates false turns it off.
  bool merge_near_duplicates = true;
  double merge_min_cosine = 0.95;
  double merge_min_overlap = 0.8;
};

// Limits that protect the store from bad input.
struct LimitOptions {
  // Largest accepted fact content, in bytes.
  size_t max_content_bytes = 1 << 20;
  // Most tags on one fact.
  size_t max_tags = 64;
  // Largest metadata object, serialised, in bytes.
  size_t max_metadata_bytes = 64 << 10;
  // Longest tag, scope, kind and source, in bytes.
  size_t max_tag_bytes = 64;
  size_t max_scope_bytes = 128;
  size_t max_kind_bytes = 64;
  size_t max_source_bytes = 1024;
};

// Attached files (include/engram/context.h): how they are read and split.
struct ContextOptions {
  // Files larger than this are skipped with a note, in bytes; range
  // [1 KiB, 64 MiB]. Larger files are rarely prose or code worth
  // retrieving (logs, dumps) and cost embedding time.
  size_t max_file_bytes = 1 << 20;
  // Most bytes of one chunk, by default about 300 tokens, near what the
  // local model reads; range [64, 65536]. Smaller chunks point closer to the
  // answer but carry less context each.
  size_t chunk_bytes = 1200;
  // Lines a chunk repeats from the end of the one before it, so text cut at a
  // boundary is still found whole; range [0, 100].
  size_t overlap_lines = 2;
  // Read a symlink in an attached tree whose target lies outside every
  // attached root. Off by default: such links are skipped with a note, so a
  // link cannot carry a private file from elsewhere into the memory.
  bool follow_links_out = false;
};

struct EngineOptions {
  // SQLite database file; created with its directory when missing.
  // Default: $ENGRAM_HOME/memory.db (filled in by src/config).
  std::string db_path;
  // Where the memory is kept instead, shared by every process that names
  // it: a postgresql:// (or postgres://) URL in libpq's form; the schema is
  // made on first use. Default empty: the SQLite file db_path. With a URL,
  // db_path still says where this process keeps files derived from the
  // store (saved vector indexes) beside it. Fixed at open.
  std::string store_url;
  // Refuse to create a missing database (for read-only commands).
  bool create_if_missing = true;
  // How long to wait for another process's lock before failing, in ms.
  // A long import holds the write lock for its duration.
  int busy_timeout_ms = 5000;
  // Read-only connections that searches read through, side by side with
  // each other and with writes; a search beyond this many waits for one.
  // Range [0, 64]. 0 makes every search read on the engine's
  // own connection, one at a time. Fixed at open.
  size_t readers = 8;
  // Read the database through a memory map (SQLite's mmap_size) instead of
  // read calls: no copy per page read, and no memory of the process's own
  // to hold it. Default false: a mapped file that another process cuts
  // short kills the reader with SIGBUS, where reads give an error a server
  // answers and survives (docs/ARCHITECTURE.md, "Files that change under a
  // running process"). The CLI's one-shot commands turn it on, as they map
  // the model file. Fixed at open.
  bool map_store = false;
  // Leave a write-ahead log shorter than this many bytes in place when the
  // engine closes, for the next process to read back, instead of folding it
  // into the SQLite file, which syncs both files (about 2 ms of a one-shot
  // search's wall time). Commits left in the log are consistent but not on
  // disk until a later fold: a crash of the machine before it may lose
  // them. Default 0: always folded. `engram search` sets 256 KB, as its
  // only writes are access counts (and cached HyDE hypotheses). Fixed at
  // open.
  int64_t keep_log_below_bytes = 0;
  // Embed a search's query on a thread of its own while the search brings
  // its vectors in step and gathers its lexical candidates, rather than
  // before them: the search's wall time falls by the shorter of the two
  // (a one-shot blended search here embeds for about 2 ms and matches for
  // 2 to 4 ms), for the cost of one thread started per search. Default
  // false: a server's other threads are busy with other searches, so there
  // the thread only adds work. `engram search`, one search on an otherwise
  // idle machine, turns it on. A search that runs pseudo-relevance
  // feedback embeds first, as its first pass needs the vector.
  bool overlap_query_embedding = false;
  // Keep the store's version links (which fact replaced which) in memory
  // per connection between searches while none changes, up to 65,536 of
  // them: a search looks up the links of its candidates, about a thousand.
  // Default true. The CLI's one-shot commands turn it off: one search would
  // read every link to use a few. SQLite stores only. Fixed at open.
  bool keep_version_links = true;
  // Most time the access bookkeeping of a search (access_count and
  // last_accessed of the facts it returns) waits before it is written, in
  // one batch with other searches' on a background thread, in ms; range
  // [0, 60000]. 0 writes it before the search returns (one-shot commands).
  // Reads that show access counts (get, list, export, stats, history)
  // write what waits first, and closing the engine writes the rest.
  int access_delay_ms = 1000;
  // Keep each searched scope's full-text index in memory (with what
  // ranking reads of each fact), brought in step with the store by the
  // changes numbered since, and find a search's lexical matches there: on
  // 10,000 short facts about 0.4 ms where the store's index takes about
  // 2.4, for about 10 MB and a build of about 100 ms on a scope's first
  // search. Searches with a filter or as_of, and stores that do not
  // number changes (PostgreSQL), read the store's index. Default true; the
  // CLI's one-shot commands turn it off, as they search once.
  bool lexical_cache = true;
  Bm25Options bm25;
  TemporalOptions temporal;
  FusionOptions fusion;
  LimitOptions limits;
  VectorOptions vector;
  HydeOptions hyde;
  FeedbackOptions feedback;
  QueryAnalysisOptions query;
  ContextOptions context;
  VersionOptions versions;
  // Writes HyDE hypotheses; null means no HyDE whatever hyde.enabled says.
  std::shared_ptr<const Llm> llm;
  // Embeds facts and queries for the semantic signal; null means
  // keyword-only. Its space (provider, model, dimension) selects the stored
  // vectors used: other spaces' vectors are kept but never compared.
  std::shared_ptr<const Embedder> embedder;
  // Time source; null means the system clock.
  std::shared_ptr<const Clock> clock;
};

// Which facts a search or a list considers, the same on every surface
// (library, CLI, HTTP, MCP). A search applies it before fusion, so scores
// are normalised over the facts the caller can see. Empty fields filter
// nothing. Times are ms since the epoch, UTC.
struct FactFilter {
  std::vector<std::string> tags_any;  // at least one of these tags
  std::vector<std::string> tags_all;  // every one of these tags
  std::string kind;                   // only this kind
  // metadata[key] == value, each pair; the stored value compared as text
  // (a number 5 matches "5", true matches "1"). Keys may not contain '"'.
  std::vector<std::pair<std::string, std::string>> metadata;
  std::optional<Timestamp> since;  // created or updated at or after this
  std::optional<Timestamp> until;  // created or updated before this
  // The facts that were current at this instant: created by then, not yet
  // superseded nor expired then (replaced and expired facts included).
  std::optional<Timestamp> as_of;

  bool IsEmpty() const {
    return tags_any.empty() && tags_all.empty() && kind.empty() && metadata.empty() && !since &&
           !until && !as_of;
  }
};

// One list call: facts newest first.
struct ListOptions {
  std::vector<std::string> scopes;  // empty means {"default"}
  std::string tag;                  // only facts with this tag; empty: any
  std::string kind;                 // only facts of this kind; empty: any
  size_t limit = 50;                // 0 means no limit
  size_t offset = 0;
  bool include_superseded = false;  // also list replaced facts
  FactFilter filter;                // applied with tag and kind above
};

// One search call.
// Most results one search returns.
inline constexpr size_t kMaxSearchK = 10000;

struct SearchOptions {
  size_t k = 10;                    // results wanted, 1..kMaxSearchK
  std::vector<std::string> scopes;  // empty means {"default"}
  FusionMode mode = FusionMode::kBlended;
  // Blend weights for this search only; unset: the engine's.
  std::optional<FusionWeights> weights;
  bool explain = false;       // fill SearchHit::explanation
  bool record_access = true;  // bump access_count/last_accessed of hits
  bool hyde = true;           // allow HyDE and feedback (when the engine has them on)
  // Also return superseded facts (explicitly replaced ones).
  bool include_superseded = false;
  FactFilter filter;
};

// The ranking defaults that depend on the embedding provider: the blend
// weights and the cosine floor suit the provider's cosine distribution.
// USE-Lite (`local`) is best with about 0.4 of semantic + lexical on the
// semantic side (docs/RESULTS.md, weight sweep); its cosines run high for
// unrelated text, and 0.3 keeps 96-99% of relevant pairs while dropping
// about half the unrelated ones on short facts (bench/RESULTS-cosine.md).
// The HTTP providers' models keep 0.55 / 0.30 / 0.15 and 0.25.
struct ProviderDefaults {
  FusionWeights weights;
  double min_cosine = 0.3;
};

// The defaults for `provider_spec` as given to CreateEmbedder ("local",
// "openai:text-embedding-3-small", "hash:dim=64", ...).
ENGRAM_EXPORT ProviderDefaults DefaultsForProvider(const std::string& provider_spec);

// Puts the defaults of `provider_spec` into `options` (fusion weights and
// vector floor): what the CLI starts from before any setting, so a program
// using another provider ranks as the CLI does with it.
ENGRAM_EXPORT void ApplyProviderDefaults(const std::string& provider_spec, EngineOptions* options);

}  // namespace engram

#endif  // ENGRAM_OPTIONS_H_
