// EngineImpl: the one place that wires store, lexical index and ranking.
//
// Thread-safety: every use of the store's own connection, and every change
// of the vector cache, happens under mutex_. Searches read facts through
// connections of their own (readers_) and the vector cache through a
// VectorCache::View, so they run side by side, with each other and with
// writes; only the cache sync and the access bookkeeping take mutex_. The
// options are an immutable snapshot that Reload replaces under
// options_mutex_. Embedding (the slow part) runs outside every lock, so
// searches go on while an import or the backfill worker embeds; vectors are
// then written in short transactions of their own.
#ifndef ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_
#define ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engram/engine.h"
#include "src/context/context_sync.h"
#include "src/engine/access_recorder.h"
#include "src/engine/backfill_worker.h"
#include "src/engine/lexical_cache.h"
#include "src/engine/vector_cache.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/reader_pool.h"
#include "src/store/store.h"

namespace engram {

class EngineImpl final : public Engine {
 public:
  // Searches read on `options.readers` connections of `store` of their
  // own, or on `store`'s own when that is 0.
  EngineImpl(EngineOptions options, std::unique_ptr<Store> store);
  ~EngineImpl() override;

  Result<AddOutcome> Add(const NewFact& fact) override;
  Status Validate(const NewFact& fact) const override;
  Result<ImportReport> Import(const std::vector<NewFact>& facts,
                              const ImportOptions& options) override;
  Result<Fact> Get(const std::string& scope, const std::string& id_or_prefix) override;
  Result<std::vector<Fact>> List(const ListOptions& options) override;
  Result<int64_t> Forget(const ForgetRequest& request) override;
  Result<UpdateOutcome> Update(const UpdateRequest& request) override;
  Result<int64_t> RemoveExpired() override;
  Result<std::vector<Fact>> History(const std::string& scope, const std::string& id) override;
  Status Export(const std::vector<std::string>& scopes,
                const std::function<bool(const Fact&)>& sink) override;
  Result<SearchResponse> Search(const std::string& query, const SearchOptions& options) override;
  Result<StoreStats> Stats() override;
  Result<CheckReport> Check() override;
  Result<BackfillReport> Backfill(const BackfillOptions& options) override;
  Result<int64_t> PruneVectors() override;
  Status Reload(const EngineOptions& options) override;
  EngineOptions options() const override { return *Options(); }

  // Attached files (engine_context.cc).
  Result<AttachReport> Attach(const AttachRequest& request) override;
  Result<std::vector<Attachment>> Attachments() override;
  Result<std::vector<AttachReport>> RefreshAttachments(const std::string& name) override;
  Result<Attachment> Detach(const std::string& name) override;
  Result<ContextSearchResponse> SearchContext(const std::string& query,
                                              const ContextSearchOptions& options) override;

 private:
  // Validates, builds and upserts one fact; caller holds mutex_ and runs
  // inside a transaction. `rowid` receives the new fact's row when created.
  // Merges `incoming` into the stored fact `existing` (the same text, or a
  // near-duplicate): tags united, kind, source, confidence, metadata and
  // expiry applied where `incoming` sets them. The caller holds mutex_ in a
  // transaction.
  Result<AddOutcome> MergeInto(StoredFact existing, const Fact& incoming);
  Result<AddOutcome> AddLocked(const LimitOptions& limits, const NewFact& fact, Timestamp now,
                               int64_t* rowid);

  // After an import: every restored superseded_by names a fact of its
  // scope, and each becomes a version link. Caller holds mutex_ inside the
  // import's transaction.
  Status CheckRestoredHistory(const std::vector<NewFact>& facts);

  // Removes `doomed` (facts of `scope`) and keeps the history of what
  // stays in order (ForgetHistory); caller holds mutex_ inside a
  // transaction. Returns how many facts were removed.
  Result<int64_t> ForgetLocked(const std::string& scope, std::vector<StoredFact> doomed,
                               ForgetHistory history);

  // AccessRecorder's Write: a search's own write (no delay) on the store's
  // connection under mutex_; queued batches on access_store_, so that
  // waiting for another process's write lock holds no lock a search takes.
  Status WriteAccess(const std::vector<AccessCount>& counts, bool queued);
  // Writes the access counts that searches queued, so a read that shows
  // them sees every search that returned before it. A failure leaves them
  // queued, and the next search reports it. The caller must not hold mutex_.
  void FlushAccess() { (void)access_->Flush(); }

  // The options in force: every call takes one snapshot when it starts and
  // uses it throughout, so a Reload never changes options under it.
  std::shared_ptr<const EngineOptions> Options() const;

  // The id of `embedder`'s space, creating it on first need; caller holds
  // mutex_. Vectors are always stored in the space of the embedder that
  // made them, even when a Reload switched embedders meanwhile.
  Result<int64_t> EnsureSpaceLocked(const Embedder& embedder, Timestamp now);
  // Deletes the vectors of the space that no search can use (a NaN or an
  // infinity, a zero norm, a blob of the wrong size), so backfill embeds
  // their facts again; returns how many. Caller holds mutex_.
  Result<size_t> DeleteUnusableVectorsLocked(int64_t space_id, const EmbeddingSpace& space);
  // The id of `embedder`'s space, 0 when the store has none yet (nothing
  // is written: searches work on read-only files); caller holds mutex_.
  Result<int64_t> FindSpaceLocked(const Embedder& embedder);
  // The vector cache of space `space_id` (the embedder's), created or
  // replaced on need; caller holds mutex_.
  std::shared_ptr<VectorCache> CacheLocked(const EngineOptions& options, int64_t space_id);
  // The active space's vector cache with `scopes` in step with the store;
  // null when the store has no vectors of that space yet. Takes mutex_.
  Result<std::shared_ptr<VectorCache>> SyncedCache(const EngineOptions& options,
                                                   const std::vector<std::string>& scopes,
                                                   std::vector<std::string>* warnings);
  // Runs `body` in one read transaction on a reader connection, or on the
  // store's own under mutex_ when there are no readers (readers = 0) or
  // none could be opened (a warning says why). The caller must not hold
  // mutex_. Lock order: mutex_ before a VectorCache::View, never the
  // reverse (a Sync holds mutex_ while it waits for the Views to end).
  Status ReadSnapshot(const std::function<Status(Store&)>& body,
                      std::vector<std::string>* warnings);

  // The vector a search searches, as embedding the query (and its gloss,
  // and HyDE's hypothesis) made it, with what the response reports of it.
  struct QueryVector {
    std::vector<float> vector;          // unit length; empty if nothing was embedded
    std::vector<std::string> warnings;  // for SearchResponse::warnings
    std::string translation;            // SearchResponse::translation
    std::string source;                 // SearchResponse::hyde.vector, with HyDE
  };
  // A search's query made ready for the snapshot: analysed, expanded by
  // HyDE or feedback, embedded.
  struct PreparedQuery {
    LexicalQuery lexical;
    size_t own_terms = 0;  // the query's own terms, before any expansion
    // The mode uses the vector signal, the engine has an embedder and the
    // query is not empty.
    bool semantic = false;
    std::vector<float> vector;  // the unit vector searched; empty if none
    // The vector while it is still being embedded on a thread of its own
    // (EngineOptions::overlap_query_embedding); AwaitQueryVector moves it
    // into `vector`.
    std::future<QueryVector> pending;
    // Whether a vector is there or on its way.
    bool Embedding() const { return !vector.empty() || pending.valid(); }
  };
  // The phases of Search (engine_search.cc): the query analysed, HyDE run
  // and the query embedded (or its embedding begun), outside any lock;
  // then candidates gathered, fused and loaded in one snapshot, access
  // recorded and hits made.
  // `served` (when given) receives what a caller reading more of the hits
  // needs (the feedback's first pass).
  struct Served {
    std::vector<int64_t> rowids;         // of the hits, in order
    std::shared_ptr<VectorCache> cache;  // the vector cache searched; null if none
  };
  // With query.translate_vector and the local (English-only) model, a
  // Portuguese query's (`language`, LexicalQuery::language) `vector`
  // becomes the normalised sum of its own and its English gloss's
  // (BilingualDictionary::Gloss), reported in out->translation; a gloss
  // that fails to embed is a warning.
  void AddEnglishGloss(const EngineOptions& opts, const std::string& query,
                       const std::string& language, std::vector<float>* vector,
                       QueryVector* out) const;
  PreparedQuery PrepareQuery(const EngineOptions& options, const std::string& query,
                             const SearchOptions& search, SearchResponse* response);
  // The query's vector from its own text, in `language`, and HyDE's
  // (`hypothesis_vector`, empty when none), as HydeSearchVector combines
  // them.
  QueryVector EmbedQuery(const EngineOptions& options, const std::string& query,
                         const std::string& language,
                         const std::vector<float>& hypothesis_vector) const;
  // Waits for the vector still being embedded, if any, and moves it and
  // its report into `query` and `response`.
  static void AwaitQueryVector(PreparedQuery* query, SearchResponse* response);
  static void UseQueryVector(QueryVector embedded, PreparedQuery* query, SearchResponse* response);
  // Gathers, ranks and loads. Awaits the query's vector (AwaitQueryVector)
  // once the lexical candidates are gathered.
  Result<SearchResponse> SearchPrepared(const EngineOptions& options, PreparedQuery* query,
                                        const SearchOptions& search, SearchResponse response,
                                        Served* served);
  // After the snapshot: pokes the backfill worker when a vector was
  // missing, and hands the access of the `served` facts (indexes into
  // `facts`) to access_, counting it in them too; a failed write, and one
  // the recorder's thread or the checkpointer met since the last search,
  // is a warning.
  void RecordAccessAndPoke(const EngineOptions& options, const SearchOptions& search, Timestamp now,
                           bool missing_vectors, const std::vector<size_t>& served,
                           std::vector<StoredFact>* facts, SearchResponse* response);
  // Pseudo-relevance feedback for one search (engine_feedback.cc): a first
  // pass of `query`, whose top facts expand its lexical terms and move its
  // vector. Never fails: problems land in response->hyde.fallbacks.
  void RunFeedback(const EngineOptions& options, const SearchOptions& search, PreparedQuery* query,
                   SearchResponse* response);

  // HyDE for one search: the hypothesis (cache, then LLM), its keywords
  // merged into `lexical_query`, and its embedding when vectors are on.
  // Takes mutex_ only to read and write the cache; the caller must not
  // hold it. Never fails: problems land in response->hyde.fallbacks.
  void RunHyde(const EngineOptions& options, const std::string& query, bool semantic,
               LexicalQuery* lexical_query, std::vector<float>* hypothesis_vector,
               SearchResponse* response);
  // The query's unit vector for `purpose`, or an error message.
  Result<std::vector<float>> EmbedOne(const Embedder& embedder, const std::string& text,
                                      EmbedPurpose purpose) const;

  // A fact and the unit vector EmbedAndStore stored for it.
  struct EmbeddedFact {
    std::string scope;
    int64_t rowid = 0;
    std::vector<float> vector;
  };

  // Embeds `facts` in batches and stores their vectors, each batch in its
  // own transaction. Takes mutex_ only to write; the caller must not hold
  // it. Facts that cannot be embedded, or whose vectors cannot be stored,
  // are left without a vector, and `warnings` says how many and why. Stops
  // between batches when `stop` turns true. When `embedded` is not null,
  // each stored fact is appended to it. Returns how many were stored.
  size_t EmbedAndStore(const EngineOptions& options, const std::vector<FactToEmbed>& facts,
                       const std::atomic<bool>* stop,
                       const std::function<void(size_t, size_t)>& progress,
                       std::vector<std::string>* warnings,
                       std::vector<EmbeddedFact>* embedded = nullptr);

  // Version links on write (engine_versions.cc): links each fact of
  // `embedded`, in order, to up to versions.link_max of its scope's facts
  // nearest to it with cosine >= versions.link_min_cosine and weighted term
  // overlap >= versions.link_min_overlap, the one created later being the
  // newer version; facts created at the same instant are not linked. Takes mutex_; the caller must
  // not hold it. A failure is a warning: the facts stay stored, without links.
  void LinkVersions(const EngineOptions& options, const std::vector<EmbeddedFact>& embedded,
                    std::vector<std::string>* warnings);
  // Near-duplicates on write (engine_duplicates.cc): each fact of
  // `embedded` whose nearest fact of its scope is current, at cosine >=
  // versions.merge_min_cosine and weighted term overlap >=
  // versions.merge_min_overlap, is merged into the one written first of the
  // two and deleted; merged facts leave `embedded`. Returns, per fact of
  // `embedded` as given, the outcome of its merge (nullopt: kept). Takes
  // mutex_; the caller must not hold it. A failure is a warning.
  std::vector<std::optional<AddOutcome>> MergeNearDuplicates(const EngineOptions& options,
                                                             std::vector<EmbeddedFact>* embedded,
                                                             std::vector<std::string>* warnings);
  // A new fact and one of its nearest facts: a candidate version link or
  // near-duplicate.
  struct Pair {
    int64_t fact = 0;
    int64_t neighbour = 0;
    float cosine = 0;
  };
  // Up to `per_fact` nearest facts of each fact of `embedded` in its scope,
  // itself left out, with cosine >= `min_cosine`, from the vector cache
  // brought in step first; `facts` receives the new facts `visibility`
  // sees. Takes mutex_ for the reads; the caller must not hold it.
  Result<std::vector<Pair>> NearestPairs(const EngineOptions& options,
                                         const std::vector<EmbeddedFact>& embedded,
                                         const FactVisibility& visibility, size_t per_fact,
                                         double min_cosine,
                                         std::unordered_map<int64_t, RankInput>* facts,
                                         std::vector<std::string>* warnings);
  // Adds to `facts` the neighbours of `pairs` that `visibility` sees. The
  // caller holds mutex_.
  Status AddNeighbourInputs(const std::vector<Pair>& pairs, const FactVisibility& visibility,
                            std::unordered_map<int64_t, RankInput>* facts);
  // The weighted term overlap (src/lexical/term_overlap.h) of each pair,
  // over the statistics of the new fact's scope; `facts` holds both facts
  // of every pair. The statistics are counted in the scope's index in
  // memory when `options.lexical_cache` allows and it can serve, in the
  // store's otherwise. The caller holds mutex_.
  Result<std::vector<double>> TermOverlaps(const EngineOptions& options,
                                           const std::vector<Pair>& pairs,
                                           const std::unordered_map<int64_t, RankInput>& facts);

  // Writes `plan` for attachment `name` (created when `id` is 0, else
  // checked to still be `id`), with vectors for the chunks that lack one in
  // the active space, embedded first outside the lock. One transaction.
  Result<AttachReport> ApplySync(const EngineOptions& options, const std::string& name,
                                 const std::vector<std::string>& roots, int64_t id, SyncPlan plan);

  // The background step: embeds up to backfill_batch_max missing facts.
  void BackfillStep(const std::atomic<bool>& stop);

  mutable std::mutex options_mutex_;
  std::shared_ptr<const EngineOptions> options_;  // guarded by options_mutex_
  std::unique_ptr<Store> store_;
  // The last space looked up: its key and id; guarded by mutex_.
  std::string space_key_;
  int64_t space_id_ = 0;
  // One space's vectors. The pointer is guarded by mutex_; searches keep
  // their own reference while they read it.
  std::shared_ptr<VectorCache> cache_;
  std::unique_ptr<ReaderPool> readers_;  // null when options.readers is 0
  std::mutex mutex_;
  // The connection queued access counts are written on, opened on the
  // first; used only in access_'s writes, which it serialises.
  std::unique_ptr<Store> access_store_;
  // Searches' access counts, written in batches; the reads that show
  // access counts Flush it first. Destroyed (writing what waits) before
  // anything it uses.
  std::unique_ptr<AccessRecorder> access_;
  // The scopes' full-text indexes in memory (EngineOptions::lexical_cache).
  LexicalCache lexical_cache_;
  // Last: stopped and joined before anything it uses is destroyed.
  std::unique_ptr<BackfillWorker> worker_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_ENGINE_IMPL_H_
