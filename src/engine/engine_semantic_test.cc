// The semantic signal end to end on a real SQLite file: the five-concept
// A/B, a naive reference fusion on random data, vector rejection, and
// provider switches that never mix spaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include <sqlite3.h>

#include "engram/engine.h"
#include "src/embed/hash_embedder.h"
#include "src/engine/vector_cache.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/testing/store_place_test.h"
#include "tests/engine_for_test.h"
#include "tests/test_embedders.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr Timestamp kNow = 1780000000000;  // 2026-05-28

// Phrases of words drawn from a small vocabulary by a seeded generator.
class PhraseMaker {
 public:
  explicit PhraseMaker(uint32_t seed) : rng_(seed) {}
  std::string operator()(size_t words) {
    static const std::vector<std::string> kWords = {"red",   "blue",  "green", "lamp",
                                                    "desk",  "river", "stone", "cloud",
                                                    "paper", "metal", "glass", "wood"};
    std::string text;
    for (size_t i = 0; i < words; ++i) text += (i ? " " : "") + kWords[rng_() % kWords.size()];
    return text;
  }

 private:
  std::mt19937 rng_;
};

class SemanticTestBase : public testing::StorePlaceTest {
 protected:
  explicit SemanticTestBase(testing::Backend backend) : StorePlaceTest(backend) {}
  // Options of an engine on the test's store with `embedder`, no
  // background backfill.
  EngineOptions Options(std::shared_ptr<const Embedder> embedder, VectorOptions vector = {}) {
    EngineOptions o;
    place_->Apply(&o);
    o.clock = clock_;
    o.embedder = std::move(embedder);
    vector.background_backfill = false;
    o.vector = vector;
    return o;
  }
  std::unique_ptr<Engine> Open(std::shared_ptr<const Embedder> embedder,
                               VectorOptions vector = {}) {
    return testing::OpenEngineForTest(Options(std::move(embedder), std::move(vector)));
  }

  static std::string Add(Engine& engine, const std::string& content) {
    NewFact f;
    f.content = content;
    auto r = engine.Add(f);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) {
      EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
    }
    return r.ok() ? r->fact.id : "";
  }

  static SearchResponse Search(Engine& engine, const std::string& query, FusionMode mode,
                               size_t k = 10) {
    SearchOptions o;
    o.mode = mode;
    o.k = k;
    o.explain = true;
    o.record_access = false;
    return testing::SearchForTest(engine, query, o);
  }

  // The files with `extension` (".hnsw", ".flat") that the vector indexes
  // saved beside the store; none if the directory is not there yet.
  std::vector<std::filesystem::path> IndexFiles(const std::string& extension) const {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& dir : std::filesystem::directory_iterator(place_->Directory(), ec)) {
      if (dir.path().extension() != ".vindex") continue;
      for (const auto& f : std::filesystem::directory_iterator(dir.path(), ec)) {
        if (f.path().extension() == extension) files.push_back(f.path());
      }
    }
    return files;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kNow);
};

class SemanticTest : public SemanticTestBase,
                     public ::testing::WithParamInterface<testing::Backend> {
 protected:
  SemanticTest() : SemanticTestBase(GetParam()) {}
};

// The tests of what only the SQLite store does.
class SqliteSemanticTest : public SemanticTestBase {
 protected:
  SqliteSemanticTest() : SemanticTestBase(testing::Backend::kSqlite) {}
};

// The seed's A/B: five facts, seven queries; two share words with their
// fact, five are phrased only with synonyms that the fact text lacks.
TEST_P(SemanticTest, SynonymQueriesAreFoundOnlyWithTheSemanticSignal) {
  auto embedder = std::make_shared<testing::ConceptEmbedder>(std::vector<std::vector<std::string>>{
      {"postgre", "database", "sql", "db"},
      {"release", "ship", "deploy", "rollout"},
      {"login", "token", "session", "credential", "authentication"},
      {"pytest", "test", "suite", "unit"},
      {"log", "logging", "journal"}});
  auto engine = Open(embedder);
  const std::vector<std::string> facts = {
      "Postgres listens on port 5433",
      "Releases ship every Thursday afternoon",
      "Login tokens expire after one hour",
      "Run pytest before every merge",
      "Application logs rotate daily to /var/log/app",
  };
  std::vector<std::string> ids;
  for (const auto& f : facts) ids.push_back(Add(*engine, f));
  const std::vector<std::pair<std::string, size_t>> queries = {
      {"which port does postgres listen on", 0},  // shares words
      {"how often do logs rotate", 4},            // shares words
      {"when is the next rollout", 1},
      {"how long does a session credential stay valid", 2},
      {"what must the suite pass prior to integration", 3},
      {"where is the journal written", 4},
      {"sql server address", 0},
  };
  // No synonym query shares an analysed term with its fact.
  for (size_t q = 2; q < queries.size(); ++q) {
    const auto terms = AnalyzeQuery(queries[q].first).Terms();
    const auto fact_terms = AnalyzeQuery(facts[queries[q].second]).Terms();
    for (const auto& t : terms) {
      EXPECT_EQ(std::count(fact_terms.begin(), fact_terms.end(), t), 0)
          << queries[q].first << " shares '" << t << "'";
    }
  }
  const auto recall_at_1 = [&](FusionMode mode) {
    size_t found = 0;
    for (const auto& [query, want] : queries) {
      const SearchResponse r = Search(*engine, query, mode, 1);
      if (!r.hits.empty() && r.hits[0].fact.id == ids[want]) ++found;
    }
    return static_cast<double>(found) / static_cast<double>(queries.size());
  };
  EXPECT_NEAR(recall_at_1(FusionMode::kLexical), 2.0 / 7.0, 1e-9);  // 0.2857
  EXPECT_DOUBLE_EQ(recall_at_1(FusionMode::kBlended), 1.0);
  EXPECT_DOUBLE_EQ(recall_at_1(FusionMode::kRrf), 1.0);
  EXPECT_DOUBLE_EQ(recall_at_1(FusionMode::kSemantic), 1.0);
}

// Random facts over a small vocabulary, random unit vectors: the engine's
// candidates, cosines, blended and rrf scores and order must equal a naive
// reference computed here from first principles.
TEST_P(SemanticTest, FusionAgreesWithANaiveReferenceOnRandomData) {
  const std::vector<std::string> words = {"red",   "blue",  "green", "lamp",  "desk",
                                          "river", "stone", "cloud", "paper", "metal"};
  constexpr size_t kDim = 16;
  constexpr size_t kFacts = 60;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  const auto random_unit = [&] {
    std::vector<float> v(kDim);
    double n = 0;
    for (float& x : v) {
      x = normal(rng);
      n += x * x;
    }
    for (float& x : v) x = static_cast<float>(x / std::sqrt(n));
    return v;
  };
  std::map<std::string, std::vector<float>> table;
  std::vector<std::string> facts;
  for (size_t i = 0; i < kFacts; ++i) {
    std::string text = "item" + std::to_string(i);
    for (int w = 0; w < 3; ++w) text += " " + words[rng() % words.size()];
    facts.push_back(text);
    table[text] = random_unit();
  }
  std::vector<std::string> queries;
  for (size_t q = 0; q < 12; ++q) {
    std::string text = words[rng() % words.size()] + " " + words[rng() % words.size()];
    if (q % 4 == 3) text = "zzz";  // no lexical match at all
    if (!table.count(text)) {
      queries.push_back(text);
      table[text] = random_unit();
    }
  }
  VectorOptions vector;
  vector.top_k = 8;
  vector.min_cosine = 0.1;
  auto engine = Open(std::make_shared<testing::TableEmbedder>(kDim, table), vector);
  std::map<std::string, std::string> text_of_id;
  for (const auto& f : facts) text_of_id[Add(*engine, f)] = f;

  for (const std::string& query : queries) {
    SCOPED_TRACE(query);
    const auto dot = [&](const std::string& text) {
      double d = 0;
      for (size_t i = 0; i < kDim; ++i) d += table[query][i] * table[text][i];
      return d;
    };
    // Reference candidates: facts sharing a word, plus the top 8 by cosine
    // at or above 0.1.
    std::set<std::string> lexical;
    for (const auto& f : facts) {
      for (const auto& w : words) {
        if (query.find(w) != std::string::npos && f.find(" " + w) != std::string::npos) {
          lexical.insert(f);
        }
      }
    }
    std::vector<std::string> by_cosine = facts;
    std::sort(by_cosine.begin(), by_cosine.end(),
              [&](const auto& a, const auto& b) { return dot(a) > dot(b); });
    std::set<std::string> expected = lexical;
    for (size_t i = 0; i < 8 && dot(by_cosine[i]) >= 0.1; ++i) expected.insert(by_cosine[i]);

    for (FusionMode mode : {FusionMode::kBlended, FusionMode::kRrf}) {
      const SearchResponse r = Search(*engine, query, mode, 1000);
      std::set<std::string> got;
      for (const auto& h : r.hits) got.insert(h.fact.content);
      EXPECT_EQ(got, expected);
      ASSERT_EQ(r.hits.size(), expected.size());
      // Naive recomputation from the raw signals.
      double lex_lo = 1e300, lex_hi = -1e300, sem_lo = 1e300, sem_hi = -1e300;
      for (const auto& h : r.hits) {
        const Explanation& e = h.explanation;
        EXPECT_TRUE(e.semantic.present);
        EXPECT_NEAR(e.semantic.raw, dot(h.fact.content), 1e-5);
        EXPECT_EQ(e.lexical.present, lexical.count(h.fact.content) == 1);
        const double lex = e.lexical.present ? e.lexical.raw : 0.0;
        lex_lo = std::min(lex_lo, lex);
        lex_hi = std::max(lex_hi, lex);
        sem_lo = std::min(sem_lo, e.semantic.raw);
        sem_hi = std::max(sem_hi, e.semantic.raw);
      }
      std::vector<std::pair<double, std::string>> reference;  // (score, id)
      for (const auto& h : r.hits) {
        const Explanation& e = h.explanation;
        double score = 0;
        if (mode == FusionMode::kBlended) {
          const double lex = e.lexical.present ? e.lexical.raw : 0.0;
          const double lex_n = lex_hi - lex_lo > 1e-12 ? (lex - lex_lo) / (lex_hi - lex_lo) : 0;
          const double sem_n =
              sem_hi - sem_lo > 1e-12 ? (e.semantic.raw - sem_lo) / (sem_hi - sem_lo) : 0;
          // All facts were added at once: temporal is 1 for each; weights
          // renormalised over the signals present.
          const bool has_lex = !lexical.empty();
          const FusionWeights w;  // the defaults
          const double total = w.semantic + (has_lex ? w.lexical : 0.0) + w.temporal;
          score =
              (w.semantic * sem_n + (has_lex ? w.lexical * lex_n : 0.0) + w.temporal * 1.0) / total;
        } else {
          // Ranks among the hits that have each signal, ties by id.
          size_t sem_rank = 1, lex_rank = 1;
          for (const auto& o : r.hits) {
            const Explanation& f = o.explanation;
            const bool before = o.fact.id < h.fact.id;
            if (f.semantic.raw > e.semantic.raw || (f.semantic.raw == e.semantic.raw && before)) {
              ++sem_rank;
            }
            if (e.lexical.present && f.lexical.present &&
                (f.lexical.raw > e.lexical.raw || (f.lexical.raw == e.lexical.raw && before))) {
              ++lex_rank;
            }
          }
          score = 1.0 / (60.0 + static_cast<double>(sem_rank)) +
                  (e.lexical.present ? 1.0 / (60.0 + static_cast<double>(lex_rank)) : 0.0);
        }
        EXPECT_NEAR(h.score, score, 1e-9) << h.fact.content;
        reference.emplace_back(score, h.fact.id);
      }
      std::sort(reference.begin(), reference.end(), [](const auto& a, const auto& b) {
        if (std::abs(a.first - b.first) > 1e-12) return a.first > b.first;
        return a.second < b.second;
      });
      for (size_t i = 0; i < reference.size(); ++i) {
        EXPECT_EQ(r.hits[i].fact.id, reference[i].second) << "rank " << i + 1;
      }
    }
  }
}

TEST_P(SemanticTest, BadVectorsAreRejectedAndTheFactIsKeptForBackfill) {
  using Fault = testing::ScriptedFaultEmbedder::Fault;
  auto faulty = std::make_shared<testing::ScriptedFaultEmbedder>(8);
  auto engine = Open(faulty);
  const std::vector<std::pair<Fault, std::string>> cases = {
      {Fault::kNaN, "NaN at component 1"},
      {Fault::kInfinity, "infinity at component 0"},
      {Fault::kZero, "zero norm"},
      {Fault::kWrongDimension, "wrong dimension: got 9, want 8"},
      {Fault::kError, "provider down"},
      {Fault::kTooFew, "returned 0 vectors for 1 texts"},
  };
  int n = 0;
  for (const auto& [fault, message] : cases) {
    faulty->set_fault(fault);
    NewFact f;
    f.content = "fact number " + std::to_string(n++);
    auto r = engine->Add(f);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->warnings.size(), 1u) << message;
    EXPECT_NE(r->warnings[0].find(message), std::string::npos) << r->warnings[0];
  }
  auto stats = engine->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->facts, 6);
  EXPECT_EQ(stats->vectors, 0);
  EXPECT_EQ(stats->missing_vectors, 6);

  // A query that cannot be embedded: a warning, and the lexical answer.
  faulty->set_fault(Fault::kNaN);
  const SearchResponse r = Search(*engine, "fact number", FusionMode::kBlended);
  EXPECT_EQ(r.hits.size(), 6u);
  EXPECT_FALSE(r.semantic);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("query not embedded"), std::string::npos);

  // Once the provider behaves, backfill completes every fact.
  faulty->set_fault(Fault::kNone);
  auto report = engine->Backfill({});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->embedded, 6u);
  EXPECT_EQ(report->remaining, 0u);
  EXPECT_EQ(engine->Stats()->vectors, 6);
}

// A stored vector gone bad on disk (here one NaN written over a component)
// costs that fact its semantic signal, not the scope its searches; backfill
// replaces it. Flat and HNSW indexes alike.
TEST_F(SqliteSemanticTest, AStoredVectorWithANaNLeavesOnlyItsFactOutAndBackfillReplacesIt) {
  for (const size_t hnsw_threshold : {size_t{1000}, size_t{2}}) {
    SCOPED_TRACE("hnsw_threshold " + std::to_string(hnsw_threshold));
    std::filesystem::remove_all(place_->Directory());
    std::filesystem::create_directories(place_->Directory());
    VectorOptions vector;
    vector.hnsw_threshold = hnsw_threshold;
    auto embedder = std::make_shared<HashEmbedder>(64);
    std::string bad_id;
    {
      auto engine = Open(embedder, vector);
      Add(*engine, "Postgres listens on port 5433");
      bad_id = Add(*engine, "Releases ship every Thursday afternoon");
      Add(*engine, "Login tokens expire after one hour");
    }
    {
      sqlite3* db = nullptr;
      ASSERT_EQ(sqlite3_open((place_->Directory() + "/memory.db").c_str(), &db), SQLITE_OK);
      const std::string nan_at_3 =
          "UPDATE fact_vectors SET vector = cast(substr(vector, 1, 12) || x'0000c07f' || "
          "substr(vector, 17) AS BLOB) WHERE fact_rowid = (SELECT rowid FROM facts WHERE id = '" +
          bad_id + "')";
      EXPECT_EQ(sqlite3_exec(db, nan_at_3.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
      EXPECT_EQ(sqlite3_changes(db), 1);
      sqlite3_close(db);
    }
    // As after a rebuild: the saved HNSW index still holds the good copy.
    std::filesystem::remove_all(place_->Directory() + "/memory.db.vindex");
    auto engine = Open(embedder, vector);
    SearchResponse r =
        Search(*engine, "Releases ship every Thursday afternoon", FusionMode::kSemantic);
    EXPECT_TRUE(r.semantic);
    for (const auto& h : r.hits) EXPECT_NE(h.fact.id, bad_id);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "fact " + bad_id +
                                 ": its stored vector is unusable (vindex: check vector: NaN at "
                                 "component 3); semantic search leaves the fact out until "
                                 "`engram backfill` embeds it again");
    r = Search(*engine, "Postgres listens on port 5433", FusionMode::kSemantic);
    ASSERT_FALSE(r.hits.empty()) << "the scope's other facts are still searched";
    EXPECT_EQ(r.hits[0].fact.content, "Postgres listens on port 5433");
    EXPECT_TRUE(r.warnings.empty()) << "said once, not on every search";

    auto report = engine->Backfill({});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->replaced, 1u);
    EXPECT_EQ(report->embedded, 1u);
    EXPECT_EQ(report->remaining, 0u);
    r = Search(*engine, "Releases ship every Thursday afternoon", FusionMode::kSemantic);
    ASSERT_FALSE(r.hits.empty());
    EXPECT_EQ(r.hits[0].fact.id, bad_id);
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_EQ(engine->Backfill({})->replaced, 0u) << "nothing left to replace";
  }
}

// hash:64 -> hash:32 -> hash:64: each switch starts or reuses a space,
// backfill embeds only what that space lacks, and cosines always come from
// the active space's vectors.
TEST_P(SemanticTest, SwitchingSpacesNeverMixesVectorsNorReembedsValidOnes) {
  auto wide = std::make_shared<HashEmbedder>(64);
  auto narrow = std::make_shared<HashEmbedder>(32);
  const std::vector<std::string> facts = {"the red lamp on the desk", "a river of stone",
                                          "clouds over metal roofs", "paper cuts"};
  const auto expect_cosines_from = [&](Engine& engine, const Embedder& space) {
    const SearchResponse r = Search(engine, "red stone roofs", FusionMode::kBlended, 100);
    ASSERT_FALSE(r.hits.empty());
    auto q = space.Embed({"red stone roofs"}, EmbedPurpose::kQuery);
    for (const auto& h : r.hits) {
      auto d = space.Embed({h.fact.content}, EmbedPurpose::kDocument);
      double dot = 0;
      for (size_t i = 0; i < space.Space().dimension; ++i) dot += (*q)[0][i] * (*d)[0][i];
      ASSERT_TRUE(h.explanation.semantic.present) << h.fact.content;
      EXPECT_NEAR(h.explanation.semantic.raw, dot, 1e-5) << h.fact.content;
    }
  };

  auto counting_wide = std::make_shared<testing::CountingEmbedder>(wide);
  auto engine = Open(counting_wide);
  for (const auto& f : facts) Add(*engine, f);
  EXPECT_EQ(counting_wide->documents(), 4u);
  expect_cosines_from(*engine, *wide);

  auto counting_narrow = std::make_shared<testing::CountingEmbedder>(narrow);
  engine = Open(counting_narrow);
  EXPECT_EQ(engine->Stats()->missing_vectors, 4);
  // Before backfill the new space has no vectors: no cosine at all, and
  // certainly none from the old space.
  const SearchResponse before = Search(*engine, "red stone roofs", FusionMode::kBlended);
  for (const auto& h : before.hits) EXPECT_FALSE(h.explanation.semantic.present);
  auto report = engine->Backfill({});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->embedded, 4u);
  Add(*engine, "a fifth fact about lamps");
  EXPECT_EQ(counting_narrow->documents(), 5u);
  expect_cosines_from(*engine, *narrow);
  auto stats = engine->Stats();
  ASSERT_EQ(stats->spaces.size(), 2u);
  EXPECT_EQ(stats->spaces[0].vectors, 4);
  EXPECT_EQ(stats->spaces[1].vectors, 5);

  auto counting_back = std::make_shared<testing::CountingEmbedder>(wide);
  engine = Open(counting_back);
  EXPECT_EQ(engine->Stats()->missing_vectors, 1);
  report = engine->Backfill({});
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->embedded, 1u);  // only the fact added meanwhile
  EXPECT_EQ(counting_back->documents(), 1u);
  expect_cosines_from(*engine, *wide);

  // Prune keeps only the active space.
  auto pruned = engine->PruneVectors();
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(*pruned, 5);
  stats = engine->Stats();
  ASSERT_EQ(stats->spaces.size(), 1u);
  EXPECT_TRUE(stats->spaces[0].active);
  EXPECT_EQ(stats->vectors, 5);
}

TEST_P(SemanticTest, ForgettingAFactRemovesItsVectorsInEverySpace) {
  auto engine = Open(std::make_shared<HashEmbedder>(64));
  const std::string id = Add(*engine, "the red lamp on the desk");
  Add(*engine, "a river of stone");
  engine = Open(std::make_shared<HashEmbedder>(32));
  ASSERT_TRUE(engine->Backfill({}).ok());
  ForgetRequest forget;
  forget.ids = {id};
  ASSERT_TRUE(engine->Forget(forget).ok());
  auto stats = engine->Stats();
  ASSERT_EQ(stats->spaces.size(), 2u);
  EXPECT_EQ(stats->spaces[0].vectors, 1);
  EXPECT_EQ(stats->spaces[1].vectors, 1);
  const SearchResponse r = Search(*engine, "red lamp desk", FusionMode::kSemantic);
  for (const auto& h : r.hits) EXPECT_NE(h.fact.id, id);
}

// A scope at or above hnsw_threshold is searched with HNSW, persisted
// beside the database, kept in step with writes from another connection,
// and agrees with exact search.
TEST_P(SemanticTest, LargeScopesUseAPersistedHnswIndexThatFollowsTheStore) {
  PhraseMaker phrase(11);
  auto embedder = std::make_shared<HashEmbedder>(64);
  VectorOptions hnsw;
  hnsw.hnsw_threshold = 100;
  hnsw.hnsw_save_delay_ms = 0;  // each search that changes the index saves it
  hnsw.top_k = 10;
  hnsw.min_cosine = -1;
  auto engine = Open(embedder, hnsw);
  std::vector<NewFact> facts(300);
  for (size_t i = 0; i < facts.size(); ++i) facts[i].content = std::to_string(i) + " " + phrase(4);
  ASSERT_TRUE(engine->Import(facts, {}).ok());

  VectorOptions exact = hnsw;
  exact.hnsw_threshold = 1000000;
  auto flat = Open(embedder, exact);
  const auto ids = [](const SearchResponse& r) {
    std::vector<std::string> out;
    for (const auto& h : r.hits) out.push_back(h.fact.id);
    return out;
  };
  size_t found = 0, wanted = 0;
  std::vector<std::string> queries;
  for (int q = 0; q < 20; ++q) queries.push_back(phrase(2));
  for (const std::string& q : queries) {
    const auto approximate = ids(Search(*engine, q, FusionMode::kSemantic, 10));
    const auto truth = ids(Search(*flat, q, FusionMode::kSemantic, 10));
    wanted += truth.size();
    for (const auto& id : truth) found += std::count(approximate.begin(), approximate.end(), id);
  }
  EXPECT_GE(static_cast<double>(found) / static_cast<double>(wanted), 0.95);

  // The index was saved beside the database.
  const std::vector<std::filesystem::path> files = IndexFiles(".hnsw");
  ASSERT_EQ(files.size(), 1u);
  const auto saved_at = std::filesystem::last_write_time(files[0]);

  // Another connection adds one fact and forgets another: the first engine
  // catches up by label, returns the new fact and never the forgotten one.
  const std::string forgotten = ids(Search(*engine, queries[0], FusionMode::kSemantic, 1))[0];
  NewFact extra;
  extra.content = "a quite unusual fact about zebras";
  ASSERT_TRUE(flat->Add(extra).ok());
  ForgetRequest forget;
  forget.ids = {forgotten};
  ASSERT_TRUE(flat->Forget(forget).ok());
  const SearchResponse after = Search(*engine, "unusual zebras", FusionMode::kSemantic, 10);
  ASSERT_FALSE(after.hits.empty());
  EXPECT_EQ(after.hits[0].fact.content, extra.content);
  for (const std::string& q : queries) {
    for (const auto& id : ids(Search(*engine, q, FusionMode::kSemantic, 10))) {
      EXPECT_NE(id, forgotten);
    }
  }
  EXPECT_GE(std::filesystem::last_write_time(files[0]), saved_at);

  // A fresh engine loads the saved index and agrees with exact search.
  engine = Open(embedder, hnsw);
  const auto reloaded = ids(Search(*engine, "unusual zebras", FusionMode::kSemantic, 1));
  ASSERT_EQ(reloaded.size(), 1u);
  EXPECT_EQ(reloaded[0], ids(Search(*flat, "unusual zebras", FusionMode::kSemantic, 1))[0]);

  // A corrupt index file is rebuilt with a warning, not an error.
  engine.reset();
  testing::WriteFile(files[0].string(), "not an index");
  engine = Open(embedder, hnsw);
  const SearchResponse rebuilt = Search(*engine, "unusual zebras", FusionMode::kSemantic, 1);
  ASSERT_EQ(rebuilt.hits.size(), 1u);
  EXPECT_EQ(rebuilt.hits[0].fact.content, extra.content);
  ASSERT_FALSE(rebuilt.warnings.empty());
  EXPECT_NE(rebuilt.warnings[0].find("vector index rebuilt"), std::string::npos);
}

// A one-shot process's snapshot of a large exact scope (flat_snapshots):
// written on first use, read by the next engine, which resumes from it
// when only adds happened since, or brings it in step by label and writes
// it again when a vector went; rewritten once the scope has drifted by
// more than a 32nd, and rebuilt with a warning when damaged; every search
// ranks as an engine without snapshots does.
TEST_P(SemanticTest, AFlatSnapshotServesLargeExactScopesAndFollowsTheStore) {
  PhraseMaker phrase(7);
  auto embedder = std::make_shared<HashEmbedder>(32);
  VectorOptions plain;
  plain.top_k = 10;
  plain.min_cosine = -1;
  VectorOptions snapshots = plain;
  snapshots.flat_snapshots = true;
  auto reference = Open(embedder, plain);
  std::vector<NewFact> facts(VectorCache::kMinSnapshotVectors + 200);
  for (size_t i = 0; i < facts.size(); ++i) facts[i].content = std::to_string(i) + " " + phrase(4);
  ASSERT_TRUE(reference->Import(facts, {}).ok());
  std::vector<std::string> queries;
  for (int q = 0; q < 10; ++q) queries.push_back(phrase(2));
  const auto ranked = [](Engine& engine, const std::string& q) {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& h : Search(engine, q, FusionMode::kSemantic, 10).hits) {
      out.emplace_back(h.fact.id, h.score);
    }
    return out;
  };
  const auto agrees = [&](Engine& engine) {
    for (const std::string& q : queries) EXPECT_EQ(ranked(engine, q), ranked(*reference, q)) << q;
  };
  const auto snapshot_files = [&] { return IndexFiles(".flat"); };

  auto first = Open(embedder, snapshots);
  agrees(*first);
  ASSERT_EQ(snapshot_files().size(), 1u);
  const std::filesystem::path file = snapshot_files()[0];
  first.reset();
  agrees(*Open(embedder, snapshots));  // read from the snapshot

  // Another connection adds a fact: the next engine resumes from the
  // snapshot, reads the new vector and does not rewrite it for one change.
  const auto written = std::filesystem::last_write_time(file);
  NewFact extra;
  extra.content = "a quite unusual fact about zebras";
  ASSERT_TRUE(reference->Add(extra).ok());
  auto caught_up = Open(embedder, snapshots);
  agrees(*caught_up);
  EXPECT_EQ(Search(*caught_up, "unusual zebras", FusionMode::kSemantic, 1).hits[0].fact.content,
            extra.content);
  caught_up.reset();
  EXPECT_EQ(std::filesystem::last_write_time(file), written);

  // And forgets one: the next engine brings the snapshot in step by label,
  // and writes it again, since a vector went after it was written.
  ForgetRequest forget;
  forget.ids = {ranked(*reference, queries[0])[0].first};
  ASSERT_TRUE(reference->Forget(forget).ok());
  std::filesystem::last_write_time(file, written - std::chrono::seconds(10));
  agrees(*Open(embedder, snapshots));
  EXPECT_GT(std::filesystem::last_write_time(file), written - std::chrono::seconds(10));

  // More than a 32nd of the scope changed since: rewritten.
  std::vector<NewFact> more(facts.size() / 16);
  for (size_t i = 0; i < more.size(); ++i)
    more[i].content = "more " + std::to_string(i) + phrase(3);
  ASSERT_TRUE(reference->Import(more, {}).ok());
  std::filesystem::last_write_time(file, written - std::chrono::seconds(10));
  agrees(*Open(embedder, snapshots));
  EXPECT_GT(std::filesystem::last_write_time(file), written - std::chrono::seconds(10));

  // A damaged snapshot: a warning, the scope rebuilt from the store.
  std::string bytes = testing::ReadFile(file.string());
  bytes[bytes.size() / 2] ^= 0x10;
  testing::WriteFile(file.string(), bytes);
  auto rebuilt = Open(embedder, snapshots);
  const SearchResponse warned = Search(*rebuilt, queries[0], FusionMode::kSemantic, 10);
  ASSERT_FALSE(warned.warnings.empty());
  EXPECT_NE(warned.warnings[0].find("vector snapshot rebuilt: "), std::string::npos)
      << warned.warnings[0];
  EXPECT_NE(warned.warnings[0].find("checksum mismatch"), std::string::npos) << warned.warnings[0];
  agrees(*rebuilt);
  rebuilt.reset();
  agrees(*Open(embedder, snapshots));  // the rebuilt one was saved and reads
}

TEST_P(SemanticTest, SemanticModeWithoutAProviderIsAnError) {
  auto engine = Open(nullptr);
  Add(*engine, "a fact");
  SearchOptions o;
  o.mode = FusionMode::kSemantic;
  auto r = engine->Search("fact", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("semantic mode needs an embedding provider"),
            std::string::npos);
}

// Searches read on connections of their own and scan the vector cache under
// a View, beside each other and beside writes. Whatever they overlap with,
// every search succeeds and returns whole, distinct, live facts; once the
// writes stop, the store and the cache agree with what was written. Run on
// a flat scope and on an HNSW one (hnsw_threshold 16), whose syncs update
// the graph while a background saver writes its file every millisecond
// between them.
class SemanticConcurrencyTest
    : public SemanticTestBase,
      public ::testing::WithParamInterface<std::tuple<testing::Backend, size_t>> {
 protected:
  SemanticConcurrencyTest() : SemanticTestBase(std::get<0>(GetParam())) {}
  size_t HnswThreshold() const { return std::get<1>(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(FlatAndHnsw, SemanticConcurrencyTest,
                         ::testing::Combine(::testing::ValuesIn(testing::AllBackends()),
                                            ::testing::Values(size_t{1000000}, size_t{16})),
                         [](const auto& info) {
                           return (std::get<1>(info.param) == 16 ? std::string("Hnsw")
                                                                 : std::string("Flat")) +
                                  testing::BackendName(std::get<0>(info.param));
                         });

TEST_P(SemanticConcurrencyTest, SearchesRunBesideWritesAndSeeWholeFacts) {
  VectorOptions vector;
  vector.hnsw_threshold = HnswThreshold();
  vector.hnsw_save_delay_ms = 1;
  auto engine = Open(std::make_shared<HashEmbedder>(64), vector);
  std::vector<std::string> seeded;
  for (int i = 0; i < 60; ++i) {
    seeded.push_back(Add(*engine, "seeded fact " + std::to_string(i) + " about postgres"));
  }
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int> searches{0};
  std::vector<std::thread> searchers;
  for (int t = 0; t < 4; ++t) {
    searchers.emplace_back([&, t] {
      while (!stop.load()) {
        SearchOptions o;
        o.k = 8;
        o.record_access = t % 2 == 0;  // half of them write access bookkeeping too
        o.mode = t == 3 ? FusionMode::kSemantic : FusionMode::kBlended;
        auto r = engine->Search("postgres fact", o);
        bool good = r.ok() && !r->hits.empty() && r->hits.size() <= o.k;
        std::set<std::string> ids;
        if (good) {
          for (const SearchHit& h : r->hits) {
            good = good && ids.insert(h.fact.id).second &&
                   h.fact.content.find("postgres") != std::string::npos;
          }
        }
        if (!good) ++failures;
        ++searches;
      }
    });
  }
  // The writer adds new facts and forgets seeded ones meanwhile.
  std::vector<std::string> added;
  for (int i = 0; i < 40; ++i) {
    added.push_back(Add(*engine, "added fact " + std::to_string(i) + " about postgres"));
    if (i % 2 == 0) {
      ForgetRequest forget;
      forget.ids = {seeded[static_cast<size_t>(i)]};
      auto removed = engine->Forget(forget);
      EXPECT_TRUE(removed.ok() && *removed == 1);
    }
  }
  // Let the searchers run a little past the last write.
  const int after_writes = searches.load();
  while (searches.load() < after_writes + 20) std::this_thread::yield();
  stop = true;
  for (auto& t : searchers) t.join();
  EXPECT_EQ(failures.load(), 0) << "of " << searches.load() << " searches";

  auto stats = engine->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->facts, 60 + 40 - 20);
  // The last fact added is found by meaning and by word.
  const SearchResponse semantic =
      Search(*engine, "added fact 39 about postgres", FusionMode::kSemantic, 1);
  ASSERT_EQ(semantic.hits.size(), 1u);
  EXPECT_EQ(semantic.hits[0].fact.id, added.back());
  // A forgotten fact is gone from every search.
  const SearchResponse forgotten =
      Search(*engine, "seeded fact 0 about postgres", FusionMode::kBlended, 100);
  for (const SearchHit& h : forgotten.hits) EXPECT_NE(h.fact.id, seeded[0]);
  if (HnswThreshold() == 16) {
    engine.reset();  // writes what the saver has not
    EXPECT_EQ(IndexFiles(".hnsw").size(), 1u) << "the HNSW scope was saved";
  }
}

// Servers sharing one store: two engines write the same scope at once
// while a third searches it throughout. The third keeps its vector cache
// in step by label, so it must end with every vector that was committed,
// whatever order the writers' transactions drew and committed their labels
// in, and without any that was forgotten.
TEST_P(SemanticTest, AThirdEngineSeesEveryVectorTwoOthersWroteAtOnce) {
  VectorOptions vector;
  vector.top_k = 1000;
  vector.min_cosine = -1;
  const auto embedder = std::make_shared<HashEmbedder>(64);
  auto reader = Open(embedder, vector);
  const std::string before = Add(*reader, "a fact before the writers");
  std::vector<std::unique_ptr<Engine>> writers;
  writers.push_back(Open(embedder, vector));
  writers.push_back(Open(embedder, vector));
  constexpr int kPerWriter = 60;
  std::atomic<int> writing{2};
  std::vector<std::vector<std::string>> kept(2);
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        const std::string id = Add(*writers[static_cast<size_t>(w)],
                                   "writer " + std::to_string(w) + " fact " + std::to_string(i));
        if (i % 3 != 2) {
          kept[static_cast<size_t>(w)].push_back(id);
          continue;
        }
        ForgetRequest forget;
        forget.ids = {id};
        EXPECT_TRUE(writers[static_cast<size_t>(w)]->Forget(forget).ok());
      }
      --writing;
    });
  }
  while (writing.load() > 0) Search(*reader, "writer fact", FusionMode::kSemantic, 5);
  for (auto& t : threads) t.join();

  std::set<std::string> expected = {before};
  for (const auto& ids : kept) expected.insert(ids.begin(), ids.end());
  const SearchResponse all = Search(*reader, "writer fact", FusionMode::kSemantic, 1000);
  std::set<std::string> found;
  for (const SearchHit& h : all.hits) found.insert(h.fact.id);
  EXPECT_EQ(found, expected);
}

// Reading on pooled connections changes nothing in the results: the same
// queries rank the same facts with the same scores with readers = 0.
TEST_P(SemanticTest, ReaderConnectionsRankExactlyAsTheEnginesOwn) {
  const auto embedder = std::make_shared<HashEmbedder>(64);
  {
    auto engine = Open(embedder);
    for (int i = 0; i < 40; ++i) {
      Add(*engine,
          "note " + std::to_string(i) + (i % 3 == 0 ? " on postgres tuning" : " on lamps"));
    }
  }
  const std::vector<std::string> queries = {"postgres tuning", "lamps", "note 7", "nothing here"};
  std::vector<std::vector<std::pair<std::string, double>>> rankings[2];
  for (size_t readers : {size_t{8}, size_t{0}}) {
    EngineOptions o = Options(embedder);
    o.readers = readers;
    auto engine = Engine::Open(o);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    for (const std::string& q : queries) {
      for (FusionMode mode : {FusionMode::kBlended, FusionMode::kLexical, FusionMode::kSemantic}) {
        const SearchResponse r = Search(**engine, q, mode);
        EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
        std::vector<std::pair<std::string, double>> ranking;
        for (const SearchHit& h : r.hits) ranking.emplace_back(h.fact.id, h.score);
        rankings[readers == 0 ? 1 : 0].push_back(std::move(ranking));
      }
    }
  }
  ASSERT_EQ(rankings[0].size(), rankings[1].size());
  for (size_t i = 0; i < rankings[0].size(); ++i) {
    EXPECT_EQ(rankings[0][i], rankings[1][i]) << "query " << queries[i / 3] << ", mode " << i % 3;
  }
  EXPECT_FALSE(rankings[0][0].empty());
}

// The threads an embedder embedded queries on, other than `caller`.
class QueryThreadEmbedder final : public Embedder {
 public:
  explicit QueryThreadEmbedder(std::shared_ptr<const Embedder> inner) : inner_(std::move(inner)) {}
  const EmbeddingSpace& Space() const override { return inner_->Space(); }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose purpose) const override {
    if (purpose == EmbedPurpose::kQuery) {
      std::lock_guard lock(mutex_);
      if (std::this_thread::get_id() == caller_) {
        ++on_caller_;
      } else {
        ++elsewhere_;
      }
    }
    return inner_->Embed(texts, purpose);
  }
  // Counts from now on, against the calling thread.
  void Reset() {
    std::lock_guard lock(mutex_);
    caller_ = std::this_thread::get_id();
    on_caller_ = elsewhere_ = 0;
  }
  std::pair<size_t, size_t> OnCallerAndElsewhere() const {
    std::lock_guard lock(mutex_);
    return {on_caller_, elsewhere_};
  }

 private:
  std::shared_ptr<const Embedder> inner_;
  mutable std::mutex mutex_;
  std::thread::id caller_;
  mutable size_t on_caller_ = 0;
  mutable size_t elsewhere_ = 0;
};

// EngineOptions::overlap_query_embedding moves the query's embedding off
// the searching thread and changes nothing a search returns: every mode
// ranks, scores and warns as when the query is embedded first, with a
// provider that answers and with one that fails (the search then ranks
// without the vector signal).
TEST_P(SemanticTest, EmbeddingBesideTheMatchSearchesAsEmbeddingFirst) {
  const auto faulty = std::make_shared<testing::ScriptedFaultEmbedder>(64);
  const auto embedder = std::make_shared<QueryThreadEmbedder>(faulty);
  {
    auto engine = Open(embedder);
    for (int i = 0; i < 60; ++i) {
      Add(*engine,
          "note " + std::to_string(i) + (i % 4 == 0 ? " on postgres tuning" : " on lamps"));
    }
  }
  const std::vector<std::string> queries = {"postgres tuning", "lamps", "note 7", "nothing here"};
  // Per query and mode: the ranking, the warnings and whether the vector
  // signal was on.
  using Outcome =
      std::tuple<std::vector<std::pair<std::string, double>>, std::vector<std::string>, bool>;
  std::vector<Outcome> outcomes[2];
  for (const auto fault : {testing::ScriptedFaultEmbedder::Fault::kNone,
                           testing::ScriptedFaultEmbedder::Fault::kError}) {
    faulty->set_fault(fault);
    for (const bool overlap : {false, true}) {
      EngineOptions o = Options(embedder);
      o.overlap_query_embedding = overlap;
      auto engine = Engine::Open(o);
      ASSERT_TRUE(engine.ok()) << engine.status().ToString();
      embedder->Reset();
      for (const std::string& q : queries) {
        for (FusionMode mode :
             {FusionMode::kBlended, FusionMode::kLexical, FusionMode::kSemantic}) {
          const SearchResponse r = Search(**engine, q, mode);
          std::vector<std::pair<std::string, double>> ranking;
          for (const SearchHit& h : r.hits) ranking.emplace_back(h.fact.id, h.score);
          outcomes[overlap ? 1 : 0].emplace_back(std::move(ranking), r.warnings, r.semantic);
        }
      }
      // Two of the three modes embed each query: on the searching thread,
      // or on one of its own.
      const auto [on_caller, elsewhere] = embedder->OnCallerAndElsewhere();
      EXPECT_EQ(on_caller, overlap ? 0U : 2 * queries.size()) << "overlap " << overlap;
      EXPECT_EQ(elsewhere, overlap ? 2 * queries.size() : 0U) << "overlap " << overlap;
    }
  }
  ASSERT_EQ(outcomes[0].size(), outcomes[1].size());
  for (size_t i = 0; i < outcomes[0].size(); ++i) {
    EXPECT_EQ(outcomes[0][i], outcomes[1][i])
        << "query " << queries[(i / 3) % queries.size()] << ", mode " << i % 3
        << (i >= outcomes[0].size() / 2 ? ", failing provider" : "");
  }
  // Both providers were seen: one gave the vector signal, one a warning.
  EXPECT_TRUE(std::get<2>(outcomes[1][0]));
  EXPECT_FALSE(std::get<0>(outcomes[1][0]).empty());
  const Outcome& failed = outcomes[1][outcomes[1].size() / 2];
  EXPECT_FALSE(std::get<2>(failed));
  ASSERT_FALSE(std::get<1>(failed).empty());
  EXPECT_NE(std::get<1>(failed).front().find("query not embedded: provider down"),
            std::string::npos)
      << std::get<1>(failed).front();
  EXPECT_FALSE(std::get<0>(failed).empty());  // the lexical hits still rank
}

// vector.int8_scan changes how a scope is scanned, not what a search
// returns: on 400 facts (the int8 pass keeps 40 of them for exact scoring)
// every mode ranks and scores as the float scan does.
TEST_P(SemanticTest, Int8ScanRanksAndScoresAsTheFloatScan) {
  const auto embedder = std::make_shared<HashEmbedder>(64);
  {
    auto engine = Open(embedder);
    for (int i = 0; i < 400; ++i) {
      Add(*engine, "note " + std::to_string(i) + " about " +
                       (i % 5 == 0   ? "postgres tuning"
                        : i % 5 == 1 ? "desk lamps"
                                     : "travel"));
    }
  }
  const std::vector<std::string> queries = {"postgres tuning", "lamps for a desk", "note 7 travel"};
  std::vector<std::vector<std::pair<std::string, double>>> rankings[2];
  for (const bool int8 : {false, true}) {
    VectorOptions vector;
    vector.int8_scan = int8;
    auto engine = Open(embedder, vector);
    for (const std::string& q : queries) {
      for (FusionMode mode : {FusionMode::kBlended, FusionMode::kSemantic}) {
        const SearchResponse r = Search(*engine, q, mode);
        std::vector<std::pair<std::string, double>> ranking;
        for (const SearchHit& h : r.hits) ranking.emplace_back(h.fact.id, h.score);
        rankings[int8 ? 1 : 0].push_back(std::move(ranking));
      }
    }
  }
  ASSERT_EQ(rankings[0].size(), rankings[1].size());
  for (size_t i = 0; i < rankings[0].size(); ++i) {
    EXPECT_FALSE(rankings[0][i].empty());
    EXPECT_EQ(rankings[0][i], rankings[1][i]) << "query " << queries[i / 2] << ", mode " << i % 2;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SemanticTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
