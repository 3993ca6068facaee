// VectorCache on a real SQLite file: what a restart reads from HNSW files and
// flat snapshots, when the background saver writes, and saves beside
// searches and writes.
// `make test` also runs this target under ThreadSanitizer.
#include "src/engine/vector_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engram/clock.h"
#include "engram/engine.h"
#include "src/embed/hash_embedder.h"
#include "src/store/vector_store.h"
#include "src/vindex/hnsw_index.h"
#include "tests/engine_for_test.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr size_t kDim = 32;
constexpr size_t kThreshold = 100;

class VectorCacheTest : public ::testing::Test {
 protected:
  std::string DbPath() const { return dir_.File("memory.db"); }
  std::string IndexDir() const { return DbPath() + ".vindex"; }

  VectorOptions Options(int save_delay_ms) const {
    VectorOptions o;
    o.hnsw_threshold = kThreshold;
    o.hnsw_save_delay_ms = save_delay_ms;
    o.background_backfill = false;
    o.min_cosine = -1;
    return o;
  }

  std::unique_ptr<Engine> OpenEngine(int save_delay_ms,
                                     std::shared_ptr<const Clock> clock = nullptr) const {
    EngineOptions o;
    o.db_path = DbPath();
    o.clock = std::move(clock);
    o.embedder = embedder_;
    o.vector = Options(save_delay_ms);
    // An add searches for the facts it is a version of, which syncs the
    // cache: off, so that adds leave the HNSW file behind the store.
    o.versions.link_on_write = false;
    o.versions.merge_near_duplicates = false;
    return testing::OpenEngineForTest(o);
  }

  static void AddFacts(Engine& engine, size_t first, size_t count) {
    std::vector<NewFact> facts(count);
    for (size_t i = 0; i < count; ++i) {
      facts[i].content = "fact number " + std::to_string(first + i) + " about item " +
                         std::to_string((first + i) * 7919 % 1000);
    }
    ASSERT_TRUE(engine.Import(facts, {}).ok());
  }

  // The name of the default scope's graph file, the one of HnswFiles()
  // that is not the meta file.
  std::string HnswFileName() const {
    for (const auto& f : HnswFiles()) {
      if (f.extension() == ".hnsw") return f.filename().string();
    }
    return "";
  }

  // The HNSW files of the default scope: graph and meta.
  std::vector<std::filesystem::path> HnswFiles() const {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    if (!std::filesystem::exists(IndexDir(), ec)) return out;
    for (const auto& f : std::filesystem::directory_iterator(IndexDir())) {
      const std::string name = f.path().filename().string();
      if (name.ends_with(".hnsw") || name.ends_with(".hnsw.meta")) out.push_back(f.path());
    }
    return out;
  }

  // A cache and store of its own on the file, as a restarted process has.
  struct Fresh {
    std::unique_ptr<SqliteStore> store;
    VectorStore* vectors = nullptr;  // the store's
    std::unique_ptr<VectorCache> cache;
  };
  Fresh OpenFresh(int save_delay_ms) const { return OpenFresh(Options(save_delay_ms)); }
  Fresh OpenFresh(const VectorOptions& options) const {
    Fresh f;
    auto store = testing::OpenStoreForTest(DbPath(), /*create=*/false);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return f;
    f.store = std::move(*store);
    f.vectors = &f.store->vectors();
    const Result<int64_t> space = f.vectors->FindSpace(embedder_->Space());
    EXPECT_TRUE(space.ok()) << space.status().ToString();
    f.cache =
        std::make_unique<VectorCache>(space.value_or(0), embedder_->Space(), options, IndexDir());
    return f;
  }

  static Status Sync(Fresh& f, std::vector<std::string>* warnings) {
    return f.store->ReadTransact([&]() -> Status {
      return f.cache->Sync(f.vectors, {std::string(kDefaultScope)}, warnings);
    });
  }

  // The facts of the best `k` hits for `query`'s embedding.
  std::vector<int64_t> Search(const Fresh& f, const std::string& query, size_t k) const {
    auto embedded = embedder_->Embed({query}, EmbedPurpose::kQuery);
    EXPECT_TRUE(embedded.ok()) << embedded.status().ToString();
    if (!embedded.ok()) return {};
    const std::vector<float> v = embedded->front();
    std::vector<std::optional<float>> cosines;
    const VectorCache::View view(*f.cache);
    auto hits = view.Search(v, {std::string(kDefaultScope)}, k, -1.0, {}, &cosines);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::vector<int64_t> out;
    for (const VectorHit& h : hits.value_or(std::vector<VectorHit>{})) out.push_back(h.fact_rowid);
    return out;
  }

  testing::TempDir dir_;
  std::shared_ptr<const Embedder> embedder_ = std::make_shared<HashEmbedder>(kDim);
};

// A restart serves its first search from the saved graph: no vector of the
// scope is read from the store, only those that changed since the save.
TEST_F(VectorCacheTest, ARestartReadsOnlyTheVectorsChangedSinceTheSave) {
  {
    auto engine = OpenEngine(/*save_delay_ms=*/0);
    AddFacts(*engine, 0, 3 * kThreshold);
    SearchOptions o;
    o.mode = FusionMode::kSemantic;
    ASSERT_TRUE(engine->Search("fact number 5", o).ok());  // builds and saves the index
  }
  ASSERT_EQ(HnswFiles().size(), 2u);

  std::vector<int64_t> first;
  {
    Fresh f = OpenFresh(0);
    std::vector<std::string> warnings;
    ASSERT_TRUE(Sync(f, &warnings).ok());
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    EXPECT_EQ(f.vectors->VectorsRead(), 0u);
    first = Search(f, "fact number 5", 5);
    EXPECT_EQ(first.size(), 5u);
  }

  // Three facts added with no search after them: the file is three behind.
  {
    auto engine = OpenEngine(0);
    AddFacts(*engine, 3 * kThreshold, 3);
  }
  Fresh f = OpenFresh(0);
  std::vector<std::string> warnings;
  ASSERT_TRUE(Sync(f, &warnings).ok());
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(f.vectors->VectorsRead(), 3u);
  EXPECT_EQ(Search(f, "fact number 5", 5), first);
}

// A sync after adds reads only the labels added; once a vector of the space
// was removed (a fact forgotten, a vector replaced) it reads every label
// again, and the index follows. Below and above the HNSW threshold.
TEST_F(VectorCacheTest, ASyncReadsOnlyWhatWasAddedUntilSomethingIsRemoved) {
  for (const size_t facts : {kThreshold / 2, 2 * kThreshold}) {
    SCOPED_TRACE("a scope of " + std::to_string(facts) + " facts");
    std::filesystem::remove_all(dir_.path());
    std::filesystem::create_directories(dir_.path());
    auto engine = OpenEngine(/*save_delay_ms=*/0);
    AddFacts(*engine, 0, facts);
    Fresh f = OpenFresh(0);
    std::vector<std::string> warnings;
    ASSERT_TRUE(Sync(f, &warnings).ok());
    uint64_t refs = f.vectors->RefsRead();
    uint64_t vectors = f.vectors->VectorsRead();
    // Reads what each next sync does, and the labels it read.
    const auto sync = [&](uint64_t want_refs, uint64_t want_vectors) {
      ASSERT_TRUE(Sync(f, &warnings).ok());
      EXPECT_TRUE(warnings.empty()) << warnings.front();
      EXPECT_EQ(f.vectors->RefsRead() - refs, want_refs);
      EXPECT_EQ(f.vectors->VectorsRead() - vectors, want_vectors);
      refs = f.vectors->RefsRead();
      vectors = f.vectors->VectorsRead();
    };
    const auto top = [&](const std::string& query) {
      const std::vector<int64_t> hits = Search(f, query, 1);
      return hits.empty() ? int64_t{-1} : hits.front();
    };
    const auto rowid_of = [&](const std::string& content) {
      return *f.store->sqlite()->QueryInt("SELECT rowid FROM facts WHERE content = '" + content +
                                          "'");
    };

    AddFacts(*engine, facts, 3);
    ASSERT_NO_FATAL_FAILURE(sync(3, 3));
    const std::string newest = "fact number " + std::to_string(facts + 2) + " about item " +
                               std::to_string((facts + 2) * 7919 % 1000);
    EXPECT_EQ(top(newest), rowid_of(newest));
    ASSERT_NO_FATAL_FAILURE(sync(0, 0));  // nothing changed: nothing read

    // A forgotten fact: every label read again, no vector, and it is gone.
    auto listed = engine->List(ListOptions{});
    ASSERT_TRUE(listed.ok());
    ForgetRequest forget;
    forget.ids = {listed->back().id};
    const std::string forgotten = listed->back().content;
    const int64_t forgotten_rowid = rowid_of(forgotten);
    ASSERT_TRUE(engine->Forget(forget).ok());
    ASSERT_NO_FATAL_FAILURE(sync(facts + 2, 0));
    EXPECT_NE(top(forgotten), forgotten_rowid);

    // Then adds are read alone again.
    AddFacts(*engine, facts + 3, 2);
    ASSERT_NO_FATAL_FAILURE(sync(2, 2));

    // A vector replaced (as backfill re-embeds) counts as a removal.
    const int64_t replaced_rowid = rowid_of(newest);
    const std::string replaced_id = [&] {
      auto s = f.store->sqlite()->Prepare("SELECT id FROM facts WHERE rowid = ?1");
      EXPECT_TRUE(s.ok());
      s->BindInt(1, replaced_rowid);
      EXPECT_TRUE(*s->Step());
      return s->ColumnText(0);
    }();
    std::vector<float> other(kDim, 0.0f);
    other[0] = 1.0f;
    ASSERT_TRUE(f.store
                    ->Transact([&]() -> Status {
                      ENGRAM_ASSIGN_OR_RETURN(const bool put,
                                              f.vectors->Put(f.cache->SpaceId(), "default",
                                                             replaced_rowid, replaced_id, other));
                      return put ? Status::OK() : Internal("vector not stored");
                    })
                    .ok());
    f.cache->MarkDirty();  // written on the cache's own connection, as an engine does
    ASSERT_NO_FATAL_FAILURE(sync(facts + 4, 1));
    const VectorCache::View view(*f.cache);
    const FactKey key{kDefaultScope, replaced_rowid};
    const auto scored = view.Score(other, std::span(&key, 1));
    ASSERT_TRUE(scored[0].has_value());
    EXPECT_NEAR(*scored[0], 1.0f, 1e-5);
  }
}

// A first sync from a flat snapshot (flat_snapshots, as a one-shot process
// keeps them) reads only the snapshot's last label and vector, to confirm
// them, and what was added since; every label once a vector was removed
// since (and then writes the snapshot again), or when the store is another
// one made again at the same place, even with the same labels, facts and
// space creation time.
TEST_F(VectorCacheTest, AFirstSyncFromASnapshotReadsOnlyWhatWasAddedSinceIt) {
  VectorOptions options = Options(0);
  options.hnsw_threshold = std::numeric_limits<size_t>::max();
  options.flat_snapshots = true;
  const size_t facts = VectorCache::kMinSnapshotVectors + 10;
  const auto clock = std::make_shared<ManualClock>(1700000000000);
  auto engine = OpenEngine(0, clock);
  AddFacts(*engine, 0, facts);
  std::vector<std::string> warnings;
  // A fresh cache's first sync: the labels and vectors it read, and the
  // best hits for `query`.
  struct FirstSync {
    uint64_t refs = 0;
    uint64_t vectors = 0;
    std::vector<int64_t> hits;
  };
  const auto first_sync = [&](const std::string& query) {
    Fresh f = OpenFresh(options);
    FirstSync out;
    EXPECT_TRUE(Sync(f, &warnings).ok());
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    out.refs = f.vectors->RefsRead();
    out.vectors = f.vectors->VectorsRead();
    out.hits = Search(f, query, 5);
    return out;
  };
  const auto rowid_of = [&](const std::string& content) {
    Fresh f = OpenFresh(options);
    return *f.store->sqlite()->QueryInt("SELECT rowid FROM facts WHERE content = '" + content +
                                        "'");
  };
  const auto content_of = [](size_t i) {
    return "fact number " + std::to_string(i) + " about item " + std::to_string(i * 7919 % 1000);
  };

  const FirstSync written = first_sync(content_of(7));
  EXPECT_EQ(written.vectors, facts) << "no snapshot yet: every vector read, then written";
  ASSERT_FALSE(written.hits.empty());
  EXPECT_EQ(written.hits.front(), rowid_of(content_of(7)));
  const FirstSync resumed = first_sync(content_of(7));
  EXPECT_EQ(resumed.refs, 1u);
  EXPECT_EQ(resumed.vectors, 1u);
  EXPECT_EQ(resumed.hits, written.hits);

  // Three added: read alone (the snapshot stays, behind by less than a
  // 32nd), and found.
  AddFacts(*engine, facts, 3);
  const FirstSync added = first_sync(content_of(facts + 2));
  EXPECT_EQ(added.refs, 4u);
  EXPECT_EQ(added.vectors, 4u);
  ASSERT_FALSE(added.hits.empty());
  EXPECT_EQ(added.hits.front(), rowid_of(content_of(facts + 2)));

  // One forgotten: every label read and compared, the forgotten one gone.
  const int64_t forgotten = rowid_of(content_of(7));
  ForgetRequest forget;
  {
    Fresh f = OpenFresh(options);
    auto id = f.store->sqlite()->Prepare("SELECT id FROM facts WHERE rowid = ?1");
    ASSERT_TRUE(id.ok());
    id->BindInt(1, forgotten);
    ASSERT_TRUE(*id->Step());
    forget.ids = {id->ColumnText(0)};
  }
  ASSERT_TRUE(engine->Forget(forget).ok());
  const FirstSync removed = first_sync(content_of(7));
  EXPECT_EQ(removed.refs, 4 + facts + 2) << "the last label and those after it, then all";
  EXPECT_EQ(removed.vectors, 4u) << "the last label's, then the three added since";
  EXPECT_EQ(std::count(removed.hits.begin(), removed.hits.end(), forgotten), 0);
  // That sync wrote the snapshot again: the next resumes from it.
  const FirstSync after_removal = first_sync(content_of(7));
  EXPECT_EQ(after_removal.refs, 1u);
  EXPECT_EQ(after_removal.vectors, 1u);
  EXPECT_EQ(after_removal.hits, removed.hits);

  // The store made again at the same place, the snapshot left beside it:
  // the same labels, facts and space creation time, other vectors. Its
  // removed count differs from the snapshot's, which alone would have the
  // snapshot compared label by label, keeping the old store's vectors under
  // the new store's labels; its last vector tells the stores apart.
  engine.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(DbPath() + suffix);
  engine = OpenEngine(0, clock);
  const size_t again_facts = facts + 3;
  AddFacts(*engine, 50000, again_facts);
  const std::string newest = content_of(50000 + again_facts - 1);
  const FirstSync other = first_sync(newest);
  EXPECT_EQ(other.refs, 1u) << "the last label, confirmed";
  EXPECT_EQ(other.vectors, 1 + again_facts) << "its vector, not confirmed: then every vector";
  ASSERT_FALSE(other.hits.empty());
  EXPECT_EQ(other.hits.front(), rowid_of(newest));
  // The snapshot written again for this store serves the next process.
  const FirstSync again = first_sync(newest);
  EXPECT_EQ(again.refs, 1u);
  EXPECT_EQ(again.vectors, 1u);
  EXPECT_EQ(again.hits, other.hits);
}

// With a delay, the sync that changed a large scope does not write its
// file; the saver does after the delay, and whatever is left is written
// when the cache goes.
TEST_F(VectorCacheTest, TheSaverWritesAfterTheDelayAndOnClose) {
  {
    auto engine = OpenEngine(0);
    AddFacts(*engine, 0, 2 * kThreshold);
  }
  {
    Fresh f = OpenFresh(/*save_delay_ms=*/3600000);
    std::vector<std::string> warnings;
    ASSERT_TRUE(Sync(f, &warnings).ok());
    EXPECT_EQ(f.vectors->VectorsRead(), 2 * kThreshold);
    EXPECT_TRUE(HnswFiles().empty()) << "written an hour early";
  }  // closed: written now
  ASSERT_EQ(HnswFiles().size(), 2u);
  {
    Fresh f = OpenFresh(0);
    std::vector<std::string> warnings;
    ASSERT_TRUE(Sync(f, &warnings).ok());
    EXPECT_EQ(f.vectors->VectorsRead(), 0u);
  }

  {
    auto engine = OpenEngine(0);
    AddFacts(*engine, 2 * kThreshold, 5);
  }
  Fresh f = OpenFresh(/*save_delay_ms=*/20);
  std::vector<std::string> warnings;
  ASSERT_TRUE(Sync(f, &warnings).ok());
  EXPECT_EQ(f.vectors->VectorsRead(), 5u);
  // The saver writes the caught-up index while the cache stays open. The
  // five wait beside the graph until syncs insert them (each for at most
  // kInsertBudget, as a search's would), so the test syncs until the file
  // holds all of them.
  const std::string graph_file = IndexDir() + "/" + HnswFileName();
  const auto holds_all = [&] {
    auto saved = HnswIndex::Load(graph_file, embedder_->Space().dimension, {}, nullptr);
    return saved.ok() && (*saved)->size() == 2 * kThreshold + 5;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!holds_all()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "not saved in 30 s";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(Sync(f, &warnings).ok());
  }
  Fresh again = OpenFresh(0);
  ASSERT_TRUE(Sync(again, &warnings).ok());
  EXPECT_EQ(again.vectors->VectorsRead(), 0u);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
}

// Saves run beside searches and writes, holding off syncs only briefly: every search
// succeeds and finds the newest fact, and what is on disk at the end is
// the whole scope.
TEST_F(VectorCacheTest, SavesRunBesideSearchesAndWrites) {
  auto engine = OpenEngine(/*save_delay_ms=*/1);
  AddFacts(*engine, 0, 2 * kThreshold);
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int> searches{0};
  std::vector<std::thread> searchers;
  for (int t = 0; t < 2; ++t) {
    searchers.emplace_back([&, t] {
      SearchOptions o;
      o.mode = FusionMode::kSemantic;
      o.record_access = false;
      while (!stop.load()) {
        auto r = engine->Search("fact number " + std::to_string(t), o);
        if (!r.ok() || r->hits.empty()) failures.fetch_add(1);
        searches.fetch_add(1);
      }
    });
  }
  SearchOptions o;
  o.mode = FusionMode::kSemantic;
  o.record_access = false;
  for (size_t i = 0; i < 30; ++i) {
    NewFact f;
    f.content = "a rare word zq" + std::to_string(i) + " written now";
    ASSERT_TRUE(engine->Add(f).ok());
    auto found = engine->Search(f.content, o);
    ASSERT_TRUE(found.ok());
    ASSERT_FALSE(found->hits.empty());
    EXPECT_EQ(found->hits[0].fact.content, f.content);
  }
  stop = true;
  for (auto& t : searchers) t.join();
  EXPECT_EQ(failures.load(), 0) << "of " << searches.load() << " searches";
  engine.reset();

  Fresh f = OpenFresh(0);
  std::vector<std::string> warnings;
  ASSERT_TRUE(Sync(f, &warnings).ok());
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(f.vectors->VectorsRead(), 0u) << "the file on disk is the whole scope";
}

}  // namespace
}  // namespace engram
